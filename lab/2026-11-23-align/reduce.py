#!/usr/bin/env python3
"""lab/2026-11-23-align/reduce.py TIME1.jsonl TIME2.jsonl GPU.txt > lab/2026-11-23-align/h100.csv: one row per
family and configuration with the GLup/s of both passes (corpus_measure time: median of
10 runs, L2 flushed) for the corpus layout (ctrl), rows aligned (rows) and interior
aligned (aligned); then prints a summary per family to stderr. GPU.txt is the
nvidia-smi line run.sh writes (the driver version is taken from it)."""
import collections
import json
import sys

runs = collections.defaultdict(dict)  # (family, variant) -> {config: [glups...]}
meta = None
for path in sys.argv[1:3]:
    for line in open(path):
        d = json.loads(line)
        fam, var = d["family"].split("@")
        cfg = ("x".join(map(str, d["block"])), "x".join(map(str, d["folding"])))
        runs[(fam, var)].setdefault(cfg, []).append(d["glups"])
        meta = meta or [d["gpu"], "", d["date"]]
meta[1] = open(sys.argv[3]).read().splitlines()[1].split(",")[1].strip()

fams = sorted({f for f, _ in runs})
print("# %s, driver %s, %s: GLup/s of two passes (lab/2026-11-23-align/README.md)" % tuple(meta))
print("family,block,folding,ctrl,ctrl_repeat,rows,rows_repeat,aligned,aligned_repeat")
for fam in fams:
    ctrl = runs[(fam, "ctrl")]
    for cfg in sorted(ctrl, key=lambda c: -max(ctrl[c])):
        cells = []
        for var in ("ctrl", "rows", "aligned"):
            v = runs.get((fam, var), {}).get(cfg, [])
            cells += ["%.2f" % x for x in v] + [""] * (2 - len(v))
        print(",".join([fam, cfg[0], cfg[1]] + cells))

for fam in fams:
    c, a = runs[(fam, "ctrl")], runs[(fam, "aligned")]
    med = lambda v: sorted(v)[len(v) // 2]
    ratio = sorted(max(a[k]) / max(c[k]) for k in c)
    print("%-16s best %6.2f -> %6.2f GLup/s (%+.1f %%); aligned/ctrl per configuration: "
          "min %.2f median %.2f max %.2f" % (fam, max(map(max, c.values())),
          max(map(max, a.values())), 100 * (max(map(max, a.values())) /
          max(map(max, c.values())) - 1), ratio[0], med(ratio), ratio[-1]), file=sys.stderr)
