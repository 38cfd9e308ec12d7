#!/usr/bin/env python3
"""lab/2026-11-23-align/ratio.py [--device-file FILE] [--write-jsonl]: what the model says
misaligned stores cost, against what lab/2026-11-23-align measured (H100, h100.csv).

For every configuration at least 16 wide that was timed in both layouts, the measured
ratio aligned / corpus layout (`ctrl`) is set beside the model's ratio of its two
predictions; printed per family and per block width x folding direction, with the rms
of log(predicted ratio / measured ratio). The model sees each layout through its
family file (lab/2026-11-23-align/families: the offsets of the stored points); the register
counts come from the corpus measurement of the same kernel and configuration
(tests/accuracy/corpus/h100.jsonl), as the layout does not change the code.

--write-jsonl writes lab/2026-11-23-align/h100.jsonl (the timings of h100.csv in the corpus
format, counters: registers only), which `tests/accuracy/accuracy --corpus
lab/2026-11-23-align/families --measured lab/2026-11-23-align/h100.jsonl` reads."""
import collections
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))


def to_jsonl():
    """the rows of h100.csv as corpus lines (one per family@layout and configuration)"""
    corpus = {}
    for line in open(os.path.join(root, "tests/accuracy/corpus/h100.jsonl")):
        r = json.loads(line)
        corpus[(r["family"], tuple(r["block"]), tuple(r["folding"]))] = r
    lines = []
    with open(os.path.join(here, "h100.csv")) as f:
        head = f.readline()  # "# GPU, driver D, date: ..."
        gpu = head[2:].split(",")[0]
        driver = head.split("driver ")[1].split(",")[0]
        date = head.split(", ")[2].split(":")[0]
        for row in csv.DictReader(f):
            block = tuple(int(v) for v in row["block"].split("x"))
            fold = tuple(int(v) for v in row["folding"].split("x"))
            base = corpus.get((row["family"], block, fold))
            for layout in ("ctrl", "rows", "aligned"):
                if not row[layout] or not base:
                    continue
                lines.append({"family": row["family"] + "@" + layout, "block": list(block),
                              "folding": list(fold), "gpu": gpu, "driver": driver,
                              "date": date, "glups": float(row[layout]),
                              "glups_repeat": float(row[layout + "_repeat"]),
                              "counters": {"registers": base["counters"]["registers"]}})
    return lines


def main():
    args = sys.argv[1:]
    lines = to_jsonl()
    if "--write-jsonl" in args:
        with open(os.path.join(here, "h100.jsonl"), "w") as f:
            for d in lines:
                f.write(json.dumps(d) + "\n")
        print("wrote lab/2026-11-23-align/h100.jsonl: %d lines" % len(lines), file=sys.stderr)
        return
    with tempfile.TemporaryDirectory() as tmp:
        meas, dump = os.path.join(tmp, "m.jsonl"), os.path.join(tmp, "d.jsonl")
        with open(meas, "w") as f:
            for d in lines:
                f.write(json.dumps(d) + "\n")
        cmd = [os.path.join(root, "build-release/tests/accuracy/accuracy"), "--corpus",
               os.path.join(here, "families"), "--measured", meas, "--dump", dump]
        if "--device-file" in args:
            cmd += ["--device-file", args[args.index("--device-file") + 1]]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        pred = {}
        for line in open(dump):
            r = json.loads(line)
            fam, layout = r["family"].split("@")
            pred[(fam, layout, tuple(r["block"]), tuple(r["folding"]))] = r
    groups = collections.defaultdict(list)
    print("family           block    folding  aligned/ctrl: measured predicted  pred/meas")
    for (fam, layout, block, fold), c in sorted(pred.items()):
        a = pred.get((fam, "aligned", block, fold))
        if layout != "ctrl" or not a or block[0] < 16:
            continue
        m, p = a["measured"] / c["measured"], a["predicted"] / c["predicted"]
        print("%-16s %-8s %-8s %20.3f %9.3f %10.3f" % (fam, "x".join(map(str, block)),
              "x".join(map(str, fold)), m, p, p / m))
        width = "16" if block[0] == 16 else "32" if block[0] == 32 else "64+"
        where = "x" if fold[0] > 1 else "y" if fold[1] > 1 else "z" if fold[2] > 1 else "-"
        groups[(fam, width, where)].append(math.log(p / m))
        groups[("all", width, where)].append(math.log(p / m))
    print("\nmean pred/meas of the ratio by block width and folding direction (- unfolded):")
    for key in sorted(groups):
        v = groups[key]
        print("  %-16s bx %-3s fold %s  %6.3f  (%d)" % (key + (math.exp(sum(v) / len(v)),
                                                          len(v))))
    print("rms of log(predicted ratio / measured ratio) per family:")
    for fam in sorted({k[0] for k in groups if k[0] != "all"}):
        v = [x for k, vs in groups.items() if k[0] == fam for x in vs]
        print("  %-16s %.3f  (%d)" % (fam, math.sqrt(sum(x * x for x in v) / len(v)), len(v)))
    allv = [x for k, v in groups.items() if k[0] != "all" for x in v]
    print("rms of log(predicted ratio / measured ratio): %.4f over %d configurations" %
          (math.sqrt(sum(x * x for x in allv) / len(allv)), len(allv)))


main()
