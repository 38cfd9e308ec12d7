#!/usr/bin/env bash
# Copies this campaign's device side and the bench binary built here into the checkout
# that the device tool sends (its .compute-carry/, ignored through .git/info/exclude).
#   lab/2026-11-29-compute/stage.sh CHECKOUT [--heldout]
# Builds bench with the same command as raw/ptxas.txt was made with (nvcc 13.0.88 here,
# the same as on the device), so the carried binary's registers are those of ptxas.txt.
# --heldout: bench of kernels_heldout.cu (raw/ptxas_heldout.txt) with manifest_heldout.txt,
# into .compute-heldout-carry/ (run it with MANIFEST=manifest_heldout.txt
# KERNELS=kernels_heldout.cu).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
co=$1
if [ "${2:-}" = --heldout ]; then
  carry=.compute-heldout-carry kernels=kernels_heldout.cu ptxas=ptxas_heldout.txt
else
  carry=.compute-carry kernels=kernels.cu ptxas=ptxas.txt
fi
/usr/local/cuda/bin/nvcc -O3 -arch=sm_90 -std=c++17 -Xptxas -v -DKERNELS="\"$kernels\"" \
  -o "$here/bench" "$here/bench.cu" > "$here/raw/$ptxas" 2>&1
rm -rf "${co:?}/$carry"
mkdir -p "$co/$carry"
cp "$here"/{bench,bench.cu,$kernels,device_run.sh} "$here"/manifest*.txt "$co/$carry/"
awk '{n[$2]++} n[$2] <= 2' "$here/manifest.txt" > "$co/$carry/manifest_smoke.txt"
grep -qx "/$carry/" "$co/.git/info/exclude" 2>/dev/null || echo "/$carry/" >> "$co/.git/info/exclude"
du -sh "$co/$carry"
