#!/usr/bin/env bash
# The sub-units behind Nsight Compute's L2, DRAM and L1 throughput figures (the
# "breakdown:" of lts__throughput, dram__throughput and l1tex__throughput), one
# profiled launch per configuration of the named corpus families, one ncu run per
# family (run it through the `device` tool with .carry/ from lab/corpus-tools/pack.sh):
#   lab/2026-11-23-stalls/breakdown.sh FAMILY...   -> $OUT/FAMILY.csv, $OUT/FAMILY.order, $OUT/gpu.txt
# lab/2026-11-23-stalls/reduce_breakdown.py $OUT > FILE keeps the figures README.md discusses.
# FAMILIES_DIR (default tests/accuracy/corpus/families) profiles other families, METRICS_EXTRA
# (a comma list) adds counters: lab/2026-11-23-align/profile.sh runs it so. An @ in a family's
# name becomes _ in the file names (the device tool brings back no name with an @).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export LD_LIBRARY_PATH="$root/.carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
m="gpu__time_duration.sum,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed"
m="$m,breakdown:dram__throughput.avg.pct_of_peak_sustained_elapsed"
m="$m,breakdown:l1tex__throughput.avg.pct_of_peak_sustained_active${METRICS_EXTRA:+,$METRICS_EXTRA}"
families=${FAMILIES_DIR:-$root/tests/accuracy/corpus/families}
for f in "$@"; do
  o=${f/@/_}
  start=$(date +%s)
  # a family takes 15-40 s on the H100; the timeout keeps one hung run from eating the call
  timeout 300 ncu --csv --page raw --print-units base --clock-control none \
    --cache-control all -k lr_kernel --metrics "$m" --log-file "$OUT/$o.csv" \
    "$root/.carry/corpus_measure" profile "$families" "$OUT/$o.order" "$f" > /dev/null 2>&1
  echo "$f: rc $? in $(( $(date +%s) - start )) s"
done
