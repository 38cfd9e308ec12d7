#!/bin/bash
# On the GPU machine (nvcc on PATH or in /usr/local/cuda/bin), through the `device`
# tool; seconds of GPU time:
#   lab/2026-11-27-knee/device_run.sh OUTDIR           build the probe and time every kernel,
#       folding and occupancy twice (median of 10 runs after 3, L2 flushed): knee.csv
#       (mode t) and layout.csv (mode x)
#   lab/2026-11-27-knee/device_run.sh OUTDIR profile   the streams of mode p (folded 1, 2, 4,
#       consecutive and block-strided; 256-thread blocks, no shared memory) once each
#       under Nsight Compute, with the breakdowns of DRAM and L2 throughput
#       (lab/2026-11-23-stalls/breakdown.sh's metrics) and the DRAM and L2 volumes: ncu.csv
set -e
out=${1:?usage: device_run.sh OUTDIR [profile]}
here=$(cd "$(dirname "$0")" && pwd)
export PATH="$PATH:/usr/local/cuda/bin"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt"
nvcc -O3 -arch=sm_90 -std=c++17 -o "$out/probe" "$here/probe.cu"
if [ "${2:-}" = profile ]; then
    m="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum"
    m="$m,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum"
    m="$m,lts__t_requests_srcunit_tex_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active"
    m="$m,breakdown:dram__throughput.avg.pct_of_peak_sustained_elapsed"
    m="$m,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed"
    ncu --csv --page raw --print-units base --clock-control none --cache-control all \
        -k regex:'triad|strided' --metrics "$m" --log-file "$out/ncu.csv" "$out/probe" p
else
    "$out/probe" t > "$out/knee.csv"
    "$out/probe" x > "$out/layout.csv"
fi
rm -f "$out/probe"
