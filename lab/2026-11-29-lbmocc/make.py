#!/usr/bin/env python3
"""Writes the family files of the DRAM-occupancy probe (README.md beside this): three
streaming kernels of the measured sets -- D3Q27 push in float and pull in double on 160^3
(held-out set 6, 54 arrays) and a 3-D float copy on 256^3 (held-out set 5, 2 arrays) --
each at eight occupancy levels, 1 to 8 blocks of 256 threads per SM of an H200, forced by
the shared memory a block reserves (kernel.shared_bytes; the kernel does not use it), with
blocks 256x1x1, 128x2x1, 64x4x1 and 32x8x1 (a whole 160-wide row per block, and runs of
128, 64 and 32 elements). Deterministic output; run from anywhere."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "..", "tests", "accuracy", "corpus")
KERNELS = [("heldout6", "d3q27_push_f32_160"), ("heldout6", "d3q27_pull_f64_160"),
           ("heldout5", "copy3d_f32")]
BLOCKS = [[256, 1, 1], [128, 2, 1], [64, 4, 1], [32, 8, 1]]
SHARED_PER_SM = 233472   # H200: 228 KiB per SM, of which a block may take 227 KiB
RESERVED = 1024          # the driver's per block from compute capability 8.0


def shared_for(k):
    """Bytes a block reserves so that k blocks of 256 threads fit on an SM and k + 1 do
    not (0 at k = 8, where the 2048 threads per SM limit)."""
    return 0 if k >= 8 else SHARED_PER_SM // k - RESERVED


def main():
    out = os.path.join(HERE, "families")
    os.makedirs(out, exist_ok=True)
    n = 0
    for sub, name in KERNELS:
        base = json.load(open(os.path.join(CORPUS, sub, name + ".json")))
        for k in range(1, 9):
            fam = dict(base)
            fam["kernel"] = dict(base["kernel"])
            if shared_for(k):
                fam["kernel"]["shared_bytes"] = shared_for(k)
            fam["family"] = f"{name}_occ{k}"
            fam["description"] = base["description"] + f", {k} blocks of 256 per SM (shared memory)"
            fam["device"] = "H200-SXM-141GB"
            fam["configs"] = [b + [1, 1, 1] for b in BLOCKS]
            with open(os.path.join(out, fam["family"] + ".json"), "w") as fh:
                json.dump(fam, fh, indent=1, sort_keys=True)
                fh.write("\n")
            n += len(fam["configs"])
    print(f"{n} configurations -> {out}")


if __name__ == "__main__":
    main()
