#!/usr/bin/env python3
"""Writes André Rösti's published V100 timings of two 2-D-in-plane stencils as a measured set.

Source: andrej/stencil-performance (Rösti's ETH bachelor thesis, May 2020), commit
29e8a11f7c3627ba31557c105d94f659ddb320df, results/ultimate-reformat.csv (the parsed form of
the sweep whose raw output, results/ultimate.csv, was deleted in 885fba1 on 2020-05-04, so the
timings are from before that day). `v100_rosti_ultimate_naive_regular.csv` beside this script
holds the rows used (regular grid, naive variant, hdiff and laplap, 512x512x64 and
512x512x16), as the repository has them; `--extract FILE` rewrites it from the repository's
file (`git show 29e8a11:results/ultimate-reformat.csv > FILE`).

Writes tests/accuracy/corpus/published_v100_rosti/<family>.json (kernel, domain, the measured
blocks, unfolded), tests/accuracy/corpus/v100_rosti.jsonl (one line per block) and requests/
<family>.json beside this script (the kernel as a launchrank request: `launchrank rank FILE`).
Run from the repository root; the output is deterministic. It also writes a second set,
tests/accuracy/corpus/published_v100_rosti2/ + v100_rosti2.jsonl, from two more extracts beside
it (`--extract2 ULTIMATE BY1`): the idxvar rows of the same file, and the naive rows of
results/s512x512x_-t_x1x_-all.csv (blocks one row deep, Z = 8 to 64); README.md describes them.

The kernels, as the repository's source has them (kernels/hdiff-naive.cu,
kernels/laplap-naive.cu, included by benchmarks/hdiff-cuda-regular.cu and
benchmarks/laplap-regular.cu): one thread per inner point (i, j, k), i, j < 508, k < Z, no
shared memory, no loop; `in` read at the 13 in-plane offsets (0,0), (+-1,0), (0,+-1), (+-2,0),
(0,+-2), (+-1,+-1) of plane k (hdiff also reads `coeff` at (0,0)); `out` written at (0,0).
Layout (grids/regular.cu, halo (2,2,0)): x fastest, y stride roundup(508+4, 4) = 512, z stride
512*512, and 2 doubles of padding so that the inner origin (0,0,0) is 32-byte aligned: element
(-2,-2,0) of each separately cudaMallocManaged field is at byte 16. So each field is
[512,512,Z] doubles with base_offset_bytes 16 and the point (i,j,k) at (x+2, y+2, z).

Timings: `median` of 20 host-timed runs (std::chrono around launch and cudaDeviceSynchronize,
whole microseconds) after one untimed run. The 512x512x16 sweep was run twice in the file;
the first row is `ms`/`glups`, the second `glups_repeat`.
"""
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = os.path.join(HERE, "v100_rosti_ultimate_naive_regular.csv")
OUT_DIR = "tests/accuracy/corpus/published_v100_rosti"
OUT_JSONL = "tests/accuracy/corpus/v100_rosti.jsonl"
REQ_DIR = os.path.join(HERE, "requests")  # the same kernels as launchrank requests
COMMIT = "29e8a11f7c3627ba31557c105d94f659ddb320df"
SOURCE = ("andrej/stencil-performance results/ultimate-reformat.csv, commit " + COMMIT +
          " (Rösti, ETH bachelor thesis, May 2020)")
GPU = "Tesla V100 (published, Rösti 2020)"
DATE = "2020-05-04"  # results/ultimate.csv, which this file parses, was deleted that day
HEADER = ("# source: andrej/stencil-performance, commit " + COMMIT + ", "
          "results/ultimate-reformat.csv; rows with stencil hdiff or laplap, variant naive, "
          "unstructured False, z-curves False, size 512x512x64 or 512x512x16, as they are "
          "there (median/avg/min/max: microseconds over 20 runs). GPU: Nvidia Tesla V100 "
          "(report/tex/results.tex), SKU not stated.\n")
# The second set (published_v100_rosti2): the idxvar variant of the same sweep, and a second
# sweep of the naive kernels over blocks one row deep (by = 1) on Z = 1..64,
# results/s512x512x_-t_x1x_-all.csv (its first line is the gridbenchmark command; median
# of 20 runs in whole microseconds, each run listed). That file appears in the repository only
# with the publication commit (2022-09-12); when it was run is not recorded.
CSV2_IDXVAR = os.path.join(HERE, "v100_rosti_ultimate_idxvar_regular.csv")
CSV2_BY1 = os.path.join(HERE, "v100_rosti_t_x1x_naive_regular.csv")
OUT2_DIR = "tests/accuracy/corpus/published_v100_rosti2"
OUT2_JSONL = "tests/accuracy/corpus/v100_rosti2.jsonl"
BY1_FILE = "results/s512x512x_-t_x1x_-all.csv"
BY1_SOURCE = ("andrej/stencil-performance " + BY1_FILE + ", commit " + COMMIT +
              " (Rösti, ETH bachelor thesis, May 2020)")
