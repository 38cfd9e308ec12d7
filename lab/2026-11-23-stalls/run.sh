#!/usr/bin/env bash
# Nsight Compute's throughput and warp-state sections for corpus families, one profiled
# launch per configuration (run it through the `device` tool with .carry/ from
# lab/corpus-tools/pack.sh; $OUT is the device tool's output folder):
#   lab/2026-11-23-stalls/run.sh FAMILY...   -> $OUT/ncu.csv, $OUT/order.txt, $OUT/gpu.txt
# lab/2026-11-23-stalls/reduce.py then keeps the figures README.md discusses.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export LD_LIBRARY_PATH="$root/.carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
ncu --csv --page raw --print-units base --clock-control none --cache-control all \
    -k lr_kernel --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats \
    --metrics lts__t_sectors_op_write.sum,lts__t_requests_op_write.sum,dram__sectors_read.sum,dram__sectors_write.sum \
    --log-file "$OUT/ncu.csv" "$root/.carry/corpus_measure" profile \
    "$root/tests/accuracy/corpus/families" "$OUT/order.txt" "$@"
