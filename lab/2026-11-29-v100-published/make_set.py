#!/usr/bin/env python3
"""Writes Ernst's published V100 measurements as a measured set of the accuracy gate.

Reads v100_3d25pt_r4_640x512x512_nofold_warpspeed.csv (beside this script; its '#' header
names the source: te42kyfo/warpspeed, pystencils-volumes.ipynb) and the kernel of
tests/data/ref3_3d25pt_a100.json (the same 25-point range-4 double star on 640x512x512), and
writes tests/accuracy/corpus/published_v100/star3d_r4_f64_v100_published.json (the family:
the measured blocks, unfolded) and tests/accuracy/corpus/v100_published.jsonl (one line per
block, the corpus schema). Run from the repository root; the output is deterministic.

What is converted: the notebook divides its counters by the full field (640*512*512 points)
and its GLup/s count the 632*504*504 updated points; the corpus is per update, so the
volumes are multiplied by 640*512*512 / (632*504*504) = 1.0451. The three 128-deep blocks
are left out: CUDA allows blockDim.z <= 64, so what the notebook printed for them did not
come from a launch of that block (launchrank calls them unlaunchable).
"""
import csv
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = os.path.join(HERE, "v100_3d25pt_r4_640x512x512_nofold_warpspeed.csv")
REF = "tests/data/ref3_3d25pt_a100.json"
FAMILY = "star3d_r4_f64_v100_published"
OUT_DIR = "tests/accuracy/corpus/published_v100"
OUT_JSONL = "tests/accuracy/corpus/v100_published.jsonl"
FIELD = 640 * 512 * 512
UPDATES = 632 * 504 * 504
SOURCE = ("te42kyfo/warpspeed pystencils-volumes.ipynb, blob "
          "72c04588a16fd5984a7806e013a0cb6d20d88ec8, first committed "
          "fcdc19f22a47a76aacb31bbc21d52bef00ab5dd8 (2021-03-25)")


def rows():
    with open(CSV) as f:
        lines = [l for l in f if not l.startswith("#")]
    return list(csv.DictReader(lines))


def main():
    with open(REF) as f:
        ref = json.load(f)
    measured = [r for r in rows() if int(r["bz"]) <= 64]
    configs = [[int(r["bx"]), int(r["by"]), int(r["bz"]), 1, 1, 1] for r in measured]
    family = {
        "configs": configs,
        "description": "3-D 25-point range-4 star, double, 640x512x512, 1024-thread blocks "
                       "(Ernst et al., measured on a V100 and published with Warpspeed)",
        "device": "V100-PCIe-32GB",
        "domain": ref["domain"],
        "family": FAMILY,
        "kernel": ref["kernel"],
    }
    os.makedirs(OUT_DIR, exist_ok=True)
    with open(os.path.join(OUT_DIR, FAMILY + ".json"), "w") as f:
        json.dump(family, f, indent=1, sort_keys=True)
        f.write("\n")
    per_update = FIELD / UPDATES
    with open(OUT_JSONL, "w") as f:
        for r in measured:
            glups = float(r["meas_glups"])
            counters = {k: round(float(r["meas_" + k + "_B_per_pt"]) * per_update, 4)
                        for k in ("dram_load", "dram_store", "l2_load", "l2_store")}
            line = {"family": FAMILY, "block": [int(r["bx"]), int(r["by"]), int(r["bz"])],
                    "folding": [1, 1, 1], "gpu": "Tesla V100 (published)",
                    "source": SOURCE, "date": "2021-03-25",
                    "ms": round(UPDATES / glups / 1e6, 5), "glups": round(glups, 4),
                    "counters": counters}
            f.write(json.dumps(line) + "\n")
    print(f"{len(configs)} configurations -> {OUT_DIR}/{FAMILY}.json, {OUT_JSONL}")


if __name__ == "__main__":
    main()
