#!/usr/bin/env python3
"""Fits docs/model.md "Blocks with idle warps" to the resident blocks Nsight Compute counted
(h200.jsonl's resident.ctas_active, collect.py).

  fit.py --input DUMP   writes fit_input.csv from an `accuracy --dump` of this set under
                        model 2026.11-34 (whole blocks everywhere: its prediction is the
                        one the rule reads a block's life from; `git worktree add` 1a8b955)
  fit.py                fits ADMIT_NS_PER_WARP and ADMIT_EXPONENT on fit_input.csv by the
                        rms of log(resident / ctas_active) over every configuration with a
                        reading, and prints the figures the model and the docs quote

The bound (est_blocks_with_idle_warps) is recomputed here as launch.c computes it."""
import csv
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REGS_SM, THREADS_SM, BLOCKS_SM, SMS = 65536, 2048, 32, 132


def block_regs(regs, threads):
    return (threads + 31) // 32 * ((32 * max(regs, 32) + 255) // 256 * 256)


def bound(block, folding, domain, regs, whole):
    """est_blocks_with_idle_warps for x-only blocks (this set's): every block cut alike"""
    side = -(-domain[0] // folding[0])
    if side >= block[0]:
        return whole
    working = -(-side // 32)
    n = min(BLOCKS_SM, (REGS_SM - block_regs(regs, block[0])) / block_regs(regs, working * 32),
            (THREADS_SM - block[0]) / (working * 32.0))
    return max(n, whole)


def write_input(dump):
    ctas = {}
    for line in open(os.path.join(HERE, "h200.jsonl")):
        j = json.loads(line)
        if "resident" in j:
            ctas[(j["family"], tuple(j["block"]), tuple(j["folding"]))] = (
                j["resident"]["ctas_active"], j["counters"]["registers"])
    fams = {f[:-5]: json.load(open(os.path.join(HERE, "families", f)))
            for f in os.listdir(os.path.join(HERE, "families"))}
    with open(os.path.join(HERE, "fit_input.csv"), "w") as fo:
        w = csv.writer(fo)
        w.writerow(["family", "block", "fz", "whole", "bound", "warps", "life_ns", "ctas_active"])
        for line in open(dump):
            r = json.loads(line)
            k = (r["family"], tuple(r["block"]), tuple(r["folding"]))
            if k not in ctas:
                continue
            c, regs = ctas[k]
            whole = r["blocks_per_sm"]
            life = whole * r["updates_per_block"] * SMS / r["predicted"]
            w.writerow([r["family"], r["block"][0], r["folding"][2], whole,
                        "%.6g" % bound(r["block"], r["folding"], fams[r["family"]]["domain"], regs, whole),
                        (r["block"][0] + 31) // 32, "%.6g" % life, c])


def resident(q, ns, p):
    s = max(0.0, 1 - (ns * q["warps"] / q["life_ns"]) ** p)
    return q["whole"] + s * (q["bound"] - q["whole"])


def rms(rows, f):
    return math.sqrt(sum(math.log(f(q) / q["ctas_active"]) ** 2 for q in rows) / len(rows))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--input":
        write_input(sys.argv[2])
        return
    rows = [{k: (v if k == "family" else float(v)) for k, v in q.items()}
            for q in csv.DictReader(open(os.path.join(HERE, "fit_input.csv")))]
    grid = [(rms(rows, lambda q: resident(q, ns, p)), ns, p)
            for ns in [3.0 * i for i in range(1, 41)] for p in [0.25 * i for i in range(1, 41)]]
    best = min(grid)
    print("%d configurations with a reading" % len(rows))
    print("fit: ADMIT_NS_PER_WARP %g ns, ADMIT_EXPONENT %g: log rms %.3f" % (best[1], best[2], best[0]))
    print("whole blocks always: %.3f; the bound always: %.3f" % (
        rms(rows, lambda q: q["whole"]), rms(rows, lambda q: q["bound"])))
    for ns, p in ((best[1] - 6, best[2]), (best[1] + 6, best[2]), (best[1], best[2] - 0.5), (best[1], best[2] + 0.5)):
        print("  at %g ns, %g: %.3f" % (ns, p, rms(rows, lambda q: resident(q, ns, p))))


if __name__ == "__main__":
    main()
