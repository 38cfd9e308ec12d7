#!/usr/bin/env bash
# Times the families of lab/2026-11-23-align/families (make_families.py) on the GPU of this
# machine, twice; run it through the `device` tool with .carry/ from
# lab/corpus-tools/pack.sh carried (about 5 minutes on the H100):
#   lab/2026-11-23-align/run.sh   -> $OUT/time1.jsonl, $OUT/time2.jsonl, $OUT/gpu.txt
# then here: lab/2026-11-23-align/reduce.py time1.jsonl time2.jsonl gpu.txt > lab/2026-11-23-align/h100.csv
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export LD_LIBRARY_PATH="$root/.carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
for pass in 1 2; do
  "$root/.carry/corpus_measure" time "$root/lab/2026-11-23-align/families" "$OUT/time$pass.jsonl" || exit
done
