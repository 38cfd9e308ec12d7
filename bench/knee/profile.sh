#!/bin/bash
# On the GPU machine: the streams of probe.cu's mode p (folded 1, 2, 4, consecutive and
# block-strided; 256-thread blocks, no shared memory) once each under Nsight Compute,
# with the breakdowns of DRAM and L2 throughput (bench/stalls/breakdown.sh's metrics)
# and the DRAM and L2 volumes. Usage: bench/knee/profile.sh OUTDIR
set -e
out=${1:?usage: profile.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
export PATH="$PATH:/usr/local/cuda/bin"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt"
nvcc -O3 -arch=sm_90 -std=c++17 -o "$out/probe" "$here/probe.cu"
m="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum"
m="$m,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum"
m="$m,lts__t_requests_srcunit_tex_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active"
m="$m,breakdown:dram__throughput.avg.pct_of_peak_sustained_elapsed"
m="$m,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed"
ncu --csv --page raw --print-units base --clock-control none --cache-control all \
    -k regex:'triad|strided' --metrics "$m" --log-file "$out/ncu.csv" "$out/probe" p
rm -f "$out/probe"
