#!/usr/bin/env bash
# Deep against flat blocks of Ernst et al.'s kernel (all folded 2 in z but three): timings and
# ncu with warp states, L1 hit/miss and the L1's pending-miss counters. Runs from an ignored
# carry folder holding corpus_measure, its libraries and fam/ (README.md beside this).
set -uo pipefail
C=${CARRY:?carry folder}
export LD_LIBRARY_PATH="$C/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
B="$C/corpus_measure"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
"$B" time "$C/fam" $OUT/time.jsonl > $OUT/time.log 2>&1; echo "time rc=$? $(date +%T)"
ncu --query-metrics > /tmp/metrics.txt 2>&1
want="gpu__time_duration.sum sm__warps_active.avg.pct_of_peak_sustained_active smsp__inst_executed.sum
smsp__issue_active.avg.pct_of_peak_sustained_active
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
l1tex__data_pipe_lsu_wavefronts_mem_lg.sum l1tex__t_set_conflicts_pipe_lsu_mem_global_op_ld.sum
l1tex__m_xbar2l1tex_read_sectors.sum l1tex__throughput.avg.pct_of_peak_sustained_active
l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_active
lts__t_sectors_srcunit_tex_op_read.sum lts__t_requests_srcunit_tex_op_read.sum lts__t_sector_hit_rate.pct
dram__bytes_read.sum dram__bytes_write.sum lts__throughput.avg.pct_of_peak_sustained_elapsed
l1tex__m_l1tex2xbar_req.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld_miss.sum
smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
launch__registers_per_thread"
list=""; for m in $want; do base=${m%%.*}
  case $m in launch__*) list="$list,$m"; continue;; esac
  grep -q "^$base " /tmp/metrics.txt && list="$list,$m" || echo "not available: $m"; done
timeout 300 ncu --csv --page raw --print-units base --clock-control none --cache-control all -k lr_kernel \
  --section WarpStateStats --section SchedulerStats --metrics "${list#,}" \
  --log-file $OUT/ncu.csv "$B" profile "$C/fam" $OUT/order.txt > $OUT/ncu.log 2>&1; echo "ncu rc=$? $(date +%T)"
ls -la $OUT
