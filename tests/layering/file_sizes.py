"""file_sizes: no production .c file above 700 lines (issue 42, docs/architecture.md:
small modules, one job each). Tests, benchmarks and the lab do not count.

Usage: file_sizes.py SOURCE_ROOT
"""
import os
import sys

ROOT = sys.argv[1]
DIRS = ["calibrate", "clients", "common", "cudagen", "estimator", "mesh", "protocol",
        "server", "store", "tools"]
LIMIT = 700

over = []
for d in DIRS:
    for base, _, files in os.walk(os.path.join(ROOT, d)):
        for f in files:
            if f.endswith(".c"):
                path = os.path.join(base, f)
                n = sum(1 for _ in open(path, encoding="utf-8"))
                if n > LIMIT:
                    over.append((n, os.path.relpath(path, ROOT)))
for n, path in sorted(over, reverse=True):
    print(f"FAIL {path}: {n} lines, more than {LIMIT}: split it by job")
print(f"{len(over)} production .c files above {LIMIT} lines")
sys.exit(1 if over else 0)
