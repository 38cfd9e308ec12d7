#!/usr/bin/env python3
"""Reduces fabric_probe.sh's raw.csv to h100_fabric_probe.csv: per configuration what the
L2 receives through the partition fabric (sectors read and written, requests of every
kind, per lattice update) and how busy and stalled the fabric's ports are
(README.md, "Deep blocks and the partition fabric").

  fabric_probe_reduce.py OUTDIR > bench/stalls/h100_fabric_probe.csv
"""
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = {"copy_probe": "copy_strided_f64", "cube_probe": "star3d_r1_f64 256^3",
           "flat_probe": "star3d_r2_f64 1280x1280x20"}
PER_UPDATE = ["lts__t_sectors_srcunit_ltcfabric_op_read.sum",
              "lts__t_sectors_srcunit_ltcfabric_op_write.sum",
              "lts__t_requests_srcunit_ltcfabric_op_read.sum",
              "lts__t_requests_srcunit_ltcfabric_op_write.sum",
              "lts__t_requests_srcunit_ltcfabric.sum"]
SHARES = ["lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed",
          "lts__ltcfabric2lts_cycles_stalled.avg.pct_of_peak_sustained_elapsed"]


def main():
    out = sys.argv[1]
    rows = list(csv.reader(open(os.path.join(out, "raw.csv"))))
    h = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    hdr, data = rows[h], rows[h + 2:]  # h + 1 holds the units
    ix = {n: i for i, n in enumerate(hdr)}
    order = [line.split() for line in open(os.path.join(out, "order.txt"))]

    def v(r, n):
        return float(r[ix[n]].replace(",", ""))

    print("kernel,block,folding,time_us,fabric_read_sectors,fabric_write_sectors,"
          "fabric_read_requests,fabric_write_requests,fabric_requests_all,"
          "fabric_active_pct,fabric_stalled_pct")
    for (fam, i, status), r in zip([o for o in order if o[2] == "ok"], data):
        with open(os.path.join(HERE, "depth_probe", fam.split("_")[0] + ".json")) as f:
            family = json.load(f)
        c = family["configs"][int(i)]
        n = 1
        for d in family["domain"]:
            n *= d
        figs = [v(r, m) / n for m in PER_UPDATE] + [v(r, m) for m in SHARES]
        print("%s,%dx%dx%d,%dx%dx%d,%.1f," % (KERNELS[fam], *c, v(r, "gpu__time_duration.sum") / 1e3)
              + ",".join("%.4f" % x for x in figs[:5]) + "," + ",".join("%.1f" % x for x in figs[5:]))


if __name__ == "__main__":
    main()
