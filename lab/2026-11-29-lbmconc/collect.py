#!/usr/bin/env python3
"""Joins the device call's timings (raw/t1.jsonl, raw/t2.jsonl: lab/2026-11-29-compute's
bench, two passes) and Nsight Compute counters (raw/ncu.csv.gz, raw/order.csv) into
h200.jsonl, one line per configuration in the corpus's measured format (family
NAME_kK as make.py names it; tests/accuracy/README.md)."""
import json
import os
import sys

import make

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from lrlab import compute_profile, num  # noqa: E402

RAW = os.path.join(HERE, "raw")
GPU, DRIVER, DATE = "NVIDIA H200", "580.159.04", "2026-11-29"
LUPS = 160 ** 3


def counters():
    """{(family, block, shared): counters} from ncu (one launch per configuration)."""
    out = {}
    for fam, pairs in compute_profile(RAW).items():
        for r, o in pairs:
            out[(fam, int(o["bx"]), int(o["shared"]))] = {
                "dram_load": num(r["dram__bytes_read.sum"]) / LUPS,
                "dram_store": num(r["dram__bytes_write.sum"]) / LUPS,
                "l2_load": num(r["lts__t_sectors_srcunit_tex_op_read.sum"]) * 32 / LUPS,
                "l2_store": num(r["lts__t_sectors_srcunit_tex_op_write.sum"]) * 32 / LUPS,
                "registers": int(num(r["launch__registers_per_thread"])),
                "warps_active_pct": num(r["sm__warps_active.avg.pct_of_peak_sustained_active"]),
                "stalls_per_issue": {
                    k: num(r[f"smsp__average_warps_issue_stalled_{k}_per_issue_active.ratio"])
                    for k in ("long_scoreboard", "lg_throttle")},
            }
    return out


def main():
    level = {make.shared_for(k): k for k in range(1, 33)}
    c = counters()
    t1 = [json.loads(l) for l in open(os.path.join(RAW, "t1.jsonl"))]
    t2 = [json.loads(l) for l in open(os.path.join(RAW, "t2.jsonl"))]
    with open(os.path.join(HERE, "h200.jsonl"), "w") as fh:
        for a, b in zip(t1, t2):
            assert (a["family"], a["block"], a.get("shared_bytes")) == \
                   (b["family"], b["block"], b.get("shared_bytes"))
            sh = a.get("shared_bytes", 0)
            rec = {"family": f"{a['family']}_k{level[sh]}", "block": a["block"],
                   "folding": a["folding"], "gpu": GPU, "driver": DRIVER, "cuda": 13.0,
                   "date": DATE, "ms": a["ms_median"], "glups": a["glups"],
                   "glups_repeat": b["glups"], "shared_bytes": sh,
                   "counters": c[(a["family"], a["block"][0], sh)]}
            fh.write(json.dumps(rec, sort_keys=True) + "\n")
    print(f"{len(t1)} configurations -> h200.jsonl")


if __name__ == "__main__":
    main()
