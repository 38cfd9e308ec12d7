#!/usr/bin/env python3
"""How reproducible the corpus' timings are, and how the model does against a repeat.

A repeat is the corpus timed again on another day (another lease of the `device`
tool, so possibly another GPU of the same kind), with the same cudagen code and
corpus_measure as h100.jsonl: `lab/corpus-tools/device_run.sh time` twice. It holds
timings only (no profiler counters), so it checks rankings, not volumes.

  repeat.py make OUT.jsonl TIME.jsonl TIME2.jsonl GPU.txt
      joins two timing passes into one line per configuration: family, block,
      folding, gpu, driver, cuda, date, ms, glups (first pass), glups_repeat (second)
  repeat.py compare [--corpus F] [--repeat F] [--device NAME] [--accuracy BIN] [--check]
      per family: Spearman's rho between the corpus and the repeat, between the
      repeat's two passes, of the model (tests/accuracy/accuracy --dump, which predicts with the
      corpus' registers, with --device's parameters if given, else the family's device)
      against each; where the corpus' best lands in the repeat; the
      median ratio of the repeat's GLup/s to the corpus'; where the model's top 1 and
      the best fixed block land in each (% of that measurement's best). --check (a
      test) exits 1 unless the repeat covers every configuration of the corpus and, in
      every family, rho C-R >= CHECK_RHO, the corpus' best runs at >= CHECK_BEST % of
      the repeat's best, and the median ratio R/C lies within CHECK_RATIO of 1
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))

# What --check holds the committed repeat to: the 2026-11-27 repeat gives rho 0.977-0.999,
# the corpus' best at 100.0 % everywhere and median ratios 0.997-1.000, so these leave
# room for another repeat's noise while a changed kernel, clock or corpus fails them.
CHECK_RHO, CHECK_BEST, CHECK_RATIO = 0.95, 99.0, 0.02


def key(d):
    return (d["family"], tuple(d["block"]), tuple(d["folding"]))


def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    i = 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    den = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return num / den if den else 0.0


def make(out_path, t1, t2, gpu_txt):
    name, driver = open(gpu_txt).read().splitlines()[1].split(", ")[:2]
    second = {key(d): d for d in map(json.loads, open(t2))}
    with open(out_path, "w") as out:
        for d in map(json.loads, open(t1)):
            r = second[key(d)]
            row = {"family": d["family"], "block": d["block"], "folding": d["folding"],
                   "gpu": name, "driver": driver, "cuda": d["driver"] / 1000,
                   "date": d["date"], "ms": d["ms_median"], "glups": d["glups"],
                   "glups_repeat": r["glups"]}
            out.write(json.dumps(row) + "\n")


def fixed_blocks(table):
    """family -> the fixed block tests/accuracy/accuracy chose (its column "fixed block": the best
    single unfolded block for all families of the same dimensionality)."""
    out = {}
    for line in table.splitlines():
        cols = line.split("|")
        if len(cols) >= 4 and cols[0].split() and cols[0].split()[0].count("_"):
            block = cols[3].split()[1]
            out[cols[0].split()[0]] = tuple(int(x) for x in block.split("x"))
    return out


def compare(corpus, repeat, device, accuracy, check):
    C = {key(d): d["glups"] for d in map(json.loads, open(corpus))}
    R = {key(d): d for d in map(json.loads, open(repeat))}
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as dump:
        cmd = [accuracy, "--measured", corpus, "--dump", dump.name]
        cmd += ["--device", device] if device else []
        table = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        P = {key(d): d["predicted"] for d in map(json.loads, open(dump.name))}
    fixed_block = fixed_blocks(table)
    first = next(iter(R.values()))
    print(f"repeat: {first['gpu']}, driver {first['driver']}, {first['date']} ({repeat})")
    print(f"corpus: {corpus}; model: {accuracy} --dump" + (f" --device {device}" if device else ""))
    # families the repeat never timed (added to the corpus after it) are left out; a
    # family it has must have every configuration
    in_repeat = {k[0] for k in R}
    left_out = sorted({k[0] for k in C} - in_repeat)
    if left_out:
        print("not in the repeat, left out: " + ", ".join(left_out))
    head = ("family", "rho C-R", "rho R-R2", "rho P-C", "rho P-R", "C best@R", "R/C med",
            "top1@C", "top1@R", "fixed@C", "fixed@R")
    print("%-18s" % head[0] + "".join("%9s" % h for h in head[1:]))
    missing = {k for k in set(C) - set(R) if k[0] in in_repeat}
    failures = [f"{len(missing)} configurations of the corpus missing in the repeat"
                ] if missing else []
    for fam in sorted({k[0] for k in C} & in_repeat):
        ks = [k for k in C if k[0] == fam and k in R and k in P]
        c = [C[k] for k in ks]
        r = [R[k]["glups"] for k in ks]
        r2 = [R[k]["glups_repeat"] for k in ks]
        p = [P[k] for k in ks]
        best_c = max(ks, key=lambda k: C[k])
        best_r = max(ks, key=lambda k: R[k]["glups"])
        top1 = max(ks, key=lambda k: P[k])
        fixed = (fam, fixed_block.get(fam), (1, 1, 1))
        ratio = sorted(R[k]["glups"] / C[k] for k in ks)[len(ks) // 2]
        figs = (spearman(c, r), spearman(r, r2), spearman(p, c), spearman(p, r),
                100 * R[best_c]["glups"] / R[best_r]["glups"], ratio,
                100 * C[top1] / C[best_c], 100 * R[top1]["glups"] / R[best_r]["glups"],
                100 * C[fixed] / C[best_c] if fixed in C else float("nan"),
                100 * R[fixed]["glups"] / R[best_r]["glups"] if fixed in R else float("nan"))
        print("%-18s" % fam + "".join("%9.3f" % x for x in figs[:4]) +
              "".join("%9.1f" % figs[4] + "%9.3f" % figs[5]) +
              "".join("%9.1f" % x for x in figs[6:]))
        if figs[0] < CHECK_RHO or figs[4] < CHECK_BEST or abs(figs[5] - 1) > CHECK_RATIO:
            failures.append(f"{fam}: rho {figs[0]:.3f}, corpus best at {figs[4]:.1f} %, "
                            f"median ratio {figs[5]:.3f}")
    if check and failures:
        sys.exit("repeat.py --check: the repeat does not reproduce the corpus:\n  " +
                 "\n  ".join(failures))


def main():
    args = sys.argv[1:]
    if len(args) == 5 and args[0] == "make":
        make(*args[1:])
        return
    if args and args[0] == "compare":
        opts = {"--corpus": os.path.join(HERE, "h100.jsonl"),
                "--repeat": os.path.join(HERE, "h100_repeat.jsonl"), "--device": None,
                "--accuracy": os.path.join(ROOT, "build-release", "tests", "accuracy", "accuracy")}
        rest = [a for a in args[1:] if a != "--check"]
        while rest:
            if rest[0] not in opts or len(rest) < 2:
                sys.exit(f"repeat.py: unknown or incomplete option {rest[0]!r}\n{__doc__}")
            opts[rest[0]] = rest[1]
            rest = rest[2:]
        compare(opts["--corpus"], opts["--repeat"], opts["--device"], opts["--accuracy"],
                "--check" in args)
        return
    sys.exit(__doc__)


if __name__ == "__main__":
    main()
