#!/usr/bin/env bash
# Measures the corpus on the GPU of this machine (run it through the `device` tool,
# see tests/accuracy/README.md). Needs a release build's corpus_measure and the shared
# libraries it links (carried in .carry/, made by lab/corpus-tools/pack.sh).
#   lab/corpus-tools/device_run.sh time|profile OUTDIR [FAMILY...]
# FAMILIES=DIR measures the family files of DIR instead of tests/accuracy/corpus/families
# (tests/accuracy/corpus/heldout: the held-out kernels).
# time: timings into OUTDIR/time.jsonl. profile: ncu counters of one run per
# configuration into OUTDIR/ncu.csv with the launch order in OUTDIR/order.txt.
# METRICS="a.sum b.sum ..." profiles those counters instead of the corpus' own
# (lab/2026-11-27-lrc does); either list keeps only what this GPU's ncu offers.
set -uo pipefail
mode=$1 out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export LD_LIBRARY_PATH="$root/.carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
bin="$root/.carry/corpus_measure"
fams="${FAMILIES:-$root/tests/accuracy/corpus/families}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
if [ "$mode" = time ]; then
  "$bin" time "$fams" "$out/time.jsonl" "$@"
  exit $?
fi
wanted="${METRICS:-gpu__time_duration.sum dram__bytes_read.sum dram__bytes_write.sum
lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcunit_tex_op_write.sum
lts__t_requests_srcunit_tex_op_read.sum lts__t_requests_srcunit_tex_op_write.sum l1tex__data_pipe_lsu_wavefronts.sum
l1tex__data_pipe_lsu_wavefronts_mem_lg.sum l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
sm__cycles_elapsed.avg.per_second launch__registers_per_thread
sm__warps_active.avg.pct_of_peak_sustained_active}"
ncu --query-metrics > "$out/metrics.txt" 2>&1
list=""
for m in $wanted; do
  base=${m%%.*}
  case $m in launch__*) list="$list,$m"; continue;; esac
  grep -q "^$base " "$out/metrics.txt" && list="$list,$m" || echo "not available: $m" >&2
done
ncu --csv --page raw --print-units base --clock-control none --cache-control all \
    -k lr_kernel --metrics "${list#,}" --log-file "$out/ncu.csv" \
    "$bin" profile "$fams" "$out/order.txt" "$@"
