#!/usr/bin/env bash
# yfold experiment: SASS of the emitted kernels, timings and ncu of y/z folding pairs
# in the original layout (yf_orig) and with the y and z strides swapped (yf_trans).
set -uo pipefail
C=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$C/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
B="$C/corpus_measure"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
mkdir -p /tmp/s && cd /tmp/s
for f in "$C"/cu/*.cu; do n=$(basename $f .cu)
  ( nvcc -arch=sm_90 -cubin -Xptxas -v -o $n.cubin $f > $n.ptxas 2>&1; cuobjdump -sass $n.cubin > $n.sass 2>&1 ) &
done; wait
tar czf $OUT/sass.tgz *.sass *.ptxas
echo "sass done $(date +%T)"
"$B" time "$C/fam" $OUT/time.jsonl > $OUT/time.log 2>&1; echo "time rc=$? $(date +%T)"
ncu --query-metrics > /tmp/metrics.txt 2>&1
want="gpu__time_duration.sum sm__warps_active.avg.pct_of_peak_sustained_active sm__cycles_active.avg
sm__cycles_elapsed.avg smsp__inst_executed.sum smsp__issue_active.avg.pct_of_peak_sustained_active
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
l1tex__data_pipe_lsu_wavefronts_mem_lg.sum l1tex__t_set_conflicts_pipe_lsu_mem_global_op_ld.sum
l1tex__t_set_accesses_pipe_lsu_mem_global_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_global_op_ld.sum
l1tex__m_xbar2l1tex_read_sectors.sum l1tex__lsu_writeback_active.avg.pct_of_peak_sustained_active
l1tex__throughput.avg.pct_of_peak_sustained_active l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_active
lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum lts__t_sector_hit_rate.pct
dram__bytes_read.sum dram__bytes_write.sum lts__throughput.avg.pct_of_peak_sustained_elapsed
l1tex__m_l1tex2xbar_req.sum sm__ctas_launched.sum smsp__warps_launched.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_ld_miss.sum launch__registers_per_thread launch__occupancy_limit_registers"
list=""; for m in $want; do base=${m%%.*}
  case $m in launch__*) list="$list,$m"; continue;; esac
  grep -q "^$base " /tmp/metrics.txt && list="$list,$m" || echo "not available: $m"; done
timeout 200 ncu --csv --page raw --print-units base --clock-control none --cache-control all -k lr_kernel \
  --section WarpStateStats --section SchedulerStats --section Occupancy --metrics "${list#,}" \
  --log-file $OUT/ncu.csv "$B" profile "$C/fam" $OUT/order.txt > $OUT/ncu.log 2>&1; echo "ncu rc=$? $(date +%T)"
timeout 120 ncu --csv --page source --print-source sass --clock-control none -k lr_kernel --launch-count 2 \
  --section SourceCounters --section WarpStateStats --log-file $OUT/src.csv \
  "$B" profile "$C/fam" /tmp/order2.txt yf_orig > $OUT/src.log 2>&1; echo "src rc=$? $(date +%T)"
gzip -f $OUT/src.csv; ls -la $OUT
