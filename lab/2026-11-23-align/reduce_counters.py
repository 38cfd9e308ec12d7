#!/usr/bin/env python3
"""lab/2026-11-23-align/reduce_counters.py DIR > lab/2026-11-23-align/h100_counters.csv: the Nsight Compute
runs of profile.sh (DIR/FAMILY_VARIANT.csv with its .order, DIR/gpu.txt) as one row per
family, layout and configuration, per lattice update where the unit says so:
DRAM bytes read and written, L2 bytes written by L1 and its write requests, L2 fill
sectors from DRAM, and the busy shares (%) of DRAM, of the L2 (lts__throughput) and of
its crossbar input (xbar2lts). GLup/s here is of the profiled launch (ncu, no
clock control), not a timing."""
import csv
import glob
import json
import os
import sys

d = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
gpu = open(os.path.join(d, "gpu.txt")).read().splitlines()[1].split(",")
print("# %s, driver %s, 2026-11-23: lab/2026-11-23-align/profile.sh (README.md, \"What the counters say\")"
      % (gpu[0].strip(), gpu[1].strip()))
print("family,layout,block,folding,glups_profiled,dram_read_B,dram_write_B,l2_write_B,"
      "l2_write_requests,l2_fill_sectors,dram_busy_pct,l2_busy_pct,xbar2lts_busy_pct")
for path in sorted(glob.glob(os.path.join(d, "*.csv"))):
    tag = os.path.basename(path)[:-4]
    fam, layout = tag.rsplit("_", 1)
    spec = json.load(open(os.path.join(here, "families", "%s@%s.json" % (fam, layout))))
    n = spec["domain"][0] * spec["domain"][1] * spec["domain"][2]
    rows = list(csv.reader(open(path)))
    head = [k for k, r in enumerate(rows) if r and r[0] == "ID"][0]
    order = [int(l.split()[1]) for l in open(path[:-4] + ".order")]
    data = [dict(zip(rows[head], r)) for r in rows[head + 1:] if r and r[0].isdigit()]
    for k, m in zip(order, data):
        g = lambda name: float(m[name].replace(",", ""))
        c = spec["configs"][k]
        print("%s,%s,%s,%s,%.1f,%.3f,%.3f,%.3f,%.4f,%.4f,%.0f,%.0f,%.0f" % (
            fam, layout, "x".join(map(str, c[:3])), "x".join(map(str, c[3:])),
            n / (g("gpu__time_duration.sum") * 1e-9) / 1e9,
            g("dram__sectors_read.sum") * 32 / n, g("dram__sectors_write.sum") * 32 / n,
            g("lts__t_sectors_srcunit_tex_op_write.sum") * 32 / n,
            g("lts__t_requests_srcunit_tex_op_write.sum") / n,
            g("lts__d_sectors_fill_device.sum") / n,
            g("dram__throughput.avg.pct_of_peak_sustained_elapsed"),
            g("lts__throughput.avg.pct_of_peak_sustained_elapsed"),
            g("lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed")))
