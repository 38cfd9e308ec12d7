#!/usr/bin/env bash
# The device side of the compute corpus (run through the `device` tool, kind nvidia-h200).
# This folder travels as .compute-carry/ (stage.sh copies it with the bench binary built
# here) and runs as   bash .compute-carry/device_run.sh STEP...   ($OUT: the tool's folder)
# STEP: info            GPU, driver, CUDA, clocks, tools; the SASS of every kernel
#                       (sass.txt.gz) and ncu's metric list (metrics.txt.gz)
#       time:NAME[:REPS]  times every line of $MANIFEST (default manifest.txt) into NAME.jsonl
#       prof            Nsight Compute, one launch per configuration, one ncu process per
#                       family (ncu.csv, order.csv: each file's rows tagged by its family)
# Steps run in order while DEADLINE seconds (default 540) from the start remain.
# KERNELS=kernels_heldout.cu: the generated file a build on the device includes (the
# held-out set's carry, stage.sh --heldout, holds that bench already).
# FAMILIES="a b" restricts prof to those families; METRICS="m1 m2 ..." replaces its list.
# (Runs 1 and 2 wrote the list used into $OUT/metrics_used.txt; run 3 writes it into log.txt.)
set -uo pipefail
t0=$(date +%s)
deadline=$((t0 + ${DEADLINE:-540}))
here=$(cd "$(dirname "$0")" && pwd)
W=/tmp/compute
mkdir -p "$W"
info=$OUT/info.txt log=$OUT/log.txt
man=$here/${MANIFEST:-manifest.txt}
export PATH=/usr/local/cuda/bin:$PATH
bin=$here/bench
# the binary built here (nvcc 13.0.88) runs if the system libraries allow; else build there
"$bin" >/dev/null 2>&1
if [ $? -ne 2 ]; then   # 2: its usage message, so it loaded
  echo "carried bench does not run; building here" >> "$log"
  nvcc -O3 -arch=sm_90 -std=c++17 -Xptxas -v -DKERNELS="\"${KERNELS:-kernels.cu}\"" \
    -o "$W/bench" "$here/bench.cu" > "$W/ptxas_device.txt" 2>&1
  bin=$W/bench
  cat "$W/ptxas_device.txt" >> "$info"
fi

