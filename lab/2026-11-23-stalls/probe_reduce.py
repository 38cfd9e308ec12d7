#!/usr/bin/env python3
"""Reduces what probe.sh wrote (OUTDIR/raw.csv, OUTDIR/order.txt) to one CSV line per
configuration (README.md, "Deep blocks and the partition fabric"):

  probe_reduce.py depth OUTDIR > lab/2026-11-23-stalls/h100_depth_probe.csv
      the time, the L2 partition fabric's busy share and its busy time per lattice
      update, DRAM busy share and sectors per update, L2 requests from L1 per update,
      the crossbar and tag shares, DRAM fills, and two warp stall ratios;
  probe_reduce.py fabric OUTDIR > lab/2026-11-23-stalls/h100_fabric_probe.csv
      what the L2 receives through the partition fabric (sectors read and written,
      requests of every kind, per lattice update) and how busy and stalled its ports are.
"""
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = {"copy_probe": "copy_strided_f64", "cube_probe": "star3d_r1_f64 256^3",
           "flat_probe": "star3d_r2_f64 1280x1280x20"}
FABRIC_PER_UPDATE = ["lts__t_sectors_srcunit_ltcfabric_op_read.sum",
                     "lts__t_sectors_srcunit_ltcfabric_op_write.sum",
                     "lts__t_requests_srcunit_ltcfabric_op_read.sum",
                     "lts__t_requests_srcunit_ltcfabric_op_write.sum",
                     "lts__t_requests_srcunit_ltcfabric.sum"]
FABRIC_SHARES = ["lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed",
                 "lts__ltcfabric2lts_cycles_stalled.avg.pct_of_peak_sustained_elapsed"]
HEADERS = {
    "depth": "time_us,fabric_pct,fabric_ps_per_update,dram_pct,"
             "dram_read_sectors_per_update,dram_write_sectors_per_update,"
             "l2_tex_requests_per_update,xbar2lts_pct,tag_pct,fill_pct,"
             "long_scoreboard_stall_per_issue,lg_throttle_stall_per_issue",
    "fabric": "time_us,fabric_read_sectors,fabric_write_sectors,"
              "fabric_read_requests,fabric_write_requests,fabric_requests_all,"
              "fabric_active_pct,fabric_stalled_pct",
}


def depth_figures(v, n):
    t = v("gpu__time_duration.sum") / 1e3
    fab = v("lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed")
    return "%.1f,%.1f,%.2f,%.1f,%.3f,%.3f,%.3f,%.1f,%.1f,%.1f,%.1f,%.2f" % (
        t, fab, fab / 100 * t * 1e6 / n,
        v("dram__cycles_active.avg.pct_of_peak_sustained_elapsed"),
        v("dram__sectors_read.sum") / n, v("dram__sectors_write.sum") / n,
        v("lts__t_requests_srcunit_tex.sum") / n,
        v("lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed"),
        v("lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed"),
        v("lts__d_sectors_fill_device.avg.pct_of_peak_sustained_elapsed"),
        v("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"),
        v("smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio"))


def fabric_figures(v, n):
    return ("%.1f," % (v("gpu__time_duration.sum") / 1e3)
            + ",".join("%.4f" % (v(m) / n) for m in FABRIC_PER_UPDATE) + ","
            + ",".join("%.1f" % v(m) for m in FABRIC_SHARES))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in HEADERS:
        sys.exit(__doc__)
    mode, out = sys.argv[1], sys.argv[2]
    figures = depth_figures if mode == "depth" else fabric_figures
    rows = list(csv.reader(open(os.path.join(out, "raw.csv"))))
    h = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    hdr, data = rows[h], rows[h + 2:]  # h + 1 holds the units
    ix = {n: i for i, n in enumerate(hdr)}
    order = [line.split() for line in open(os.path.join(out, "order.txt"))]
    fams = {}
    for name in KERNELS:
        with open(os.path.join(HERE, "depth_probe", name.split("_")[0] + ".json")) as f:
            fams[name] = json.load(f)
    print("kernel,block,folding," + HEADERS[mode])
    for (fam, i, status), r in zip([o for o in order if o[2] == "ok"], data):
        family = fams[fam]
        n = 1
        for d in family["domain"]:
            n *= d
        print("%s,%dx%dx%d,%dx%dx%d," % (KERNELS[fam], *family["configs"][int(i)])
              + figures(lambda m: float(r[ix[m]].replace(",", "")), n))


if __name__ == "__main__":
    main()
