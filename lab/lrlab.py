"""lrlab: the Python helpers that several lab/ campaigns share, one module so that a
campaign's scripts import it by putting lab/ on sys.path:

    sys.path.insert(0, os.path.join(ROOT, "lab"))
    from lrlab import load_profile, num

num and load_profile read what lab/corpus-tools/device_run.sh profile writes (an
Nsight Compute CSV and corpus_measure's order.txt); lab/corpus-tools/collect.py,
lab/2026-11-27-lrc/reduce.py and lab/2026-11-23-storemerge/requests.py use them.
They were collect.py's until issue 42 (item 4) gave the campaigns their own folders.
"""
import csv
import os
import sys


def num(s):
    return float(s.replace(",", "")) if s not in ("", "n/a") else None


def load_profile(d):
    order = [line.split() for line in open(os.path.join(d, "order.txt"))]
    rows = list(csv.reader(open(os.path.join(d, "ncu.csv"))))
    h = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    hdr, data = rows[h], rows[h + 2:]  # h + 1 holds the units
    ok = [(f, int(i)) for f, i, status in order if status == "ok"]
    if len(ok) != len(data):
        sys.exit(f"{d}: {len(ok)} successful runs but {len(data)} profiled kernels")
    out = {}
    for (fam, i), r in zip(ok, data):
        out[(fam, i)] = {hdr[j]: r[j] for j in range(len(hdr))}
    return out
