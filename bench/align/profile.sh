#!/usr/bin/env bash
# Nsight Compute counters of the bench/align families named (one profiled launch per
# configuration; run it through the `device` tool with .carry/ from
# bench/corpus/pack.sh): what the L2 and DRAM do differently when a row's stores
# start inside a sector (README.md, "What the counters say").
#   bench/align/profile.sh FAMILY@VARIANT...  -> $OUT/FAMILY_VARIANT.{csv,order}, $OUT/gpu.txt
# (the device tool brings back no file whose name has an @)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export LD_LIBRARY_PATH="$root/.carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
wanted="dram__sectors_read.sum dram__sectors_write.sum
lts__t_sectors_srcunit_tex_op_write.sum lts__t_requests_srcunit_tex_op_write.sum
lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum
lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum lts__t_sectors_srcunit_ltcfabric.sum
lts__d_sectors_fill_device.sum lts__d_sectors_fill_sysmem.sum
dram__throughput.avg.pct_of_peak_sustained_elapsed lts__throughput.avg.pct_of_peak_sustained_elapsed"
ncu --query-metrics > "$OUT/metrics.tmp" 2>&1
m="gpu__time_duration.sum"
for x in $wanted; do
  grep -q "^${x%%.*} " "$OUT/metrics.tmp" && m="$m,$x" || echo "not available: $x"
done
rm -f "$OUT/metrics.tmp"
m="$m,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed"
m="$m,breakdown:dram__throughput.avg.pct_of_peak_sustained_elapsed"
for f in "$@"; do
  o=${f/@/_}
  start=$(date +%s)
  timeout 300 ncu --csv --page raw --print-units base --clock-control none \
    --cache-control all -k lr_kernel --metrics "$m" --log-file "$OUT/$o.csv" \
    "$root/.carry/corpus_measure" profile "$root/bench/align/families" \
    "$OUT/$o.order" "$f" > /dev/null 2>&1
  echo "$f: rc $? in $(( $(date +%s) - start )) s"
done