BY1_DATE = "2022-09-12"  # the commit that published the file; the run date is not recorded
BY1_DEPTHS = ("8", "16", "32", "64")
BY1_MIN_BLOCKS = 6  # a family of fewer blocks says little about the ranking
HEADER2_IDXVAR = HEADER.replace("variant naive", "variant idxvar")
HEADER2_BY1 = ("# source: andrej/stencil-performance, commit " + COMMIT + ", " + BY1_FILE +
               "; rows hdiff-regular-naive and laplap-regular-naive, double, 512x512xZ for Z "
               "in 8, 16, 32, 64, as they are there (times in microseconds: average, "
               "median, minimum, maximum, then the 20 runs). GPU: Nvidia Tesla V100 "
               "(report/tex/results.tex), SKU not stated.\n")
NX, NY = 508, 508  # 512 minus the (2,2) halo on both sides
OFFSETS = [(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1), (-2, 0), (2, 0), (0, -2), (0, 2),
           (-1, -1), (-1, 1), (1, -1), (1, 1)]
# Flops from the source, without the four comparisons of hdiff's limiter: a Laplacian is
# 4*a - b - c - d - e (5); hdiff: 5 Laplacians, 4 fluxes (3 each), the update (5);
# laplap: 5 Laplacians and one more of them.
KERNELS = {
    "hdiff": {"fields": ["in", "coeff", "out"], "flops": 25 + 12 + 5,
              "what": "horizontal diffusion (kernels/hdiff-naive.cu)"},
    "laplap": {"fields": ["in", "out"], "flops": 30,
               "what": "Laplacian of the Laplacian (kernels/laplap-naive.cu)"},
}


def shifted(dx, dy):
    def term(v, d):
        d += 2
        return v if d == 0 else f"{v}+{d}" if d > 0 else f"{v}{d}"
    return [term("x", dx), term("y", dy), "z"]


def kernel(stencil, nz):
    fields = []
    for name in KERNELS[stencil]["fields"]:
        loads = ([shifted(dx, dy) for dx, dy in OFFSETS] if name == "in" else
                 [] if name == "out" else [shifted(0, 0)])
        stores = [shifted(0, 0)] if name == "out" else []
        fields.append({"name": name, "element_bytes": 8, "dims": [512, 512, nz],
                       "base_offset_bytes": 16, "loads": loads, "stores": stores})
    return {"fields": fields, "flops": KERNELS[stencil]["flops"]}


def wanted(r, variant="naive"):
    return (r["stencil"] in KERNELS and r["variant"] == variant
            and r["unstructured"] == "False" and r["z-curves"] == "False"
            and r["size-x"] == "512" and r["size-y"] == "512" and r["size-z"] in ("64", "16"))


def by1_fields(line):
    """The stripped fields of a row of the by = 1 sweep, or None for its header lines."""
    f = [v.strip() for v in line.split(",")]
    name = f[0].split("-")
    if len(f) < 13 or len(name) != 3 or name[0] not in KERNELS or name[1:] != ["regular",
                                                                                "naive"]:
        return None
    return f if f[1] == "double" and f[2] == f[3] == "512" and f[4] in BY1_DEPTHS else None


def write_rows(path, header, rows):
    """The rows kept from one of Rösti's CSV files, under a header naming the source."""
    with open(path, "w", newline="") as f:
        f.write(header)
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows)} rows -> {path}")


def extract(path):
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if wanted(r)]
    write_rows(CSV, HEADER, rows)


def extract2(ultimate, by1):
    with open(ultimate) as f:
        rows = [r for r in csv.DictReader(f) if wanted(r, "idxvar")]
    write_rows(CSV2_IDXVAR, HEADER2_IDXVAR, rows)
    with open(by1) as f:
        lines = [l.rstrip() for l in f.read().splitlines()]
    kept = [l for l in lines if by1_fields(l)]
    with open(CSV2_BY1, "w") as f:
        f.write(HEADER2_BY1 + "\n".join(lines[1:3] + kept) + "\n")
    print(f"{len(kept)} rows -> {CSV2_BY1}")


