#!/usr/bin/env bash
# lab/2026-11-23-stalls/probe.sh depth|fabric OUTDIR: on the GPU machine (with .carry from
# lab/corpus-tools/pack.sh), one profiled launch of each of the ten configurations of
# lab/2026-11-23-stalls/depth_probe/*.json (README.md, "Deep blocks and the partition fabric"):
#   depth   the breakdown of the L2, DRAM and L1 throughput and the warp stall reasons
#   fabric  the L2 requests and sectors that come from the partition fabric (ltcfabric)
#           and from L1 (tex), read and written, hit and missed, and the fabric's ports
# into OUTDIR/raw.csv and OUTDIR/order.txt; probe_reduce.py reduces them.
root=$(cd "$(dirname "$0")/../.." && pwd)
export LD_LIBRARY_PATH="$root/.carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
mode=$1 out=$2
m="gpu__time_duration.sum"
case $mode in
depth)
  sections="--section WarpStateStats"
  m="$m,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed"
  m="$m,breakdown:dram__throughput.avg.pct_of_peak_sustained_elapsed"
  m="$m,breakdown:l1tex__throughput.avg.pct_of_peak_sustained_active"
  m="$m,lts__t_sectors_srcunit_tex_lookup_hit.sum,lts__t_sectors_srcunit_tex_lookup_miss.sum"
  m="$m,lts__t_requests_srcunit_tex.sum,dram__sectors_read.sum,dram__sectors_write.sum"
  m="$m,lts__average_gcomp_input_sector_success_rate.pct" ;;
fabric)
  sections=""
  m="$m,lts__t_requests_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_ltcfabric.sum"
  for op in read write; do
    for x in "" _lookup_hit _lookup_miss; do
      m="$m,lts__t_sectors_srcunit_ltcfabric_op_$op$x.sum,lts__t_requests_srcunit_ltcfabric_op_$op$x.sum"
      m="$m,lts__t_sectors_srcunit_tex_op_$op$x.sum,lts__t_requests_srcunit_tex_op_$op$x.sum"
    done
  done
  m="$m,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed"
  m="$m,lts__ltcfabric2lts_cycles_active.avg.pct_of_peak_sustained_elapsed"
  m="$m,lts__ltcfabric2lts_cycles_stalled.avg.pct_of_peak_sustained_elapsed"
  m="$m,dram__sectors_read.sum,dram__sectors_write.sum" ;;
*)
  echo "usage: probe.sh depth|fabric OUTDIR" >&2
  exit 2 ;;
esac
echo "metrics: $m" > "$out/log"
# shellcheck disable=SC2086 # $sections is empty or one option and its argument
ncu --csv --page raw --print-units base --clock-control none --cache-control all -k lr_kernel \
    $sections --metrics "$m" --log-file "$out/raw.csv" \
    "$root/.carry/corpus_measure" profile "$root/lab/2026-11-23-stalls/depth_probe" "$out/order.txt" >> "$out/log" 2>&1
echo rc=$?
