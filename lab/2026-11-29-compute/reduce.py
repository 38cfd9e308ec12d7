#!/usr/bin/env python3
"""Reduces what the device runs of the compute corpus wrote (raw/) into the committed files.

    lab/2026-11-29-compute/reduce.py

- sass.csv: per kernel, the static SASS instruction counts by class (cuobjdump -sass of the
  very binary that ran, raw/sass.txt.gz), with ptxas's registers, stack and spills;
- sass.json: per kernel, the executed flops per lattice update from Nsight Compute's
  thread-level counters (2 x FFMA/DFMA + FADD/DADD + FMUL/DMUL, the predicated-on threads),
  which gen.py --families writes into each family's kernel.flops;
- tests/accuracy/corpus/h200_compute.jsonl: one line per configuration (runs 2 and 3) in the
  corpus' schema (tests/accuracy/README.md) plus the instruction mix, occupancy and stall counters;
- h200.csv: the same, one flat row per configuration, for reading.
Run gen.py --families after it (the family files take sass.json's flops), then this again
is not needed: the .jsonl does not depend on the family files' flops.

    lab/2026-11-29-compute/reduce.py --heldout

does the same for the held-out families (run 4): raw/run4_*, raw/ptxas_heldout.txt ->
sass_heldout.csv, sass_heldout.json, h200_heldout.csv and
tests/accuracy/corpus/h200_compute_heldout.jsonl (family files in compute_heldout/).
"""
import csv
import gzip
import io
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
RAW = os.path.join(HERE, "raw")
sys.path.insert(0, HERE)
from gen import read_ptxas  # noqa: E402

CLASSES = [
    ("fp32_fma", {"FFMA"}), ("fp32_add", {"FADD"}), ("fp32_mul", {"FMUL"}),
    ("fp32_other", {"FSETP", "FSEL", "FCHK", "FMNMX", "FRND", "FSET"}),
    ("fp64_fma", {"DFMA"}), ("fp64_add", {"DADD"}), ("fp64_mul", {"DMUL"}),
    ("fp64_other", {"DSETP", "DMNMX"}),
    ("mufu", {"MUFU"}),
    ("int", {"IMAD", "IADD3", "LOP3", "ISETP", "SHF", "LEA", "SEL", "VIADD", "VIMNMX",
             "VIADDMNMX", "FLO", "IMNMX", "PLOP3", "IABS", "POPC", "BREV", "PRMT"}),
    ("mov", {"MOV", "HFMA2", "CS2R"}),
    ("convert", {"I2F", "F2I", "F2F", "I2FP", "F2IP"}),
    ("ld_global", {"LDG"}), ("st_global", {"STG"}), ("ld_local", {"LDL"}),
    ("st_local", {"STL"}), ("ld_const", {"LDC"}),
    ("control", {"BRA", "EXIT", "BSSY", "BSYNC", "CALL", "RET", "NOP", "WARPSYNC", "BAR"}),
]
INS = re.compile(r"^\s+/\*[0-9a-f]{4}\*/\s+(?:@!?U?P[0-9T]\s+)?([A-Z0-9_]+)((?:\.[A-Z0-9_]+)*)")


