#!/usr/bin/env python3
"""Prints the L1 data-pipe wavefronts per warp instruction of each l1wave.cu case from
the Nsight Compute CSV that l1wave.sh writes (default: the committed h100.csv).
Usage: analyse.py [FILE.csv]"""
import collections
import csv
import os
import sys

# l1wave.cu launches the cases in this order
CASES = ["f32 load, miss, aligned", "f32 load, miss, +1 element", "f32 load, miss, +2 elements",
         "f32 load, hit, aligned", "f32 load, hit, +1 element", "f32 load, hit, +2 elements",
         "f64 load, miss, aligned", "f64 load, miss, +1 element", "f64 load, miss, +2 elements",
         "f64 load, hit, aligned", "f64 load, hit, +1 element", "f64 load, hit, +2 elements",
         "f32 two loads (0, +1)", "f64 two loads (0, +1)", "f32 three loads (-1, 0, +1)",
         "f64 three loads (-1, 0, +1)", "f32 store +1 element", "f64 store +1 element",
         "f32 load stride 2", "f32 load stride 32", "f64 load stride 2", "f64 load stride 16"]


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "h100.csv")
    rows = list(csv.reader(open(path)))
    start = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    hdr = rows[start]
    col = {k: hdr.index(k) for k in ("ID", "Metric Name", "Metric Value")}
    kern = collections.OrderedDict()
    for r in rows[start + 1:]:
        if len(r) == len(hdr) and r[col["Metric Value"]] != "n/a":
            kern.setdefault(r[col["ID"]], {})[r[col["Metric Name"]]] = float(
                r[col["Metric Value"]].replace(",", ""))
    print("%-30s %9s %9s %8s %8s" % ("case (each with one aligned store)", "wf/warp", "ld+st",
                                      "ld hit %", "sect/ld"))
    for name, m in zip(CASES, kern.values()):
        ld, st = m["smsp__inst_executed_op_global_ld.sum"], m["smsp__inst_executed_op_global_st.sum"]
        hit = m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"]
        miss = m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum"]
        warps = st  # every case stores once per thread
        print("%-30s %9.3f %4.0f+%-4.0f %8.1f %8.2f" % (
            name, m["l1tex__data_pipe_lsu_wavefronts.sum"] / warps, ld / warps, st / warps,
            100 * hit / (hit + miss), (hit + miss) / ld))
    print("wf/warp: l1tex__data_pipe_lsu_wavefronts.sum per warp (all its instructions); "
          "ld+st: global load and store instructions per warp")


if __name__ == "__main__":
    main()
