#!/usr/bin/env python3
"""Judges the instruction mix launchrank counts in NVRTC's PTX (cudagen/ptxcount.c,
`launchrank registers --json`) against what the H200 executed (instructions.json,
Nsight Compute at folding 1) and the static SASS (sass.csv), for each family's
unfolded kernel of kernels.cu; optionally writes a copy of the compute corpus whose
kernel.instructions are the PTX counts, for tests/accuracy/accuracy.

    lab/2026-11-29-compute/ptx_counts.py [--launchrank BIN] [--static]
        [--corpus-out DIR]

--static judges (and writes) every PTX instruction once instead of the likely path.
Prints one row per family: the PTX-derived total, the executed total and their ratio,
the static SASS total, then PTX/executed per class. Exit status 1 when a family's
kernel is missing from the PTX.

What it gave (NVRTC 13.0, 2026-11-29), the likely path: PTX/executed total median
1.004, 0.97-1.10 (star7_transc_f64 1.10, star7_poly64_f64 and d3q19/d3q27_bgk_f32 1.01-
1.05, the rest 0.97-1.02); per class fp32 and fp64 0.96-1.04, special 1.00, other
0.75-1.07 (star7_transc_f32 0.75: the SASS's extra moves and reconvergence around the
library calls), integer (the ALU pipe: 3-8 per update executed) 0.84-2.25, where a few
instructions either way make large ratios. Static (--static): star7_transc_f32 1.90
(sinf's Payne-Hanek slow path; the SASS's static count is 2.5x), star7_transc_f64 1.17,
the rest as the likely path. Then

    build-rel/tests/accuracy/accuracy --corpus /tmp/compute \
        --measured tests/accuracy/corpus/h200_compute.jsonl --device H200-SXM-141GB

with the committed (executed) counts: median GLup/s error mean 7.0 %, top-1 mean
98.5 %; with the PTX counts (--corpus-out /tmp/compute): 6.9 %, 98.5 % (per family
the same but star7_poly64_f64 2.1 -> 5.6 %, star7_transc_f32 2.4 -> 4.8,
star7_transc_f64 8.8 -> 2.4, star7_poly96_f32 4.0 -> 3.5, star25_fold_f64 5.8 -> 5.9;
top-1 of star7_poly64_f64 99.1 -> 97.8); with the static counts: 9.4 %, 98.4 %
(star7_transc_f32 44.9 %). Without kernel.instructions at all model v2 had 18.2 %,
95.8 % (README.md here).
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CLASSES = ("fp32", "fp64", "special", "integer", "other")


def ptx_mix(launchrank, static):
    """The mix of every kernel of kernels.cu by name, as launchrank registers counts it."""
    out = subprocess.run([launchrank, "registers", "--arch", "sm_90", "--json",
                          os.path.join(HERE, "kernels.cu")],
                         check=True, capture_output=True, text=True).stdout
    key = "instructions_static" if static else "instructions"
    return {k["name"]: k[key] for k in json.loads(out)["kernels"]}


def sass_totals():
    with open(os.path.join(HERE, "sass.csv")) as fh:
        return {r["kernel"]: float(r["total"]) for r in csv.DictReader(fh)}


def ratio(a, b):
    return "-" if b == 0 and a == 0 else ("inf" if b == 0 else "%.2f" % (a / b))


def table(mixes, executed, sass):
    print("%-20s %7s %7s %6s %7s  %s" % ("family", "PTX", "exec", "ratio", "SASS",
                                          "PTX/exec: " + " ".join("%-7s" % c for c in CLASSES)))
    ratios = []
    for fam, ex in sorted(executed.items()):
        m = mixes[fam]
        tp, te = sum(m.values()), sum(ex.values())
        ratios.append(tp / te)
        print("%-20s %7.1f %7.1f %6.2f %7.0f  %10s%s" % (
            fam, tp, te, tp / te, sass["ck_%s_f111" % fam], "",
            " ".join("%-7s" % ratio(m[c], ex[c]) for c in CLASSES)))
    ratios.sort()
    print("total PTX/executed: median %.3f, range %.3f-%.3f" % (
        ratios[len(ratios) // 2], ratios[0], ratios[-1]))


def write_corpus(mixes, out_dir):
    src = os.path.join(ROOT, "tests", "accuracy", "corpus", "compute")
    if os.path.exists(out_dir):
        shutil.rmtree(out_dir)
    shutil.copytree(src, out_dir)
    for name in os.listdir(out_dir):
        path = os.path.join(out_dir, name)
        with open(path) as fh:
            fam = json.load(fh)
        fam["kernel"]["instructions"] = {c: mixes[fam["family"]][c] for c in CLASSES}
        with open(path, "w") as fh:
            json.dump(fam, fh, indent=1, sort_keys=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--launchrank", default=os.path.join(ROOT, "build-rel", "clients", "cli",
                                                         "launchrank"))
    ap.add_argument("--static", action="store_true")
    ap.add_argument("--corpus-out")
    args = ap.parse_args()
    with open(os.path.join(HERE, "instructions.json")) as fh:
        executed = json.load(fh)
    kernels = ptx_mix(args.launchrank, args.static)
    missing = [f for f in executed if "ck_%s_f111" % f not in kernels]
    if missing:
        print("no kernel in the PTX for " + ", ".join(missing), file=sys.stderr)
        return 1
    mixes = {f: kernels["ck_%s_f111" % f] for f in executed}
    table(mixes, executed, sass_totals())
    if args.corpus_out:
        write_corpus(mixes, args.corpus_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
