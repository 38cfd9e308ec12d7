#!/usr/bin/env bash
# bench/stalls/depth_probe.sh OUTDIR: on the GPU machine (with .carry, bench/corpus/pack.sh),
# the breakdown of the L2, DRAM and L1 throughput and the warp stall reasons of the ten
# configurations of bench/stalls/depth_probe/*.json (README.md, "Deep blocks and the
# partition fabric"); h100_depth_probe.csv is its reduction.
root=$(cd "$(dirname "$0")/../.." && pwd)
export LD_LIBRARY_PATH="$root/.carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
m="gpu__time_duration.sum,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed"
m="$m,breakdown:dram__throughput.avg.pct_of_peak_sustained_elapsed"
m="$m,breakdown:l1tex__throughput.avg.pct_of_peak_sustained_active"
m="$m,lts__t_sectors_srcunit_tex_lookup_hit.sum,lts__t_sectors_srcunit_tex_lookup_miss.sum,lts__t_requests_srcunit_tex.sum"
m="$m,dram__sectors_read.sum,dram__sectors_write.sum,lts__average_gcomp_input_sector_success_rate.pct"
ncu --csv --page raw --print-units base --clock-control none --cache-control all -k lr_kernel \
    --section WarpStateStats --metrics "$m" \
    --log-file "$1/raw.csv" "$root/.carry/corpus_measure" profile "$root/bench/stalls/depth_probe" "$1/order.txt" > "$1/log" 2>&1
echo rc=$?
