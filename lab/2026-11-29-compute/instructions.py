#!/usr/bin/env python3
"""Writes instructions.json: each family's instruction mix per lattice update, as
Nsight Compute counted it on the H200 at folding 1 (tests/accuracy/corpus/
h200_compute.jsonl), in the classes of a request's kernel.instructions (docs/api.md):
fp32 and fp64 are the executed thread-level FFMA + FADD + FMUL and DFMA + DADD + DMUL,
special the XU pipe's warp instructions times 32 (MUFU), integer the ALU pipe's times 32,
other the rest of every issued warp instruction times 32. Median over the family's
blocks, one decimal. gen.py --families writes them into the family files.

    lab/2026-11-29-compute/instructions.py
    lab/2026-11-29-compute/instructions.py --heldout   # the held-out families (run 4):
        # h200_compute_heldout.jsonl -> instructions_heldout.json, for gen.py --heldout
        # --families; a family without folding 1 (d3q19_trt_fold2_f32: only 1x1x2) takes
        # its smallest folding, the counts being per lattice update
"""
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def mix(counters):
    inst, fp = counters["inst"], counters["thread_fp"]
    m = {"fp32": fp["ffma"] + fp["fadd"] + fp["fmul"],
         "fp64": fp["dfma"] + fp["dadd"] + fp["dmul"],
         "special": inst["xu"] * 32, "integer": inst["alu"] * 32}
    m["other"] = max(0.0, inst["all"] * 32 - sum(m.values()))
    return m


def main():
    tag = "_heldout" if "--heldout" in sys.argv[1:] else ""
    rows = [json.loads(line) for line in
            open(os.path.join(ROOT, "tests", "accuracy", "corpus", f"h200_compute{tag}.jsonl"))]
    least = {}
    for r in rows:
        f = r["folding"][0] * r["folding"][1] * r["folding"][2]
        least[r["family"]] = min(least.get(r["family"], f), f)
    fams = {}
    for r in rows:
        f = r["folding"][0] * r["folding"][1] * r["folding"][2]
        if r["folding"] == [1, 1, 1] or (tag and f == least[r["family"]]):
            fams.setdefault(r["family"], []).append(mix(r["counters"]))
    out = {f: {k: round(statistics.median(m[k] for m in ms), 1) for k in ms[0]}
           for f, ms in sorted(fams.items())}
    with open(os.path.join(HERE, f"instructions{tag}.json"), "w") as fh:
        json.dump(out, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
