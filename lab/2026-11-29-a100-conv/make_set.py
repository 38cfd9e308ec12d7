#!/usr/bin/env python3
"""Writes Kernel Tuner's published A100 timings of a 15x15 convolution as a measured set.

The data: AutoTuningAssociation/benchmark_hub, cachefiles/convolution_milo/A100.json.gz
(last touched in commit 3a77f95abf40ec22bc87ed5a943f58d995ac73bb), a Kernel Tuner cache
measured on an NVIDIA A100-PCIE-40GB on 2023-12-22. `make_set.py --extract CACHE.json.gz`
writes the rows used here into conv15_tile1_benchmarkhub.csv (beside this script, with a
'#' header naming the source); without it the script reads that CSV and writes
tests/accuracy/corpus/published_a100_conv/<family>.json (two families) and
tests/accuracy/corpus/a100_conv.jsonl (the corpus schema). `make_set.py --h200 DIR` writes
the control instead: the same families for the H200 (sm_90 registers) and DIR/h200.jsonl
from h200_conv15.txt (ours, bench.cu), for `accuracy --corpus DIR/families --measured
DIR/h200.jsonl --device H200-SXM-141GB`. Run from the repository root; the output is
deterministic.

The subset (README.md): use_shmem=0 (every input value loaded from global memory),
tile_size_x = tile_size_y = 1 (one output point per thread: Kernel Tuner's tiles are
block-strided and launchrank's folding is consecutive), read_only=0 (plain loads, no
__ldg). 60 blocks, all of which ran. The kernel's code differs with the block: when the
block does not divide 4096 the original compiles bounds checks in, and ptxas then zeroes
each load's register before its predicated load (SASS below), so the blocks are two
families with their own registers and instruction mix: `conv15_f32_a100_exact` (the block
divides 4096) and `conv15_f32_a100_guarded` (it does not).

registers and instructions: ptxas for sm_80 (CUDA 13.0) of conv15.cu (beside this script;
the same loops, indexing, types and constant-memory filter as the original, written here),
counted in its SASS (cuobjdump -sass) for (32,4) and (48,2): every instruction on the
path a thread takes, per thread = per update. LEA and ISETP count as integer (the ALU
pipe), IMAD, loads, stores, moves, CS2R, HFMA2 (a zero move), S2R, ULDC and EXIT as other.
"""
import csv
import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = os.path.join(HERE, "conv15_tile1_benchmarkhub.csv")
OUT_DIR = "tests/accuracy/corpus/published_a100_conv"
OUT_JSONL = "tests/accuracy/corpus/a100_conv.jsonl"
GPU = "NVIDIA A100-PCIE-40GB (published, benchmark_hub)"
SOURCE = ("AutoTuningAssociation/benchmark_hub cachefiles/convolution_milo/A100.json.gz, "
          "commit 3a77f95abf40ec22bc87ed5a943f58d995ac73bb (Kernel Tuner cache, time = mean "
          "of 32 runs); kernel MiloLurati/AutoTuning_AMD_vs_Nvidia_GPUs cache_scripts/"
          "convolution/convolution.cu, commit 763e5401588882e03c57d92d68e19fc80b6d4374, "
          "use_shmem=0, tile 1x1, read_only=0")
N, FW = 4096, 15
IN = N + FW - 1
# SASS of conv15.cu for sm_80 (README.md): (32,4) for exact blocks, (48,2) for guarded
CODE = {
    "exact": {"registers": 31,
              "instructions": {"fp32": 225, "fp64": 0, "special": 0, "integer": 3,
                               "other": 237}},
    "guarded": {"registers": 30,
                "instructions": {"fp32": 225, "fp64": 0, "special": 0, "integer": 6,
                                 "other": 391}},
}
HEADER = [
    "# source: AutoTuningAssociation/benchmark_hub, cachefiles/convolution_milo/A100.json.gz, "
    "commit 3a77f95abf40ec22bc87ed5a943f58d995ac73bb; Kernel Tuner cache, device_name "
    "\"NVIDIA A100-PCIE-40GB\", timestamps 2023-12-22",
    "# rows: use_shmem=0, use_cmem=1, filter 15x15, tile_size_x=tile_size_y=1 (read_only 0 "
    "and 1); time_ms = Kernel Tuner \"time\" (mean of the 32 \"times\", ms); median_ms and "
    "min_ms of those 32 (ours)",
]


