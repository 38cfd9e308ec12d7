#!/usr/bin/env bash
# Copies this campaign's device side and the bench binary built here into the checkout
# that the device tool sends (its .compute-carry/, ignored through .git/info/exclude).
#   lab/2026-11-29-compute/stage.sh CHECKOUT
# Builds bench with the same command as raw/ptxas.txt was made with (nvcc 13.0.88 here,
# the same as on the device), so the carried binary's registers are those of ptxas.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
co=$1
/usr/local/cuda/bin/nvcc -O3 -arch=sm_90 -std=c++17 -Xptxas -v -o "$here/bench" "$here/bench.cu" \
  > "$here/raw/ptxas.txt" 2>&1
rm -rf "$co/.compute-carry"
mkdir -p "$co/.compute-carry"
cp "$here"/{bench,bench.cu,kernels.cu,device_run.sh} "$here"/manifest*.txt "$co/.compute-carry/"
awk '{n[$2]++} n[$2] <= 2' "$here/manifest.txt" > "$co/.compute-carry/manifest_smoke.txt"
grep -qx '/.compute-carry/' "$co/.git/info/exclude" 2>/dev/null || echo '/.compute-carry/' >> "$co/.git/info/exclude"
du -sh "$co/.compute-carry"
