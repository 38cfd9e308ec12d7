#!/usr/bin/env python3
"""Writes instructions.json: each family's instruction mix per lattice update, as
Nsight Compute counted it on the H200 at folding 1 (tests/accuracy/corpus/
h200_compute.jsonl), in the classes of a request's kernel.instructions (docs/api.md):
fp32 and fp64 are the executed thread-level FFMA + FADD + FMUL and DFMA + DADD + DMUL,
special the XU pipe's warp instructions times 32 (MUFU), integer the ALU pipe's times 32,
other the rest of every issued warp instruction times 32. Median over the family's
blocks, one decimal. gen.py --families writes them into the family files.

    lab/2026-11-29-compute/instructions.py
"""
import json
import os
import statistics

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
    rows = [json.loads(line) for line in
            open(os.path.join(ROOT, "tests", "accuracy", "corpus", "h200_compute.jsonl"))]
    fams = {}
    for r in rows:
        if r["folding"] == [1, 1, 1]:
            fams.setdefault(r["family"], []).append(mix(r["counters"]))
    out = {f: {k: round(statistics.median(m[k] for m in ms), 1) for k in ms[0]}
           for f, ms in sorted(fams.items())}
    with open(os.path.join(HERE, "instructions.json"), "w") as fh:
        json.dump(out, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