def sass_counts(path="run3_sass.txt.gz"):
    out, cur = {}, None
    # run 3's binary holds every kernel; the 19 of run 2 have the same SASS as in run 1's
    with gzip.open(os.path.join(RAW, path), "rt") as fh:
        for line in fh:
            m = re.search(r"Function : (\S+)", line)
            if m:
                cur = m.group(1) if m.group(1).startswith("ck_") else None
                if cur:
                    out[cur] = {"ops": {}, "mufu_ops": {}}
                continue
            m = INS.match(line)
            if not m or not cur:
                continue
            op = m.group(1)
            out[cur]["ops"][op] = out[cur]["ops"].get(op, 0) + 1
            if op == "MUFU":
                sub = m.group(2).lstrip(".")
                out[cur]["mufu_ops"][sub] = out[cur]["mufu_ops"].get(sub, 0) + 1
    table = {}
    for k, d in out.items():
        row = {c: 0 for c, _ in CLASSES}
        row["uniform"] = row["other"] = 0
        for op, n in d["ops"].items():
            cls = next((c for c, s in CLASSES if op in s), None)
            if cls is None:
                cls = "uniform" if op.startswith("U") or op in ("S2UR", "R2UR") else "other"
            row[cls] += n
        row["total"] = sum(d["ops"].values())
        row["mufu_ops"] = " ".join(f"{s}:{n}" for s, n in sorted(d["mufu_ops"].items()))
        row["other_ops"] = " ".join(
            f"{op}:{n}" for op, n in sorted(d["ops"].items())
            if not any(op in s for _, s in CLASSES) and not op.startswith("U")
            and op not in ("S2UR", "R2UR"))
        table[k] = row
    return table


def num(s):
    return float(s.replace(",", "")) if s not in ("", "n/a", None) else None


def load_ncu(path, order_path):
    """{(family, block, folding): {metric: value}} from device_run.sh's joined files."""
    def split(text):
        parts, tag = {}, None
        for line in text.splitlines():
            if line.startswith("### "):
                tag = line[4:].strip()
                parts[tag] = []
            elif tag:
                parts[tag].append(line)
        return parts
    opener = gzip.open if path.endswith(".gz") else open
    ncu = split(opener(path, "rt").read())
    order = split(open(order_path).read())
    out = {}
    for fam, lines in ncu.items():
        rows = list(csv.reader(io.StringIO("\n".join(l for l in lines if l.startswith('"')))))
        hdr, data = rows[0], rows[2:]          # rows[1]: units
        ords = [r for r in csv.DictReader(io.StringIO("\n".join(order[fam])))
                if r["status"] == "ok"]
        if len(ords) != len(data):
            sys.exit(f"{fam}: {len(ords)} launches but {len(data)} profiled kernels")
        for o, r in zip(ords, data):
            rec = dict(zip(hdr, r))
            if rec["Kernel Name"] != o["kernel"]:
                sys.exit(f"{fam}: kernel {rec['Kernel Name']} where order.csv says {o['kernel']}")
            key = (fam, (int(o["bx"]), int(o["by"]), int(o["bz"])),
                   (int(o["fx"]), int(o["fy"]), int(o["fz"])))
            out[key] = rec
    return out


