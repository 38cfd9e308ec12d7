#!/usr/bin/env bash
# The sub-units behind Nsight Compute's L2, DRAM and L1 throughput figures (the
# "breakdown:" of lts__throughput, dram__throughput and l1tex__throughput), one
# profiled launch per configuration of the named corpus families, one ncu run per
# family (run it through the `device` tool with .carry/ from bench/corpus/pack.sh):
#   bench/stalls/breakdown.sh FAMILY...   -> $OUT/FAMILY.csv, $OUT/gpu.txt
# bench/stalls/reduce_breakdown.py $OUT > FILE keeps the figures README.md discusses.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export LD_LIBRARY_PATH="$root/.carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
m="gpu__time_duration.sum,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed"
m="$m,breakdown:dram__throughput.avg.pct_of_peak_sustained_elapsed"
m="$m,breakdown:l1tex__throughput.avg.pct_of_peak_sustained_active"
for f in "$@"; do
  start=$(date +%s)
  # a family takes 15-40 s on the H100; the timeout keeps one hung run from eating the call
  timeout 300 ncu --csv --page raw --print-units base --clock-control none \
    --cache-control all -k lr_kernel --metrics "$m" --log-file "$OUT/$f.csv" \
    "$root/.carry/corpus_measure" profile "$root/bench/corpus/families" \
    "$OUT/$f.order" "$f" > /dev/null 2>&1
  echo "$f: rc $? in $(( $(date +%s) - start )) s"
done