def extract(path):
    cache = json.load(gzip.open(path))["cache"]
    rows = []
    for v in cache.values():
        if (v["use_shmem"], v["tile_size_x"], v["tile_size_y"]) != (0, 1, 1):
            continue
        if not isinstance(v["time"], float):
            continue
        t = sorted(v["times"])
        rows.append((v["block_size_x"], v["block_size_y"], v["read_only"], v["time"],
                     (t[15] + t[16]) / 2, t[0], v["timestamp"]))
    rows.sort()
    with open(CSV, "w") as f:
        f.write("\n".join(HEADER) + "\n")
        f.write("block_size_x,block_size_y,read_only,time_ms,median_ms,min_ms,timestamp\n")
        for r in rows:
            f.write("%d,%d,%d,%.6f,%.6f,%.6f,%s\n" % r)
    print(f"{len(rows)} rows -> {CSV}")


def kernel(code):
    loads = [[f"x+{c}" if c else "x", f"y+{r}" if r else "y"]
             for r in range(FW) for c in range(FW)]
    k = {"fields": [{"name": "input", "element_bytes": 4, "dims": [IN, IN], "loads": loads},
                    {"name": "output", "element_bytes": 4, "dims": [N, N],
                     "stores": [["x", "y"]]}],
         "flops": 2 * FW * FW, "restrict": False}
    k.update(CODE[code])
    return k


def h200(out_dir):
    """The H200 control (README.md): the A100's instruction counts, sm_90's registers."""
    with open(os.path.join(HERE, "h200_conv15.txt")) as f:
        rows = [l.split() for l in f if l[0].isdigit()]
    os.makedirs(os.path.join(out_dir, "families"), exist_ok=True)
    with open(os.path.join(out_dir, "h200.jsonl"), "w") as out:
        for code in ("exact", "guarded"):
            name = "conv15_f32_a100_" + code
            mine = [r for r in rows if (N % int(r[0]) == 0) == (code == "exact")]
            k = kernel(code)
            k["registers"] = int(mine[0][3])
            family = {"configs": [[int(r[0]), int(r[1]), 1, 1, 1, 1] for r in mine],
                      "device": "H200-SXM-141GB", "domain": [N, N], "family": name,
                      "kernel": k}
            with open(os.path.join(out_dir, "families", name + ".json"), "w") as f:
                json.dump(family, f, indent=1, sort_keys=True)
            for r in mine:
                line = {"family": name, "block": [int(r[0]), int(r[1]), 1],
                        "folding": [1, 1, 1], "gpu": "NVIDIA H200", "date": "2026-11-29",
                        "ms": float(r[2]), "glups": round(N * N / float(r[2]) / 1e6, 4),
                        "glups_repeat": round(N * N / float(r[4]) / 1e6, 4)}
                out.write(json.dumps(line) + "\n")
    print(f"-> {out_dir}/families, {out_dir}/h200.jsonl")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--extract":
        extract(sys.argv[2])
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--h200":
        h200(sys.argv[2])
        return
    with open(CSV) as f:
        rows = [r for r in csv.DictReader(l for l in f if not l.startswith("#"))
                if r["read_only"] == "0"]
    fams = {}
    for r in rows:
        b = (int(r["block_size_x"]), int(r["block_size_y"]))
        code = "exact" if N % b[0] == 0 and N % b[1] == 0 else "guarded"
        fams.setdefault(code, []).append((b, r))
    os.makedirs(OUT_DIR, exist_ok=True)
    with open(OUT_JSONL, "w") as out:
        for code in sorted(fams):
            name = "conv15_f32_a100_" + code
            family = {
                "configs": [[b[0], b[1], 1, 1, 1, 1] for b, _ in fams[code]],
                "description": "2-D 15x15 float convolution, 4096x4096 (input 4110x4110), "
                               "filter in constant memory, one point per thread, blocks that "
                               + ("divide 4096" if code == "exact" else
                                  "do not divide 4096 (bounds checks compiled in)")
                               + " (Kernel Tuner on an A100-PCIE-40GB, benchmark_hub)",
                "device": "A100-SXM4-40GB",
                "domain": [N, N],
                "family": name,
                "kernel": kernel(code),
            }
            with open(os.path.join(OUT_DIR, name + ".json"), "w") as f:
                json.dump(family, f, indent=1, sort_keys=True)
                f.write("\n")
            for b, r in fams[code]:
                ms = float(r["time_ms"])
                line = {"family": name, "block": [b[0], b[1], 1], "folding": [1, 1, 1],
                        "gpu": GPU, "source": SOURCE, "date": r["timestamp"][:10],
                        "ms": round(ms, 5), "glups": round(N * N / ms / 1e6, 4)}
                out.write(json.dumps(line) + "\n")
            print(f"{name}: {len(fams[code])} blocks")
    print(f"-> {OUT_DIR}/, {OUT_JSONL}")


if __name__ == "__main__":
    main()
