#!/usr/bin/env bash
# The device side of the instruction-rate check (run through the `device` tool, kind
# nvidia-h200). stage.sh copies this folder, calibrate/micro_kernels.cu and a release
# build of launchrank with its libraries into the checkout's .rates-carry/; run as
#   bash .rates-carry/device_run.sh [check] [calibrate]
# check: builds check.cu with nvcc, saves the rate kernels' SASS, times them, and counts
#        each pipe's instructions with ncu (sass.txt.gz, check.txt, ncu.csv)
# calibrate: a full `launchrank calibrate` (calibrate.json, raw.json, calibrate.log)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$here/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
info=$OUT/check.txt
{ date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.limit --format=csv
  nvcc --version | tail -2; } >> "$info" 2>&1
for step in "$@"; do
  case $step in
    check)
      nvcc -O3 -arch=sm_90 -std=c++17 -Xptxas -v -o /tmp/check "$here/check.cu" >> "$info" 2>&1
      cuobjdump -sass /tmp/check | awk '/Function : lr_rate/{p=1} /Function : [^l]/{p=0} p' |
        gzip -9 > "$OUT/sass.txt.gz"
      /tmp/check >> "$info" 2>&1
      ncu --csv --page raw --clock-control none -k regex:lr_rate --metrics \
smsp__inst_executed.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_fmaheavy.sum,\
sm__inst_executed_pipe_fmalite.sum,sm__inst_executed_pipe_fp64.sum,sm__inst_executed_pipe_xu.sum,\
sm__inst_executed_pipe_alu.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second \
        /tmp/check > "$OUT/ncu.csv" 2>> "$info"
      echo "check done $(date -u +%T)" >> "$info" ;;
    calibrate)
      nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv,noheader >> "$info"
      /usr/bin/time -v "$here/launchrank" calibrate --out "$OUT/calibrate.json" \
        --raw "$OUT/raw.json" > "$OUT/calibrate.log" 2>&1
      echo "calibrate rc=$? $(date -u +%T)" >> "$info" ;;
  esac
done