def main():
    held = "--heldout" in sys.argv[1:]
    tag = "_heldout" if held else ""
    ptxas = read_ptxas(os.path.join(RAW, f"ptxas{tag}.txt"))
    sass = sass_counts("run4_sass.txt.gz" if held else "run3_sass.txt.gz")
    # run 2 measured the first 14 families, run 3 (another lease, the same day) four more;
    # run 4 the held-out families
    t1, t2, prof, run_of = [], {}, {}, {}
    for run in (("run4",) if held else ("run2", "run3")):
        info = open(os.path.join(RAW, f"{run}_info.txt")).read()
        driver = re.search(r"NVIDIA H200, ([0-9.]+),", info).group(1)
        date = re.search(r"call_start_utc (\d{4}-\d\d-\d\d)", info).group(1)
        for r in map(json.loads, open(os.path.join(RAW, f"{run}_t1.jsonl"))):
            r["_driver"], r["_date"] = driver, date
            run_of[r["family"]] = run
            t1.append(r)
        t2.update({(r["family"], tuple(r["block"]), tuple(r["folding"])): r
                   for r in map(json.loads, open(os.path.join(RAW, f"{run}_t2.jsonl")))})
        prof.update(load_ncu(os.path.join(RAW, f"{run}_ncu.csv.gz"),
                             os.path.join(RAW, f"{run}_order.csv")))
    fams = {}
    lines, flat = [], []
    flops_by_kernel = {}
    for r in t1:
        fam = r["family"]
        if fam not in fams:
            fams[fam] = json.load(open(os.path.join(ROOT, "tests", "accuracy", "corpus",
                                                    "compute" + tag, fam + ".json")))
        d = fams[fam]["domain"]
        lups = d[0] * d[1] * d[2]
        key = (fam, tuple(r["block"]), tuple(r["folding"]))
        rec = {"family": fam, "block": r["block"], "folding": r["folding"], "gpu": r["gpu"],
               "driver": r["_driver"], "cuda": r["driver_api"] / 1000, "date": r["_date"]}
        if "error" in r:
            rec["error"] = r["error"]
            lines.append(rec)
            continue
        rec["ms"] = r["ms_median"]
        rec["glups"] = round(r["glups"], 4)
        r2 = t2.get(key)
        if r2 and "glups" in r2:
            rec["glups_repeat"] = round(r2["glups"], 4)
        p = prof.get(key)
        k = r["kernel"]
        px = ptxas[k]
        if p:
            g = lambda m: num(p.get(m))  # noqa: E731
            per = lambda m, n=4: None if g(m) is None else round(g(m) / lups, n)  # noqa: E731
            c = {
                "dram_load": per("dram__bytes_read.sum"),
                "dram_store": per("dram__bytes_write.sum"),
                "l2_load": round(32 * g("lts__t_sectors_srcunit_tex_op_read.sum") / lups, 4),
                "l2_store": round(32 * g("lts__t_sectors_srcunit_tex_op_write.sum") / lups, 4),
                "l2_load_requests": per("lts__t_requests_srcunit_tex_op_read.sum", 5),
                "l2_store_requests": per("lts__t_requests_srcunit_tex_op_write.sum", 5),
                "l1_wavefronts": per("l1tex__data_pipe_lsu_wavefronts.sum", 5),
                "l1_load_requests": per("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 5),
                "l1_load_sectors": per("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 5),
                "registers": int(g("launch__registers_per_thread")),
                "warps_active_pct": g("sm__warps_active.avg.pct_of_peak_sustained_active"),
                "sm_clock_ghz": round(g("sm__cycles_elapsed.avg.per_second") / 1e9, 4),
                "profiled_ms": round(g("gpu__time_duration.sum") / 1e6, 5),
            }
            # what issue 43 item 3 needs: warp instructions per lattice update by pipe,
            # thread-level floating-point instructions, occupancy limits and stalls
            c["inst"] = {
                "all": per("smsp__inst_executed.sum"),
                **{pipe: per(f"sm__inst_executed_pipe_{pipe}.sum")
                   for pipe in ("fma", "fmaheavy", "fmalite", "fp64", "xu", "alu", "lsu",
                                "adu", "cbu", "uniform")}}
            c["thread_fp"] = {op: per(f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum")
                              for op in ("ffma", "fadd", "fmul", "dfma", "dadd", "dmul")}
            c["issue_active_pct"] = g("smsp__issue_active.avg.pct_of_peak_sustained_active")
            c["pipe_active_pct"] = {
                pipe: g(f"sm__pipe_{pipe}_cycles_active.avg.pct_of_peak_sustained_active")
                for pipe in ("fma", "fp64", "alu")}
            c["occupancy_limit_blocks"] = {
                lim: g(f"launch__occupancy_limit_{lim}")
                for lim in ("registers", "warps", "blocks")}
            c["waves_per_sm"] = g("launch__waves_per_multiprocessor")
            c["stalls_per_issue"] = {
                s: g(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio")
                for s in ("long_scoreboard", "lg_throttle", "math_pipe_throttle", "wait",
                          "short_scoreboard", "not_selected", "drain", "dispatch_stall",
                          "no_instruction")}
            tf = c["thread_fp"]
            fl = 2 * (tf["ffma"] + tf["dfma"]) + tf["fadd"] + tf["fmul"] + tf["dadd"] + tf["dmul"]
            c["flops"] = round(fl, 3)
            flops_by_kernel.setdefault(k, []).append(fl)
            rec["counters"] = c
        rec["ptxas"] = {"kernel": k, **px}
        lines.append(rec)
        flat.append({"family": fam, "run": run_of[fam][-1], "block": "x".join(map(str, r["block"])),
                     "folding": "x".join(map(str, r["folding"])), "registers": px["registers"],
                     "ms": r["ms_median"], "glups": round(r["glups"], 3),
                     "glups_repeat": rec.get("glups_repeat"),
                     "dram_B": None if not p else round(c["dram_load"] + c["dram_store"], 2),
                     "dram_TBs": None if not p else round(
                         (c["dram_load"] + c["dram_store"]) * r["glups"] / 1000, 3),
                     "l2_load_B": None if not p else c["l2_load"],
                     "l1_wavefronts": None if not p else c["l1_wavefronts"],
                     "flops": None if not p else c["flops"],
                     "inst_per_lup": None if not p else c["inst"]["all"],
                     "warps_active_pct": None if not p else c["warps_active_pct"],
                     "issue_active_pct": None if not p else c["issue_active_pct"],
                     "fma_pipe_pct": None if not p else c["pipe_active_pct"]["fma"],
                     "fp64_pipe_pct": None if not p else c["pipe_active_pct"]["fp64"],
                     "sm_clock_ghz": None if not p else c["sm_clock_ghz"]})
    with open(os.path.join(ROOT, "tests", "accuracy", "corpus", f"h200_compute{tag}.jsonl"),
              "w") as fh:
        for rec in lines:
            fh.write(json.dumps(rec) + "\n")
    with open(os.path.join(HERE, f"h200{tag}.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(flat[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(flat)
    cols = [c for c, _ in CLASSES] + ["uniform", "other", "total"]
    with open(os.path.join(HERE, f"sass{tag}.csv"), "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["kernel", "registers", "stack", "spill_stores", "spill_loads"] + cols +
                   ["mufu_ops", "other_ops"])
        for k in sorted(sass):
            px = ptxas[k]
            w.writerow([k, px["registers"], px["stack"], px["spill_stores"], px["spill_loads"]] +
                       [sass[k][c] for c in cols] + [sass[k]["mufu_ops"], sass[k]["other_ops"]])
    sj = {}
    for k, v in sorted(flops_by_kernel.items()):
        sj[k] = {"flops_per_update": round(statistics.median(v), 3),
                 "flops_min": round(min(v), 3), "flops_max": round(max(v), 3)}
    with open(os.path.join(HERE, f"sass{tag}.json"), "w") as fh:
        json.dump(sj, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print(f"{len(lines)} configurations, {len(sass)} kernels", file=sys.stderr)
    if held:
        d = [abs(r["glups_repeat"] / r["glups"] - 1) for r in lines if "glups_repeat" in r]
        print(f"second pass against the first: median |difference| "
              f"{100 * statistics.median(d):.2f} %, largest {100 * max(d):.2f} %", file=sys.stderr)
        return
    # four families of run 2 timed again in run 3 (another lease): how far apart
    first = {(r["family"], tuple(r["block"]), tuple(r["folding"])): r for r in t1}
    again = [json.loads(l) for l in open(os.path.join(RAW, "run3_x.jsonl"))]
    for fam in sorted({r["family"] for r in again}):
        d = [abs(r["glups"] / first[(fam, tuple(r["block"]), tuple(r["folding"]))]["glups"] - 1)
             for r in again if r["family"] == fam]
        print(f"run 3 against run 2, {fam}: {len(d)} configurations, |difference| median "
              f"{100 * statistics.median(d):.2f} %, largest {100 * max(d):.2f} %", file=sys.stderr)


if __name__ == "__main__":
    main()
