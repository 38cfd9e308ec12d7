#!/usr/bin/env python3
"""The L2 write requests the H100's counters count against model v2's
store_requests_per_update (docs/model.md, "Merged store requests").

  requests.py ACCURACY NCU_DIR... > h100_requests.csv

Each NCU_DIR holds what `ncu --csv --page raw --metrics
lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,
l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
-k lr_kernel corpus_measure profile tests/accuracy/corpus/families order.txt FAMILY...` wrote
(ncu.csv, order.txt); ACCURACY is tests/accuracy/accuracy, whose --dump gives the model's
figures for the same configurations. One row per configuration, per lattice update."""
import csv
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "lab"))
from lrlab import load_profile, num  # noqa: E402


def main():
    accuracy, dirs = sys.argv[1], sys.argv[2:]
    meas = {}
    for d in dirs:
        meas.update(load_profile(d))
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["family", "block", "folding", "l2_write_requests", "l2_write_sectors",
                  "l1_store_instructions", "l1_store_sectors", "model_store_requests",
                  "gpu", "date"])
    for fam in sorted({f for f, _ in meas}):
        spec = json.load(open(os.path.join(ROOT, "tests/accuracy/corpus/families", fam + ".json")))
        n = spec["domain"][0] * spec["domain"][1] * spec["domain"][2]
        with tempfile.NamedTemporaryFile(suffix=".jsonl") as t:
            subprocess.run([accuracy, "--family", fam, "--dump", t.name],
                           capture_output=True, check=True)
            model = [json.loads(line) for line in open(t.name)]
        for i, c in enumerate(spec["configs"]):
            if (fam, i) not in meas:
                continue
            m = meas[(fam, i)]

            def per_update(key):
                return num(m[key]) / n
            out.writerow([fam, "x".join(map(str, c[:3])), "x".join(map(str, c[3:])),
                          "%.4f" % per_update("lts__t_requests_srcunit_tex_op_write.sum"),
                          "%.4f" % per_update("lts__t_sectors_srcunit_tex_op_write.sum"),
                          "%.4f" % per_update("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
                          "%.4f" % per_update("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
                          "%.4f" % model[i]["volumes"]["l2_store_requests"],
                          "NVIDIA H100 80GB HBM3", "2026-11-27"])


if __name__ == "__main__":
    main()
