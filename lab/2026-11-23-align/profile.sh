#!/usr/bin/env bash
# Nsight Compute counters of the lab/2026-11-23-align families named (one profiled launch per
# configuration; run it through the `device` tool with .carry/ from
# lab/corpus-tools/pack.sh): what the L2 and DRAM do differently when a row's stores
# start inside a sector (README.md, "What the counters say"). lab/2026-11-23-stalls/breakdown.sh
# runs ncu; this adds the write, fill and DRAM sector counters the GPU has.
#   lab/2026-11-23-align/profile.sh FAMILY@VARIANT...  -> $OUT/FAMILY_VARIANT.{csv,order}, $OUT/gpu.txt
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
wanted="dram__sectors_read.sum dram__sectors_write.sum
lts__t_sectors_srcunit_tex_op_write.sum lts__t_requests_srcunit_tex_op_write.sum
lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum
lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum lts__t_sectors_srcunit_ltcfabric.sum
lts__d_sectors_fill_device.sum lts__d_sectors_fill_sysmem.sum
dram__throughput.avg.pct_of_peak_sustained_elapsed lts__throughput.avg.pct_of_peak_sustained_elapsed"
known=$(ncu --query-metrics 2>&1)
extra=""
for x in $wanted; do
  grep -q "^${x%%.*} " <<< "$known" && extra="$extra,$x" || echo "not available: $x"
done
FAMILIES_DIR="$root/lab/2026-11-23-align/families" METRICS_EXTRA="${extra#,}" \
  exec "$root/lab/2026-11-23-stalls/breakdown.sh" "$@"
