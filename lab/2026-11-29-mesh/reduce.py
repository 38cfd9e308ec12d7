#!/usr/bin/env python3
"""Joins the device run's timings and Nsight Compute counters into one row per instance,
ordering, precision and block size.

  python3 lab/2026-11-29-mesh/reduce.py lab/2026-11-29-mesh/raw/run1_ lab/2026-11-29-mesh/raw/run2_ \
      lab/2026-11-29-mesh/raw/run3_ \
      > lab/2026-11-29-mesh/h200.csv

Each PREFIX names what one device run brought back (PREFIXtime.csv, PREFIXncu.csv,
PREFIXorder.csv). The timings are those of the first run that timed the configuration; a
later run's GLup/s for it is kept as glups_repeat (the same timing again, for the spread). Counters of all runs are merged per
configuration (run 1 profiled the DRAM, L2 and L1-sector counters, run 2 the L1 wavefronts
and instructions, run 3 both for its new block sizes). Counters are per cell (divided by n): bytes for DRAM (dram__bytes_*),
bytes for L2 <- L1 (lts__t_sectors_srcunit_tex_* times 32: l2_load, l2_store, l2_load_hit),
requests, sectors and wavefronts as counts for L1 (l1_wavefronts is l1tex__data_pipe_lsu_wavefronts,
loads and stores: the kernel uses no shared memory; this ncu (2025.3.1) has no
..._mem_lg_cmd_read). Blank where that configuration was not profiled.
"""
import csv, sys, os

M = {
    "dram_read": ("dram__bytes_read.sum", 1),
    "dram_write": ("dram__bytes_write.sum", 1),
    "l2_load": ("lts__t_sectors_srcunit_tex_op_read.sum", 32),
    "l2_store": ("lts__t_sectors_srcunit_tex_op_write.sum", 32),
    "l2_load_hit": ("lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", 32),
    "l2_load_requests": ("lts__t_requests_srcunit_tex_op_read.sum", 1),
    "l1_ld_sectors": ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1),
    "l1_ld_sectors_hit": ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", 1),
    "l1_ld_requests": ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 1),
    "l1_st_sectors": ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 1),
    "l1_ld_sectors_miss": ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum", 1),
    "l1_wavefronts": ("l1tex__data_pipe_lsu_wavefronts.sum", 1),
    "ld_instructions": ("smsp__inst_executed_op_global_ld.sum", 1),
}


def num(s):
    s = (s or "").replace(",", "")
    return float(s) if s not in ("", "n/a") else None


def sections(path):
    """### tag blocks of a concatenated file -> {tag: [lines]}"""
    out, tag = {}, None
    for line in open(path):
        if line.startswith("### "):
            tag = line[4:].strip()
            out[tag] = []
        elif tag is not None:
            out[tag].append(line)
    return out


rows, prof, rep = {}, {}, {}
for d in sys.argv[1:]:
    t = d + "time.csv"
    if os.path.exists(t):
        for r in csv.DictReader(open(t)):
            k = (r["instance"], r["ordering"], r["prec"], int(r["block"]))
            if k in rows:
                rep[k] = r["glups"]
            else:
                rows[k] = r
    nc, oc = d + "ncu.csv", d + "order.csv"
    if not (os.path.exists(nc) and os.path.exists(oc)):
        continue
    ns, os_ = sections(nc), sections(oc)
    for tag, lines in ns.items():
        data = list(csv.reader(lines))
        h = next((i for i, r in enumerate(data) if r and r[0] == "ID"), None)
        if h is None:
            print(f"{d} {tag}: no ncu rows", file=sys.stderr)
            continue
        hdr, krows = data[h], [r for r in data[h + 2:] if r and r[0].isdigit()]
        order = list(csv.DictReader(os_.get(tag, [])))
        if len(order) != len(krows):
            print(f"{d} {tag}: {len(order)} launches, {len(krows)} profiled; keeping the first "
                  f"{min(len(order), len(krows))}", file=sys.stderr)
        for o, k in zip(order, krows):
            key = (o["instance"], o["ordering"], o["prec"], int(o["block"]))
            old = prof.get(key, (0, {}))[1]
            old.update({h_: v for h_, v in zip(hdr, k) if v != ""})
            prof[key] = (int(o["n"]), old)

keys = sorted(set(rows) | set(prof), key=lambda k: (
    k[0] != "blocks", k[0], int(k[1]) if k[1].isdigit() else 0,
    ["given", "random", "rcm", "metis64", "metis1024", "metis16384"].index(k[1]) if not k[1].isdigit() else 0,
    k[2] != "f64", k[3]))
cols = ["instance", "ordering", "b", "n", "prec", "block", "glups", "time_us", "glups_warm",
        "time_warm_us", "glups_repeat", "relerr", "regs", "ncu_time_us", "sm_cycles"] + list(M)
w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(cols)
for k in keys:
    r = rows.get(k, {})
    n, p = prof.get(k, (None, {}))
    n = n or int(r["n"])
    b = k[1] if k[0] == "blocks" else ""
    out = [k[0], k[1], b, n, k[2], k[3], r.get("glups", ""), r.get("time_us", ""),
           r.get("glups_warm", ""), r.get("time_warm_us", ""), rep.get(k, ""), r.get("relerr", "")]
    regs = num(p.get("launch__registers_per_thread"))
    t = num(p.get("gpu__time_duration.sum"))
    cyc = num(p.get("sm__cycles_elapsed.avg"))
    out += ["" if regs is None else int(regs), "" if t is None else f"{t / 1e3:.3f}",
            "" if cyc is None else int(cyc)]
    for name, (metric, scale) in M.items():
        v = num(p.get(metric))
        out.append("" if v is None else f"{v * scale / n:.4f}")
    w.writerow(out)
