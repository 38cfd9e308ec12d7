#!/usr/bin/env python3
"""lab/2026-11-27-knee/reduce.py KNEE.csv GPU.txt DATE > lab/2026-11-27-knee/GPU.jsonl: the probe's two
passes (device_run.sh) in the corpus format, family names as make_families.py writes
them; then a table per kernel on stderr (GLup/s by folding and blocks per SM)."""
import collections
import csv
import json
import sys

path, gpu_txt, date = sys.argv[1:4]
gpu, driver = [v.strip() for v in open(gpu_txt).read().split(",")[:2]]
runs = collections.defaultdict(list)
for r in csv.DictReader(l for l in open(path) if not l.startswith("#")):
    b, smem = int(r["blocks_per_sm"]), int(r["smem_bytes"])
    fam = "knee_%s_b%d%s" % (r["kernel"], b, "s" if b == 8 and smem else "")
    runs[(fam, int(r["fold"]))].append((float(r["glups"]), float(r["ms"])))
for (fam, fold), v in sorted(runs.items()):
    stencil = "star" in fam
    print(json.dumps({"family": fam, "block": [256, 1, 1],
                      "folding": [1, fold, 1] if stencil else [fold, 1, 1],
                      "gpu": gpu, "driver": driver, "date": date, "ms": v[0][1],
                      "glups": v[0][0], "glups_repeat": v[-1][0]}))
kernels = sorted({f.split("_b")[0] for f, _ in runs})
for k in kernels:
    print(k, file=sys.stderr)
    for fold in (1, 2, 4):
        cells = []
        for lv in ["b%d" % b for b in range(1, 9)] + ["b8s"]:
            v = runs.get(("%s_%s" % (k, lv), fold))
            if v:
                cells.append("%s %.1f" % (lv[1:], v[0][0]))
        print("  fold %d: %s" % (fold, "  ".join(cells)), file=sys.stderr)
