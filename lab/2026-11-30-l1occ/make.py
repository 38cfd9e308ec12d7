#!/usr/bin/env python3
"""Writes the family files of the L1 occupancy probe (README.md beside this): four L1-bound
kernels of the measured sets -- the 125-point float box (compute corpus), the 125-point
double box and the 81-point double 2-D box (held-out set 11), the 81-point float 2-D box
(held-out set 6) -- unfolded, (a) at 1 to 8 blocks of 256 threads per SM of an H200, forced
by the shared memory a block reserves (kernel.shared_bytes; the kernel does not use it), with
blocks 256x1x1, 64x4x1 and 32x8x1; (b) at 1024 threads per SM in blocks of 128, 256 and 512
(8, 4 and 2 blocks). Deterministic output; run from anywhere."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "..", "tests", "accuracy", "corpus")
KERNELS = [("compute", "box125_f32"), ("heldout11", "box125_f64"),
           ("heldout11", "box2d_r4_f64"), ("heldout6", "box2d_r4_f32")]
BLOCKS = [[256, 1, 1], [64, 4, 1], [32, 8, 1]]
EQUAL = {128: [32, 4, 1], 256: [32, 8, 1], 512: [32, 16, 1]}
SHARED_PER_SM = 233472   # H200: 228 KiB per SM, of which a block may take 227 KiB
RESERVED = 1024          # the driver's per block from compute capability 8.0


def shared_for(k):
    """Bytes a block reserves so that k blocks fit on an SM and k + 1 do not (0 where the
    threads or blocks per SM limit first)."""
    return SHARED_PER_SM // k - RESERVED


def family(base, name, shared, desc, configs):
    fam = dict(base)
    fam["kernel"] = dict(base["kernel"])
    if shared:
        fam["kernel"]["shared_bytes"] = shared
    fam["family"] = name
    fam["description"] = base["description"] + desc
    fam["device"] = "H200-SXM-141GB"
    fam["configs"] = configs
    return fam


def main():
    out = os.path.join(HERE, "families")
    os.makedirs(out, exist_ok=True)
    fams = []
    for sub, name in KERNELS:
        base = json.load(open(os.path.join(CORPUS, sub, name + ".json")))
        for k in range(1, 9):
            fams.append(family(base, f"{name}_occ{k}", shared_for(k) if k < 8 else 0,
                               f", {k} blocks of 256 per SM (shared memory)",
                               [b + [1, 1, 1] for b in BLOCKS]))
        for t, b in EQUAL.items():
            k = 1024 // t
            fams.append(family(base, f"{name}_t1024_b{t}", shared_for(k),
                               f", {k} blocks of {t} per SM (shared memory): 1024 threads",
                               [b + [1, 1, 1]]))
    n = 0
    for fam in fams:
        with open(os.path.join(out, fam["family"] + ".json"), "w") as fh:
            json.dump(fam, fh, indent=1, sort_keys=True)
            fh.write("\n")
        n += len(fam["configs"])
    print(f"{len(fams)} families, {n} configurations -> {out}")


if __name__ == "__main__":
    main()
