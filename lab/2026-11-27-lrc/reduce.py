#!/usr/bin/env python3
"""Joins lab/2026-11-27-lrc/device_run.sh's profiles into one CSV line per configuration, in
sectors (or requests) per lattice update (lab/2026-11-27-lrc/README.md).

  reduce.py OUTDIR DATE > h100_lrc.csv

OUTDIR holds device_run.sh's numbered group folders (ncu.csv, order.txt, gpu.txt,
group.txt each).

l1_miss     sectors L1 misses on (l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss)
lrc_in      read requests reaching the L2 request coalescer (lrc__xbar2lrc_requests_op_read)
lrc_out     read sectors the LRC sends on to L2 (lrc__lrc2xbar_sectors_op_read)
lrc_merged  of those, sectors coalesced in hardware (..._coalescing_achieved_type_hardware)
lts_read    read sectors L2 counts from L1 (lts__t_sectors_srcunit_tex_op_read, the
            corpus' l2_load / 32)
lts_req     read requests L2 counts (lts__t_requests_srcunit_tex_op_read)
to_gpc      read sectors the LRC returns to the GPCs (lrc__xbar2gpc_sectors_op_read)
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "lab"))
from lrlab import load_profile, num  # noqa: E402

COLUMNS = [("l1_miss", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum"),
           ("lrc_in", "lrc__xbar2lrc_requests_op_read.sum"),
           ("lrc_out", "lrc__lrc2xbar_sectors_op_read.sum"),
           ("lrc_merged", "lrc__lrc2xbar_sectors_op_read_coalescing_achieved_type_hardware.sum"),
           ("lts_read", "lts__t_sectors_srcunit_tex_op_read.sum"),
           ("lts_req", "lts__t_requests_srcunit_tex_op_read.sum"),
           ("to_gpc", "lrc__xbar2gpc_sectors_op_read.sum")]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out, date = sys.argv[1:]
    print("family,block,folding," + ",".join(c for c, _ in COLUMNS) + ",gpu,driver,date")
    for group in sorted(os.listdir(out), key=lambda s: (len(s), s)):
        d = os.path.join(out, group)
        if not os.path.isdir(d):
            continue
        folder = open(os.path.join(d, "group.txt")).read().split()[0]
        gpu, driver = open(os.path.join(d, "gpu.txt")).read().splitlines()[1].split(", ")[:2]
        prof = load_profile(d)
        fams = {}
        for (fam, i), p in sorted(prof.items()):
            if fam not in fams:
                fams[fam] = json.load(open(os.path.join(ROOT, folder, fam + ".json")))
            f = fams[fam]
            cfg = f["configs"][i]
            lups = f["domain"][0] * f["domain"][1] * f["domain"][2]
            vals = ["%.4f" % (num(p[m]) / lups) for _, m in COLUMNS]
            print("%s,%dx%dx%d,%dx%dx%d,%s,%s,%s,%s" % (fam, *cfg, ",".join(vals), gpu, driver, date))


if __name__ == "__main__":
    main()
