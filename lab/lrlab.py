"""lrlab: the Python helpers that several lab/ campaigns share, one module so that a
campaign's scripts import it by putting lab/ on sys.path:

    sys.path.insert(0, os.path.join(ROOT, "lab"))
    from lrlab import load_profile, num

num and load_profile read what lab/corpus-tools/device_run.sh profile writes (an
Nsight Compute CSV and corpus_measure's order.txt); lab/corpus-tools/collect.py,
lab/2026-11-27-lrc/reduce.py and lab/2026-11-23-storemerge/requests.py use them.
sections splits what lab/2026-11-29-compute's device_run.sh prof joins (lab/2026-11-29-
lbmconc and lab/2026-11-29-idlewarps collect.py).
They were collect.py's until issue 42 (item 4) gave the campaigns their own folders.
"""
import csv
import gzip
import io
import os
import sys


def num(s):
    return float(s.replace(",", "")) if s not in ("", "n/a") else None


def sections(text):
    """{tag: lines} of a file that lab/2026-11-29-compute's device_run.sh joined from one
    file per family, each after a line "### tag" (its ncu.csv and order.csv)"""
    out, cur = {}, None
    for line in text.splitlines():
        if line.startswith("### "):
            cur = out.setdefault(line[4:], [])
        elif cur is not None:
            cur.append(line)
    return out


def compute_profile(raw):
    """{family: [(ncu row, order row)]} of lab/2026-11-29-compute's device_run.sh prof in the
    folder raw (ncu.csv.gz, order.csv): each family's profiled launches paired in order
    with the configurations that launched; a family whose counts differ is left out."""
    ncu = sections(gzip.open(os.path.join(raw, "ncu.csv.gz"), "rt").read())
    order = sections(open(os.path.join(raw, "order.csv")).read())
    out = {}
    for fam, lines in ncu.items():
        rows = list(csv.DictReader(io.StringIO("\n".join(x for x in lines if x.startswith('"')))))
        rows = [r for r in rows if r["ID"].isdigit()]
        ords = [o for o in csv.DictReader(io.StringIO("\n".join(order[fam])))
                if o.get("status", "ok") == "ok"]
        if len(rows) != len(ords):
            print("skipped %s: %d profiled, %d launched" % (fam, len(rows), len(ords)), file=sys.stderr)
            continue
        out[fam] = list(zip(rows, ords))
    return out


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
