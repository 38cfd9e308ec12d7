#!/usr/bin/env python3
"""Joins the device call's timings (raw/r1.jsonl) and Nsight Compute counters (raw/ncu.csv,
raw/order.csv) into table.csv (per configuration the measured GLup/s, resident blocks and
warps per SM: sm__ctas_active and sm__warps_active averaged over active cycles; the occupancy
calculator's whole-block limit) and a measured set for tests/accuracy: families/ (the compute
corpus's family files with this probe's configurations) and h200.jsonl (timings, registers)."""
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from lrlab import compute_profile, num  # noqa: E402

RAW = os.path.join(HERE, "raw")
CORPUS = os.path.join(HERE, "..", "..", "tests", "accuracy", "corpus")
GPU, DRIVER, DATE = "NVIDIA H200", "580.159.04", "2026-11-29"


def counters():
    out = {}
    for fam, pairs in compute_profile(RAW).items():
        for r, o in pairs:
            key = (o["kernel"], int(o["bx"]))
            out[key] = {
                "ctas": num(r["sm__ctas_active.avg.per_cycle_active"]),
                "warps": num(r["sm__warps_active.avg.per_cycle_active"]),
                "regs": int(num(r["launch__registers_per_thread"])),
                "limit_regs": int(num(r["launch__occupancy_limit_registers"])),
                "limit_warps": int(num(r["launch__occupancy_limit_warps"])),
                "limit_blocks": int(num(r["launch__occupancy_limit_blocks"])),
                "active_share": num(r["sm__cycles_active.avg"]) / num(r["sm__cycles_elapsed.avg"]),
                "prof_us": num(r["gpu__time_duration.sum"]) / 1e3,
            }
    return out


def corpus_registers():
    """ptxas's registers of the compute corpus's kernels, (family, folding) -> count"""
    out = {}
    for line in open(os.path.join(CORPUS, "h200_compute.jsonl")):
        j = json.loads(line)
        out[(j["family"], tuple(j["folding"]))] = j["counters"]["registers"]
    return out


def write_set(timed, c):
    """families/ and h200.jsonl: every timed configuration, registers from the profile or,
    where the profile is missing (d3q19_bgk_fold_f64), from the corpus's measurement."""
    regs = corpus_registers()
    fams = {}
    os.makedirs(os.path.join(HERE, "families"), exist_ok=True)
    with open(os.path.join(HERE, "h200.jsonl"), "w") as fo:
        for j in timed:
            k = c.get((j["kernel"], j["block"][0]))
            r = k["regs"] if k else regs[(j["family"], tuple(j["folding"]))]
            line = {"family": j["family"], "block": j["block"], "folding": j["folding"], "gpu": GPU,
                    "driver": DRIVER, "cuda": 13.0, "date": DATE, "ms": j["ms_median"],
                    "glups": j["glups"], "counters": {"registers": r}}
            if k:
                line["resident"] = {"ctas_active": k["ctas"], "warps_active": k["warps"]}
            fo.write(json.dumps(line, sort_keys=True) + "\n")
            fams.setdefault(j["family"], []).append(j["block"] + j["folding"])
    for name, configs in fams.items():
        fam = json.load(open(os.path.join(CORPUS, "compute", name + ".json")))
        fam["configs"] = configs
        fam["description"] += "; lab/2026-11-29-idlewarps: rows 1.6-6.4 times the block's working width"
        with open(os.path.join(HERE, "families", name + ".json"), "w") as fh:
            json.dump(fam, fh, indent=1, sort_keys=True)
            fh.write("\n")


def main():
    c = counters()
    timed = [json.loads(line) for line in open(os.path.join(RAW, "r1.jsonl"))]
    timed = [j for j in timed if "glups" in j]   # two blocks of 124 registers do not launch
    write_set(timed, c)
    with open(os.path.join(HERE, "table.csv"), "w") as fo:
        w = csv.writer(fo)
        w.writerow(["family", "kernel", "bx", "fz", "glups", "regs", "full_blocks", "ctas", "warps",
                    "active_share"])
        for j in timed:
            k = c.get((j["kernel"], j["block"][0]))
            if k is None:
                continue
            full = min(k["limit_regs"], k["limit_warps"], k["limit_blocks"])
            w.writerow([j["family"], j["kernel"], j["block"][0], j["folding"][2], j["glups"], k["regs"], full,
                        "%.3f" % k["ctas"], "%.2f" % k["warps"], "%.3f" % k["active_share"]])


if __name__ == "__main__":
    main()
