#!/bin/bash
# On the GPU machine (nvcc and ncu on PATH): build both probes, time them (median of
# the timed runs, L2 flushed before each) and profile them once each under ncu.
# Usage: lab/2026-11-23-storemerge/device_run.sh OUTDIR
set -e
out=${1:?usage: device_run.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt"
metrics=lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum
metrics=$metrics,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,dram__bytes_write.sum
metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active
for p in occupancy loads scatter rows; do
    nvcc -O3 -arch=sm_90 -o "$out/probe_$p" "$here/probe_$p.cu"
    "$out/probe_$p" t > "$out/${p}_time.csv"
    ncu --csv --cache-control all --clock-control none --metrics "$metrics" \
        "$out/probe_$p" p > "$out/${p}_ncu.csv"
done
