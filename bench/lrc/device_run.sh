#!/usr/bin/env bash
# Profiles corpus configurations with the counters of the H100's L2 request coalescer
# (LRC) beside L1's misses and L2's reads (bench/lrc/README.md). Run through the
# `device` tool with .carry (bench/corpus/pack.sh) carried:
#   bench/lrc/device_run.sh OUTDIR DIR:FAMILY[,FAMILY...] [DIR:FAMILY...]
# writes OUTDIR/N/ncu.csv and OUTDIR/N/order.txt per DIR:FAMILY group, N = 1, 2, ...
set -uo pipefail
out=$1
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
export LD_LIBRARY_PATH="$root/.carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
metrics="gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,\
lts__t_requests_srcunit_tex_op_read.sum,l1tex__m_xbar2l1tex_read_sectors.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum,\
lrc__xbar2lrc_requests_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,\
lrc__lrc2xbar_sectors_op_read.sum,lrc__lrc2xbar_sectors_op_read_coalescing_achieved_type_hardware.sum,\
lrc__lrc2xbar_sectors_op_read_coalescing_none.sum,lrc__lts2lrc_sectors_op_read.sum,\
lrc__xbar2gpc_sectors_op_read.sum"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
n=0
for group in "$@"; do
  n=$((n + 1))
  mkdir -p "$out/$n"
  dir=${group%%:*}
  fams=${group#*:}
  # shellcheck disable=SC2086
  ncu --csv --page raw --print-units base --clock-control none --cache-control all \
      -k lr_kernel --metrics "$metrics" --log-file "$out/$n/ncu.csv" \
      "$root/.carry/corpus_measure" profile "$root/$dir" "$out/$n/order.txt" ${fams//,/ } \
      > "$out/$n/log.txt" 2>&1
  echo "$dir $fams" > "$out/$n/group.txt"
done
