#!/usr/bin/env python3
"""Reduce device_run.sh's output to one table: lab/2026-11-23-storemerge/h100.csv.

Usage: reduce.py RUNDIR [DATE] > h100.csv
       reduce.py --scatter RUNDIR [DATE] > h100_scatter.csv   (probe_scatter's table)
       reduce.py --rows RUNDIR [DATE] > h100_rows.csv         (probe_rows's table)
Per configuration: the L2 store sectors per lattice update (B/Lup, what reaches L2),
the L1 store sectors (B/Lup, every instruction's) and the unmerged share
(L2 - merged) / (L1 - merged), merged being the element size (every sector once)."""
import csv
import io
import sys
from collections import defaultdict

N = 1 << 25  # elements stored by every probe launch


def ncu_table(path):
    lines = [l for l in open(path) if l.startswith('"')]
    rows = list(csv.reader(io.StringIO("".join(lines))))
    head = rows[0]
    iid, iname, ival = head.index("ID"), head.index("Metric Name"), head.index("Metric Value")
    out = defaultdict(dict)
    for r in rows[1:]:
        out[int(r[iid])][r[iname]] = float(r[ival].replace(",", ""))
    return out


def store_bytes(x, n):
    """L2 and L1 store B/Lup of one profiled launch that stored n elements."""
    return (32 * x["lts__t_sectors_srcunit_tex_op_write.sum"] / n,
            32 * x["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] / n)


def scatter(run, date, gpu):
    """probe_scatter: the transposed copy folded F in y, blocks of bx x 256/bx. A warp's
    store instruction touches bx rows; merged, each row's run of (32/bx) x F elements
    completes its sectors once (B/Lup = element size x max(1, 32 / run bytes))."""
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["type", "fold_y", "block_x", "block_y", "store_lines_per_instruction", "glups",
                "l2_store_b_per_lup", "l1_store_b_per_lup", "merged_b_per_lup", "unmerged_share",
                "warps_active_pct", "gpu", "driver", "date"])
    m = ncu_table(f"{run}/scatter_ncu.csv")
    n = 8192 * 4096
    for line in open(f"{run}/scatter_time.csv"):
        p = line.strip().split(",")
        i, T, F, bx, by = int(p[0]), int(p[2]), int(p[3]), int(p[4]), int(p[5])
        x = m[i]
        l2, l1 = store_bytes(x, n)
        run_bytes = (32 // bx) * F * T
        merged = T * max(1.0, 32.0 / run_bytes)
        u = (l2 - merged) / (l1 - merged) if l1 > merged + 0.1 else 0.0
        lines = bx * max(1, -(-(32 // bx) * T // 128))
        w.writerow(["float" if T == 4 else "double", F, bx, by, lines, p[7], f"{l2:.2f}",
                    f"{l1:.2f}", f"{merged:.2f}", f"{u:.3f}",
                    f"{x['sm__warps_active.avg.pct_of_peak_sustained_active']:.1f}",
                    gpu[0], gpu[1], date])


def rows_table(run, date, gpu):
    """probe_rows: a W x H grid, each thread folded F in x stores F consecutive elements
    one past alignment, each the sum of R rows x (K+1) neighbours (stencil-shaped loads)."""
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["type", "fold_x", "rows", "loads_per_store", "block", "glups",
                "l2_store_b_per_lup", "l1_store_b_per_lup", "unmerged_share",
                "warps_active_pct", "gpu", "driver", "date"])
    m = ncu_table(f"{run}/rows_ncu.csv")
    n = 8192 * 4096
    for line in open(f"{run}/rows_time.csv"):
        p = line.strip().split(",")
        i, T, F, R, K, block = (int(v) for v in (p[0], p[2], p[3], p[4], p[5], p[6]))
        x = m[i]
        l2, l1 = store_bytes(x, n)
        u = (l2 - T) / (l1 - T) if l1 > T + 0.1 else 0.0
        w.writerow(["float" if T == 4 else "double", F, R, R * (K + 1), block, p[8],
                    f"{l2:.2f}", f"{l1:.2f}", f"{u:.3f}",
                    f"{x['sm__warps_active.avg.pct_of_peak_sustained_active']:.1f}",
                    gpu[0], gpu[1], date])


def main():
    args = sys.argv[1:]
    is_scatter = args[:1] == ["--scatter"]
    is_rows = args[:1] == ["--rows"]
    if is_scatter or is_rows:
        args = args[1:]
    run = args[0]
    date = args[1] if len(args) > 1 else ""
    gpu = open(f"{run}/gpu.txt").read().strip().replace(", ", ",").split(",")
    if is_scatter:
        scatter(run, date, gpu)
        return
    if is_rows:
        rows_table(run, date, gpu)
        return
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["probe", "type", "fold_x", "loads_per_store", "fma_before_store", "offset_elements",
                "block", "smem_kib", "glups", "l2_store_b_per_lup", "l1_store_b_per_lup",
                "unmerged_share", "warps_active_pct", "gpu", "driver", "date"])
    for probe in ("occupancy", "loads"):
        m = ncu_table(f"{run}/{probe}_ncu.csv")
        for line in open(f"{run}/{probe}_time.csv"):
            p = line.strip().split(",")
            i, name, T, F = int(p[0]), p[1], int(p[2]), int(p[3])
            if probe == "occupancy":
                loads, gap, off, block, smem, glups = int(p[4]), int(p[5]) * 16, 0, int(p[6]), int(p[7]), p[9]
            else:
                loads, gap, off, block, smem, glups = int(p[5]) + 1, 0, int(p[4]), int(p[6]), 0, p[8]
            x = m[i]
            l2, l1 = store_bytes(x, N)
            u = (l2 - T) / (l1 - T) if l1 > T + 0.1 else 0.0
            w.writerow([probe, "float" if T == 4 else "double", F, loads, gap, off, block,
                        smem // 1024, glups, f"{l2:.2f}", f"{l1:.2f}", f"{u:.3f}",
                        f"{x['sm__warps_active.avg.pct_of_peak_sustained_active']:.1f}",
                        gpu[0], gpu[1], date])


if __name__ == "__main__":
    main()
