#!/usr/bin/env python3
"""Keeps the L2 sub-unit figures of lab/2026-11-23-stalls/README.md from breakdown.sh's outputs.
usage: reduce_breakdown.py DIR > h100_breakdown.csv   (DIR holds FAMILY.csv files)
Rows of a family's file are its configurations in the order of its corpus file (the
order corpus_measure launches them); the launch's block size is checked against it."""
import csv, glob, io, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
PCT = ".avg.pct_of_peak_sustained_elapsed"
KEEP = [
    ("time_us", "gpu__time_duration.sum", 1e-3),
    ("fabric_pct", "lts__ltcfabric2ltc_cycles_active" + PCT, 1),
    ("xbar2lts_pct", "lts__xbar2lts_cycles_active" + PCT, 1),
    ("lts2xbar_pct", "lts__lts2xbar_cycles_active_realtime" + PCT, 1),
    ("tag_pct", "lts__t_tag_requests" + PCT, 1),
    ("t_sectors_pct", "lts__t_sectors" + PCT, 1),
    ("d_sectors_pct", "lts__d_sectors" + PCT, 1),
    ("fill_pct", "lts__d_sectors_fill_device" + PCT, 1),
    ("dram_pct", "dram__cycles_active" + PCT, 1),
    ("l1_wavefronts_pct", "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_active", 1),
    ("l1_lsuin_pct", "l1tex__lsuin_requests.avg.pct_of_peak_sustained_active", 1),
]

out = csv.writer(sys.stdout, lineterminator="\n")
out.writerow(["family", "block", "folding"] + [k for k, _, _ in KEEP])
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv"))):
    fam = os.path.basename(path)[:-4]
    spec = os.path.join(HERE, "..", "..", "tests", "accuracy", "corpus", "families", fam + ".json")
    if not os.path.exists(spec):
        continue
    configs = json.load(open(spec))["configs"]
    lines = [l for l in open(path) if l.startswith('"')]  # ncu's own notes are not quoted
    rows = list(csv.reader(io.StringIO("".join(lines))))
    head, data = rows[0], rows[2:]  # rows[1] holds the units
    if len(data) != len(configs):
        sys.exit("%s: %d launches for %d configurations" % (path, len(data), len(configs)))
    for c, row in zip(configs, data):
        get = lambda m: float(row[head.index(m)].replace(",", ""))
        dims = [int(get("launch__block_dim_" + a)) for a in "xyz"]
        if dims != c[:3]:
            sys.exit("%s: launch block %s where the corpus says %s" % (path, dims, c[:3]))
        out.writerow([fam, "x".join(map(str, c[:3])), "x".join(map(str, c[3:]))] +
                     ["%.4g" % (get(m) * s) for _, m, s in KEEP])
