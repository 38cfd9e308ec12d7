#!/usr/bin/env python3
"""The order of a kernel's global loads and floating-point instructions in its SASS:
how many loads the compiler issues before the first arithmetic consumes one, which
bounds the loads a thread keeps in flight (lab/2026-11-27-mlp/README.md).

  runs.py FILE.sass [...]   (cuobjdump -sass of a cubin)
"""
import re
import sys

FP = ("FFMA", "FADD", "FMUL", "DFMA", "DADD", "DMUL")

for path in sys.argv[1:]:
    seq = ""
    for line in open(path):
        m = re.search(r"/\*[0-9a-f]{4}\*/\s+(@!?P\d\s+)?([A-Z0-9_.]+)", line)
        if m:
            op = m.group(2)
            seq += "L" if op.startswith("LDG") else "F" if op.startswith(FP) else ""
    runs = [len(r) for r in re.findall(r"L+", seq)]
    print("%s: %d loads, %d fp; loads before the first fp: %d; then %d more, one per fp"
          % (path, seq.count("L"), seq.count("F"), runs[0] if runs else 0,
             sum(runs[1:])))
