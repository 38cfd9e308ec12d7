#!/usr/bin/env python3
"""Reduces depth_probe.sh's raw.csv to h100_depth_probe.csv: per configuration the time,
the L2 partition fabric's busy share and its busy time per lattice update, DRAM busy
share and sectors per update, L2 requests from L1 per update, the crossbar and tag
shares, DRAM fills, and two warp stall ratios (README.md, "Deep blocks and the
partition fabric").

  depth_probe_reduce.py OUTDIR > bench/stalls/h100_depth_probe.csv
"""
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = {"copy_probe": "copy_strided_f64", "cube_probe": "star3d_r1_f64 256^3",
           "flat_probe": "star3d_r2_f64 1280x1280x20"}


def main():
    out = sys.argv[1]
    rows = list(csv.reader(open(os.path.join(out, "raw.csv"))))
    h = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    hdr, data = rows[h], rows[h + 2:]  # h + 1 holds the units
    ix = {n: i for i, n in enumerate(hdr)}
    order = [line.split() for line in open(os.path.join(out, "order.txt"))]
    fams = {}
    for name in KERNELS:
        with open(os.path.join(HERE, "depth_probe", name.split("_")[0] + ".json")) as f:
            fams[name] = json.load(f)

    def v(r, n):
        return float(r[ix[n]].replace(",", ""))

    print("kernel,block,folding,time_us,fabric_pct,fabric_ps_per_update,dram_pct,"
          "dram_read_sectors_per_update,dram_write_sectors_per_update,"
          "l2_tex_requests_per_update,xbar2lts_pct,tag_pct,fill_pct,"
          "long_scoreboard_stall_per_issue,lg_throttle_stall_per_issue")
    for (fam, i, status), r in zip([o for o in order if o[2] == "ok"], data):
        f = fams[fam]
        c = f["configs"][int(i)]
        n = 1
        for d in f["domain"]:
            n *= d
        t = v(r, "gpu__time_duration.sum") / 1e3
        fab = v(r, "lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed")
        print("%s,%dx%dx%d,%dx%dx%d,%.1f,%.1f,%.2f,%.1f,%.3f,%.3f,%.3f,%.1f,%.1f,%.1f,%.1f,%.2f" % (
            KERNELS[fam], *c, t, fab, fab / 100 * t * 1e6 / n,
            v(r, "dram__cycles_active.avg.pct_of_peak_sustained_elapsed"),
            v(r, "dram__sectors_read.sum") / n, v(r, "dram__sectors_write.sum") / n,
            v(r, "lts__t_requests_srcunit_tex.sum") / n,
            v(r, "lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed"),
            v(r, "lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed"),
            v(r, "lts__d_sectors_fill_device.avg.pct_of_peak_sustained_elapsed"),
            v(r, "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"),
            v(r, "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio")))


if __name__ == "__main__":
    main()
