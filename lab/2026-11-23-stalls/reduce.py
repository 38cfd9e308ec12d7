#!/usr/bin/env python3
"""Keeps the figures of lab/2026-11-23-stalls/README.md from run.sh's outputs.
usage: reduce.py DIR... > h100.csv   (each DIR holds ncu.csv and order.txt)"""
import csv, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
KEEP = [
    ("time_us", "gpu__time_duration.sum", 1e-3),
    ("lts_pct", "lts__throughput.avg.pct_of_peak_sustained_elapsed", 1),
    ("lts_tag_pct", "lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed", 1),
    ("lts_t_sectors_pct", "lts__t_sectors.avg.pct_of_peak_sustained_elapsed", 1),
    ("lts_d_sectors_pct", "lts__d_sectors.avg.pct_of_peak_sustained_elapsed", 1),
    ("xbar2lts_pct", "lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed", 1),
    ("lts2xbar_pct", "lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed", 1),
    ("lts_hit_pct", "lts__t_sector_hit_rate.pct", 1),
    ("dram_active_pct", "dram__cycles_active.avg.pct_of_peak_sustained_elapsed", 1),
    ("dram_gbs", "dram__bytes.sum.per_second", 1e-9),
    ("dram_read_sectors", "dram__sectors_read.sum", 1),
    ("dram_write_sectors", "dram__sectors_write.sum", 1),
    ("l2_write_sectors", "lts__t_sectors_op_write.sum", 1),
    ("l2_write_requests", "lts__t_requests_op_write.sum", 1),
    ("l1_pct", "l1tex__throughput.avg.pct_of_peak_sustained_active", 1),
    ("warps_active_pct", "sm__warps_active.avg.pct_of_peak_sustained_active", 1),
]
STALLS = ["long_scoreboard", "lg_throttle", "mio_throttle", "drain", "short_scoreboard",
          "wait", "not_selected", "no_instruction", "barrier", "math_pipe_throttle"]
KEEP += [("stall_" + s, "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio" % s, 1)
         for s in STALLS]

out = csv.writer(sys.stdout, lineterminator="\n")
out.writerow(["family", "block", "folding"] + [k for k, _, _ in KEEP])
for d in sys.argv[1:]:
    rows = list(csv.reader(open(os.path.join(d, "ncu.csv"))))
    hi = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    head, data = rows[hi], rows[hi + 2:]
    order = [l.split() for l in open(os.path.join(d, "order.txt"))]
    configs = {}
    for (fam, idx, _), row in zip(order, data):
        if fam not in configs:
            path = os.path.join(HERE, "..", "..", "tests", "accuracy", "corpus", "families", fam + ".json")
            configs[fam] = json.load(open(path))["configs"]
        c = configs[fam][int(idx)]
        vals = [float(row[head.index(m)].replace(",", "")) * s for _, m, s in KEEP]
        out.writerow([fam, "x".join(map(str, c[:3])), "x".join(map(str, c[3:]))] +
                     ["%.4g" % v for v in vals])
