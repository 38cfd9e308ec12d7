#!/usr/bin/env python3
"""Writes the manifest and the family files of the DRAM-concurrency probe (README.md beside
this): five LBM kernels of the compute corpus (tests/accuracy/corpus/compute; their code
issues every load of an update before it uses one: lab/2026-11-29-sass), each at 1 to its
register limit of blocks per SM of an H200, forced by the shared memory a block reserves
(the kernel does not use it), with blocks 160x1x1 (a whole 160-wide row, every thread
working) and 256x1x1 (the same row, 96 threads idle), and 1024x1x1 at one block. One family
file per kernel and level (kernel.shared_bytes differs), manifest lines `family kernel bx by
bz fx fy fz shared` for lab/2026-11-29-compute's bench; and manifest_resident.txt, nine
kernels at the occupancy their resources give. Deterministic output; run from anywhere."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "..", "tests", "accuracy", "corpus", "compute")
# family, folding, registers (ptxas, lab/2026-11-29-compute/README.md)
KERNELS = [("d3q19_bgk_f32", 1, 40), ("d3q19_bgk_f64", 1, 64), ("d3q27_trt_f32", 1, 48),
           ("d3q27_bgk_f64", 1, 80), ("d3q19_bgk_fold_f64", 2, 124)]
BLOCKS = [160, 256]
RESIDENT = ["d3q19_bgk_f32", "d3q19_trt_f32", "d3q19_bgk_f64", "d3q27_bgk_f32", "d3q27_trt_f32",
            "d3q27_cum_f32", "d3q27_bgk_f64", "d3q27_trt_f64", "d3q27_cum_f64"]
SHARED_PER_SM = 233472   # H200: 228 KiB per SM
RESERVED = 1024          # the driver's per block from compute capability 8.0
ALLOC = 128              # shared memory is allocated in 128-B units (lab/2026-11-29-lbmocc)
REGS_PER_SM, THREADS_PER_SM = 65536, 2048


def fit_blocks(threads, regs):
    """Blocks per SM that registers and threads allow (registers per warp in units of 256)."""
    warps = (threads + 31) // 32
    per_warp = (regs * 32 + 255) // 256 * 256
    return min(REGS_PER_SM // (per_warp * warps), THREADS_PER_SM // threads, 32)


def shared_for(k):
    """Bytes a block reserves so that k blocks fit on an SM and k + 1 do not."""
    return (SHARED_PER_SM // k) // ALLOC * ALLOC - RESERVED


def main():
    fams = os.path.join(HERE, "families")
    os.makedirs(fams, exist_ok=True)
    lines, n = [], 0
    for name, fold, regs in KERNELS:
        base = json.load(open(os.path.join(CORPUS, name + ".json")))
        top = max(fit_blocks(b, regs) for b in BLOCKS)
        for k in range(1, top + 1):
            configs = [[b, 1, 1, 1, 1, fold] for b in BLOCKS if fit_blocks(b, regs) >= k]
            fam = dict(base)
            fam["kernel"] = dict(base["kernel"])
            if k == 1 and fit_blocks(1024, regs):  # 1024 threads, 160 working (the corpus)
                configs.append([1024, 1, 1, 1, 1, fold])
            shared = shared_for(k)
            fam["kernel"]["shared_bytes"] = shared
            fam["family"] = f"{name}_k{k}"
            fam["description"] = (base["description"] +
                                  f", folded {fold} in z, {k} blocks per SM (shared memory)")
            fam["device"] = "H200-SXM-141GB"
            fam["configs"] = configs
            with open(os.path.join(fams, fam["family"] + ".json"), "w") as fh:
                json.dump(fam, fh, indent=1, sort_keys=True)
                fh.write("\n")
            for c in configs:
                lines.append(f"{name} ck_{name}_f11{fold} "
                             f"{c[0]} 1 1 1 1 {fold} {shared}")
            n += len(configs)
    with open(os.path.join(HERE, "manifest.txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    # blocks as wide as or wider than the 160-wide row at the occupancy the resources give
    # (no shared memory): the resident blocks Nsight Compute counts (manifest_resident.txt)
    res = [f"{name} ck_{name}_f111 {b} 1 1 1 1 1" for name in RESIDENT for b in (256, 512, 1024)]
    with open(os.path.join(HERE, "manifest_resident.txt"), "w") as fh:
        fh.write("\n".join(res) + "\n")
    print(f"{n} configurations -> {fams}, manifest.txt; {len(res)} -> manifest_resident.txt")


if __name__ == "__main__":
    main()
