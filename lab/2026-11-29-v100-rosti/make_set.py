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
Run from the repository root; the output is deterministic.

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


def wanted(r):
    return (r["stencil"] in KERNELS and r["variant"] == "naive" and r["unstructured"] == "False"
            and r["z-curves"] == "False" and r["size-x"] == "512" and r["size-y"] == "512"
            and r["size-z"] in ("64", "16"))


def extract(path):
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if wanted(r)]
    with open(CSV, "w", newline="") as f:
        f.write(HEADER)
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows)} rows -> {CSV}")


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
    os.makedirs(OUT_DIR, exist_ok=True)
    lines = []
    for (stencil, nz), blocks in sorted(fams.items()):
        name = f"{stencil}_naive_f64_512x512x{nz}_v100_rosti"
        order = sorted(blocks)
        family = {
            "configs": [[bx, by, bz, 1, 1, 1] for bx, by, bz in order],
            "description": f"{KERNELS[stencil]['what']}, double, 512x512x{nz} with a (2,2,0) "
                           f"halo, {NX}x{NY}x{nz} updated, one point per thread (Rösti 2020, "
                           "measured on a V100 and published with andrej/stencil-performance)",
            "device": "V100-PCIe-32GB",
            "domain": [NX, NY, nz],
            "family": name,
            "kernel": kernel(stencil, nz),
        }
        with open(os.path.join(OUT_DIR, name + ".json"), "w") as f:
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
                    "source": SOURCE, "date": DATE, "ms": round(us[0] / 1e3, 3),
                    "glups": round(updates / us[0] / 1e3, 4)}
            if len(us) > 1:
                line["glups_repeat"] = round(updates / us[1] / 1e3, 4)
            lines.append(json.dumps(line, ensure_ascii=False))
    with open(OUT_JSONL, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(fams)} families, {len(lines)} configurations -> {OUT_DIR}, {OUT_JSONL}")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--extract":
        extract(sys.argv[2])
        return
    fams = families()
    for key, blocks in fams.items():
        many = [b for b, us in blocks.items() if len(us) > 2]
        if many:
            sys.exit(f"{key}: more than two rows for {many}")
    write(fams)


if __name__ == "__main__":
    main()
