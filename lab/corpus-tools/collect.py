#!/usr/bin/env python3
"""Joins what lab/corpus-tools/device_run.sh wrote on the GPU machine into the committed
corpus file: one JSON line per configuration with the measured time (cudagen, L2
flushed, median of 10 runs after 3 warm-ups), a second independent timing run, and the
profiler's counters turned into per-lattice-update figures (the model's units).

  collect.py [--families DIR] OUT.jsonl TIME.jsonl TIME2.jsonl GPU.txt PROFILE_DIR [...]

--families: the family files measured (default tests/accuracy/corpus/families; the held-out
kernels are tests/accuracy/corpus/heldout).

Each PROFILE_DIR holds order.txt (family, configuration index, ok|error in launch
order) and ncu.csv (one row per lr_kernel launch, same order).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from lrlab import load_profile, num  # noqa: E402,F401


def main():
    args = sys.argv[1:]
    fam_dir = os.path.join(HERE, "..", "..", "tests", "accuracy", "corpus", "families")
    if args[:1] == ["--families"]:
        fam_dir, args = args[1], args[2:]
    out_path, t1, t2, gpu_txt, *pdirs = args
    gpu_line = open(gpu_txt).read().splitlines()[1].split(", ")
    driver = gpu_line[1]
    prof = {}
    for d in pdirs:
        prof.update(load_profile(d))
    second = {}
    for line in open(t2):
        r = json.loads(line)
        second[(r["family"], tuple(r["block"]), tuple(r["folding"]))] = r
    fams = {}
    n = 0
    with open(out_path, "w") as out:
        for line in open(t1):
            r = json.loads(line)
            fam = r["family"]
            if fam not in fams:
                fams[fam] = json.load(open(os.path.join(fam_dir, fam + ".json")))
            f = fams[fam]
            cfg = r["block"] + r["folding"]
            idx = f["configs"].index(cfg)
            lups = f["domain"][0] * f["domain"][1] * f["domain"][2]
            rec = {"family": fam, "block": r["block"], "folding": r["folding"],
                   "gpu": r["gpu"], "driver": driver, "cuda": r["driver"] / 1000,
                   "date": r["date"]}
            if "error" in r:
                rec["error"] = r["error"]
                out.write(json.dumps(rec) + "\n")
                continue
            rec["ms"] = r["ms_median"]
            rec["glups"] = round(r["glups"], 4)
            r2 = second.get((fam, tuple(r["block"]), tuple(r["folding"])))
            if r2 and "glups" in r2:
                rec["glups_repeat"] = round(r2["glups"], 4)
            p = prof.get((fam, idx))
            if p:
                g = lambda k: num(p[k])
                rec["counters"] = {
                    "dram_load": round(g("dram__bytes_read.sum") / lups, 4),
                    "dram_store": round(g("dram__bytes_write.sum") / lups, 4),
                    "l2_load": round(32 * g("lts__t_sectors_srcunit_tex_op_read.sum") / lups, 4),
                    "l2_store": round(32 * g("lts__t_sectors_srcunit_tex_op_write.sum") / lups, 4),
                    "l2_load_requests": round(g("lts__t_requests_srcunit_tex_op_read.sum") / lups, 5),
                    "l1_wavefronts": round(g("l1tex__data_pipe_lsu_wavefronts.sum") / lups, 5),
                    "l1_load_requests": round(g("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum") / lups, 5),
                    "l1_load_sectors": round(g("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") / lups, 5),
                    "registers": int(g("launch__registers_per_thread")),
                    "warps_active_pct": g("sm__warps_active.avg.pct_of_peak_sustained_active"),
                    "sm_clock_ghz": round(g("sm__cycles_elapsed.avg.per_second") / 1e9, 4),
                    "profiled_ms": round(g("gpu__time_duration.sum") / 1e6, 5),
                }
                # profiles since 2026-11-27 (after model 2026.11-25) also count the
                # write requests (docs/model.md, "Merged store requests")
                if "lts__t_requests_srcunit_tex_op_write.sum" in p:
                    rec["counters"]["l2_store_requests"] = round(
                        g("lts__t_requests_srcunit_tex_op_write.sum") / lups, 5)
            out.write(json.dumps(rec) + "\n")
            n += 1
    print(f"{n} configurations -> {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
