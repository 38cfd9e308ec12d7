#!/bin/bash
# On the GPU machine (nvcc on PATH or in /usr/local/cuda/bin): build the probe and time
# every kernel, folding and occupancy twice (median of 10 runs after 3, L2 flushed).
# Usage: bench/knee/device_run.sh OUTDIR   (through the `device` tool; seconds of GPU time)
set -e
out=${1:?usage: device_run.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
export PATH="$PATH:/usr/local/cuda/bin"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt"
nvcc -O3 -arch=sm_90 -o "$out/probe" "$here/probe.cu"
"$out/probe" t > "$out/knee.csv"
"$out/probe" x > "$out/layout.csv"
rm -f "$out/probe"