def check_grid(stencil, f):
    """The launch as the file records it: hdiff's grid covers the 512x512 array
    (HdiffCudaRegularBenchmark::numblocks(size)), laplap's the 508x508 inner points."""
    nz = int(f[4])
    extent = (512, 512, nz) if stencil == "hdiff" else (NX, NY, nz)
    grid = [int(v) for v in f[5:8]]
    threads = [int(v) for v in f[8:11]]
    for g, t, n in zip(grid, threads, extent):
        if g != -(-n // t):
            sys.exit(f"{f[0]} Z {nz} block {threads}: grid {grid}, not {extent} covered")


def families2():
    """The idxvar families of the first sweep and the by = 1 families of the second."""
    with open(CSV2_IDXVAR) as f:
        rows = [r for r in csv.DictReader(l for l in f if not l.startswith("#"))
                if wanted(r, "idxvar")]
    sets = []
    idx = {}
    for r in sorted(rows, key=lambda r: int(r[""])):
        key = (r["stencil"], int(r["size-z"]))
        block = (int(r["threads-x"]), int(r["threads-y"]), int(r["threads-z"]))
        idx.setdefault(key, {}).setdefault(block, []).append(float(r["median"]))
    for (stencil, nz), blocks in sorted(idx.items()):
        sets.append((f"{stencil}_idxvar_f64_512x512x{nz}_v100_rosti", stencil, "idxvar", nz,
                     blocks, SOURCE, DATE, ", neighbour indices computed once (idxvar)"))
    by1 = {}
    with open(CSV2_BY1) as f:
        for line in f:
            fields = by1_fields(line)
            if fields is None:
                continue
            stencil = fields[0].split("-")[0]
            check_grid(stencil, fields)
            block = tuple(int(v) for v in fields[8:11])
            if block[1] != 1:
                sys.exit(f"{fields[0]}: block {block} is not one row deep")
            by1.setdefault((stencil, int(fields[4])), {}).setdefault(block, []).append(
                float(fields[12]))
    for (stencil, nz), blocks in sorted(by1.items()):
        if len(blocks) < BY1_MIN_BLOCKS:
            print(f"{stencil} Z {nz}: {len(blocks)} blocks, left out")
            continue
        sets.append((f"{stencil}_naive_f64_512x512x{nz}_by1_v100_rosti", stencil, "naive", nz,
                     blocks, BY1_SOURCE, BY1_DATE, ", blocks one row deep (second sweep)"))
    return sets


def families():
    with open(CSV) as f:
        rows = [r for r in csv.DictReader(l for l in f if not l.startswith("#")) if wanted(r)]
    fams = {}
    for r in sorted(rows, key=lambda r: int(r[""])):
        key = (r["stencil"], int(r["size-z"]))
        block = (int(r["threads-x"]), int(r["threads-y"]), int(r["threads-z"]))
        fams.setdefault(key, {}).setdefault(block, []).append(float(r["median"]))
    return fams


def write(fams):
    sets = [(f"{stencil}_naive_f64_512x512x{nz}_v100_rosti", stencil, "naive", nz, blocks,
             SOURCE, DATE, "") for (stencil, nz), blocks in sorted(fams.items())]
    write_set(sets, OUT_DIR, OUT_JSONL)


def write_set(sets, out_dir, out_jsonl):
    """sets: (family name, stencil, variant, Z, {block: [us, ...]}, source, date, note)."""
    os.makedirs(out_dir, exist_ok=True)
    lines = []
    for name, stencil, variant, nz, blocks, source, date, note in sets:
        order = sorted(blocks)
        what = KERNELS[stencil]["what"].replace("-naive.cu", f"-{variant}.cu")
        family = {
            "configs": [[bx, by, bz, 1, 1, 1] for bx, by, bz in order],
            "description": f"{what}, double, 512x512x{nz} with a (2,2,0) "
                           f"halo, {NX}x{NY}x{nz} updated, one point per thread{note} (Rösti "
                           "2020, measured on a V100 and published with "
                           "andrej/stencil-performance)",
            "device": "V100-PCIe-32GB",
            "domain": [NX, NY, nz],
            "family": name,
            "kernel": kernel(stencil, nz),
        }
        with open(os.path.join(out_dir, name + ".json"), "w") as f:
            json.dump(family, f, indent=1, sort_keys=True, ensure_ascii=False)
            f.write("\n")
        request = {"device": family["device"], "domain": family["domain"],
                   "kernel": family["kernel"]}
        os.makedirs(REQ_DIR, exist_ok=True)
        with open(os.path.join(REQ_DIR, name + ".json"), "w") as f:
            json.dump(request, f, indent=1)
            f.write("\n")
        updates = NX * NY * nz
        for b in order:
            us = blocks[b]
            line = {"family": name, "block": list(b), "folding": [1, 1, 1], "gpu": GPU,
                    "source": source, "date": date, "ms": round(us[0] / 1e3, 3),
                    "glups": round(updates / us[0] / 1e3, 4)}
            if len(us) > 1:
                line["glups_repeat"] = round(updates / us[1] / 1e3, 4)
            lines.append(json.dumps(line, ensure_ascii=False))
    with open(out_jsonl, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(sets)} families, {len(lines)} configurations -> {out_dir}, {out_jsonl}")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--extract":
        extract(sys.argv[2])
        return
    if len(sys.argv) == 4 and sys.argv[1] == "--extract2":
        extract2(sys.argv[2], sys.argv[3])
        return
    fams = families()
    sets2 = families2()
    for key, blocks in list(fams.items()) + [(s[0], s[4]) for s in sets2]:
        many = [b for b, us in blocks.items() if len(us) > 2]
        if many:
            sys.exit(f"{key}: more than two rows for {many}")
    write(fams)
    write_set(sets2, OUT2_DIR, OUT2_JSONL)


if __name__ == "__main__":
    main()
