#!/bin/bash
# calgrid.sh S P: sets the built-in H200's dram_streams_size_exponent S and dram_threads_exponent
# P, rebuilds build-release, recalibrates the H200 from its recorded run (calibrate --from-raw,
# --base H200-SXM-141GB) and judges the result on every measured set against BASE (allsets.sh's
# output for model 2026.11-35, $W/base.txt). Work files in W (default /tmp/misaligned). It edits
# estimator/devices/H200-SXM-141GB.json: keep a copy.
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd); W=${W:-/tmp/misaligned}
mkdir -p $W; cd $root
python3 - "$1" "$2" <<'PY'
import sys, re
p = 'estimator/devices/H200-SXM-141GB.json'; s = open(p).read()
s = re.sub(r'"dram_streams_size_exponent": [0-9.]+,', '"dram_streams_size_exponent": %s,' % sys.argv[1], s)
s = re.sub(r'"dram_threads_exponent": [0-9.]+,', '"dram_threads_exponent": %s,' % sys.argv[2], s)
open(p, 'w').write(s)
PY
ninja -C build-release >/dev/null 2>&1 || { echo build failed; exit 1; }
out=$W/cal_$1_$2.json
build-release/clients/cli/launchrank calibrate --from-raw tests/data/calibration/h200_raw.json \
  --name H200-SXM-141GB --base H200-SXM-141GB --out $out 2>$W/cal_$1_$2.log >/dev/null
obj=$(grep -o "objective [0-9.]* -> [0-9.]*" $W/cal_$1_$2.log)
H200FILE=$out bash $here/../2026-11-29-dramfit/allsets.sh $root $W/sets_$1_$2.txt
echo "fw $1 P $2 cal[$obj] $(python3 $here/evalset.py $W/base.txt $W/sets_$1_$2.txt)"