{ echo "call_start_utc $(date -u +%Y-%m-%dT%H:%M:%SZ) steps: $*"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu --format=csv,noheader; } >> "$info" 2>&1
for step in "$@"; do
  now=$(date +%s)
  if [ "$now" -ge "$deadline" ]; then echo "deadline: skipped $step" | tee -a "$log"; continue; fi
  case $step in
    info)
      {
        echo "date_utc $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,memory.total,ecc.mode.current,power.limit,persistence_mode --format=csv
        nvidia-smi | grep -m1 "CUDA Version"
        nvidia-smi -q -d CLOCK | grep -A4 -E "Applications Clocks|Max Clocks|Clocks Event|Clocks$" | head -40
        nvcc --version | tail -2
        ncu --version | tail -1
        uname -r
        nproc
        echo "--- ldd bench"; ldd "$bin"
        echo "--- resource usage"; cuobjdump --dump-resource-usage "$bin" | grep -E "Function|REG"
      } >> "$info" 2>&1
      cuobjdump -sass "$bin" | gzip -9 > "$OUT/sass.txt.gz"
      # the tool returns at most 8 files: run 3 (QUERY_METRICS=0) leaves this one out
      [ "${QUERY_METRICS:-1}" = 1 ] && ncu --query-metrics 2>&1 | gzip -9 > "$OUT/metrics.txt.gz" ;;
    time:*)
      spec=${step#time:}
      name=${spec%%:*} reps=21
      [ "$name" != "$spec" ] && reps=${spec#*:}
      echo "=== $step ($(date -u +%T))" >> "$log"
      nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader >> "$log"
      timeout $((deadline - now)) "$bin" time "$man" "$OUT/$name.jsonl" "$reps" >> "$log" 2>&1
      echo "$step rc=$? ($(date -u +%T))" >> "$log"
      nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader >> "$log" ;;
    prof)
      wanted="${METRICS:-gpu__time_duration.sum dram__bytes_read.sum dram__bytes_write.sum
lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcunit_tex_op_write.sum
lts__t_requests_srcunit_tex_op_read.sum lts__t_requests_srcunit_tex_op_write.sum
l1tex__data_pipe_lsu_wavefronts.sum l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum sm__cycles_elapsed.avg.per_second
sm__cycles_elapsed.avg sm__cycles_active.avg launch__registers_per_thread
launch__occupancy_limit_registers launch__occupancy_limit_warps launch__occupancy_limit_blocks
launch__waves_per_multiprocessor sm__warps_active.avg.pct_of_peak_sustained_active
sm__maximum_warps_per_active_cycle_pct smsp__inst_executed.sum
smsp__issue_active.avg.pct_of_peak_sustained_active sm__inst_executed_pipe_fma.sum
sm__inst_executed_pipe_fmaheavy.sum sm__inst_executed_pipe_fmalite.sum
sm__inst_executed_pipe_fp64.sum sm__inst_executed_pipe_xu.sum sm__inst_executed_pipe_alu.sum
sm__inst_executed_pipe_lsu.sum sm__inst_executed_pipe_adu.sum sm__inst_executed_pipe_cbu.sum
sm__inst_executed_pipe_uniform.sum smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
smsp__sass_thread_inst_executed_op_fadd_pred_on.sum smsp__sass_thread_inst_executed_op_fmul_pred_on.sum
smsp__sass_thread_inst_executed_op_dfma_pred_on.sum smsp__sass_thread_inst_executed_op_dadd_pred_on.sum
smsp__sass_thread_inst_executed_op_dmul_pred_on.sum sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active
sm__pipe_xu_cycles_active.avg.pct_of_peak_sustained_active
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio
smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio
smsp__average_warps_issue_stalled_drain_per_issue_active.ratio
smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio
smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio}"
      ncu --query-metrics > "$W/metrics.txt" 2>&1
      list=""
      for m in $wanted; do
        base=${m%%.*}
        case $m in launch__*) list="$list,$m"; continue;; esac
        # a ratio or pct metric's base may be listed without its suffix: try both
        if grep -q "^$base " "$W/metrics.txt"; then list="$list,$m"
        else
          b2=$(echo "$base" | sed -E 's/_per_(issue|warp)_active$//; s/^smsp__average_warps_issue_stalled_/smsp__average_warps_issue_stalled_/')
          if grep -q "^$b2 " "$W/metrics.txt"; then list="$list,$m"; else echo "not available: $m" >> "$log"; fi
        fi
      done
      echo "${list#,}" > "$W/metrics_used.txt"
      echo "metrics: ${list#,}" >> "$log"
      for fam in ${FAMILIES:-$(awk '{print $1}' "$man" | uniq)}; do
        now=$(date +%s)
        if [ "$now" -ge "$deadline" ]; then echo "deadline: skipped prof $fam" | tee -a "$log"; continue; fi
        grep "^$fam " "$man" > "$W/m_$fam"
        echo "=== ncu $fam ($(date -u +%T))" >> "$log"
        timeout $((deadline - now)) \
          ncu --csv --page raw --print-units base --clock-control none --cache-control all \
              -k regex:^ck_ --metrics "${list#,}" --log-file "$W/ncu_$fam.csv" \
              "$bin" profile "$W/m_$fam" "$W/order_$fam.csv" >> "$log" 2>&1
        echo "ncu $fam rc=$? ($(date -u +%T))" >> "$log"
      done
      python3 - "$W" "$OUT" <<'EOF' >> "$log" 2>&1
import sys, glob, os
W, OUT = sys.argv[1], sys.argv[2]
with open(os.path.join(OUT, "ncu.csv"), "w") as fo, open(os.path.join(OUT, "order.csv"), "w") as oo:
    for f in sorted(glob.glob(os.path.join(W, "ncu_*.csv"))):
        tag = os.path.basename(f)[4:-4]
        fo.write(f"### {tag}\n" + open(f).read())
        o = os.path.join(W, f"order_{tag}.csv")
        if os.path.exists(o):
            oo.write(f"### {tag}\n" + open(o).read())
EOF
      ;;
    *) echo "unknown step $step" >> "$log" ;;
  esac
done
echo "total $(( $(date +%s) - t0 )) s" >> "$log"
tail -40 "$log"
