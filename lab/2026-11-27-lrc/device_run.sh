#!/usr/bin/env bash
# Profiles corpus configurations with the counters of the H100's L2 request coalescer
# (LRC) beside L1's misses and L2's reads (lab/2026-11-27-lrc/README.md), through
# lab/corpus-tools/device_run.sh's profile mode. Run through the `device` tool with .carry
# (lab/corpus-tools/pack.sh) carried:
#   lab/2026-11-27-lrc/device_run.sh OUTDIR DIR:FAMILY[,FAMILY...] [DIR:FAMILY...]
# writes OUTDIR/N/{ncu.csv,order.txt,gpu.txt,group.txt,log.txt} per DIR:FAMILY group,
# N = 1, 2, ...; DIR is relative to the repository.
set -uo pipefail
out=$1
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
export METRICS="gpu__time_duration.sum lts__t_sectors_srcunit_tex_op_read.sum
lts__t_requests_srcunit_tex_op_read.sum l1tex__m_xbar2l1tex_read_sectors.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum
lrc__xbar2lrc_requests_op_read.sum lrc__request_sectors_op_read_coalescable.sum
lrc__lrc2xbar_sectors_op_read.sum lrc__lrc2xbar_sectors_op_read_coalescing_achieved_type_hardware.sum
lrc__lrc2xbar_sectors_op_read_coalescing_none.sum lrc__lts2lrc_sectors_op_read.sum
lrc__xbar2gpc_sectors_op_read.sum"
n=0
for group in "$@"; do
  n=$((n + 1))
  mkdir -p "$out/$n"
  dir=${group%%:*}
  fams=${group#*:}
  echo "$dir $fams" > "$out/$n/group.txt"
  # shellcheck disable=SC2086
  FAMILIES="$root/$dir" "$root/lab/corpus-tools/device_run.sh" profile "$out/$n" ${fams//,/ } \
      > "$out/$n/log.txt" 2>&1
done
