#!/usr/bin/env bash
# bench/stalls/fabric_probe.sh OUTDIR: on the GPU machine (with .carry), the L2 requests and
# sectors that come from the partition fabric (ltcfabric) and from L1 (tex), read and
# written, hit and missed, for the ten configurations
# of bench/stalls/depth_probe/*.json (README.md, "Deep blocks and the partition fabric").
root=$(cd "$(dirname "$0")/../.." && pwd)
export LD_LIBRARY_PATH="$root/.carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
m="lts__t_requests_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_ltcfabric.sum"
for op in read write; do
  for x in "" _lookup_hit _lookup_miss; do
    m="$m,lts__t_sectors_srcunit_ltcfabric_op_$op$x.sum,lts__t_requests_srcunit_ltcfabric_op_$op$x.sum"
    m="$m,lts__t_sectors_srcunit_tex_op_$op$x.sum,lts__t_requests_srcunit_tex_op_$op$x.sum"
  done
done
m="$m,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed"
m="$m,lts__ltcfabric2lts_cycles_active.avg.pct_of_peak_sustained_elapsed"
m="$m,lts__ltcfabric2lts_cycles_stalled.avg.pct_of_peak_sustained_elapsed"
m="$m,dram__sectors_read.sum,dram__sectors_write.sum"
echo "metrics: $m" > "$1/log"
ncu --csv --page raw --print-units base --clock-control none --cache-control all -k lr_kernel \
    --metrics "gpu__time_duration.sum,$m" \
    --log-file "$1/raw.csv" "$root/.carry/corpus_measure" profile "$root/bench/stalls/depth_probe" "$1/order.txt" >> "$1/log" 2>&1
echo rc=$?
