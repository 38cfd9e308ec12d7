#!/usr/bin/env bash
# The full-precision dumps joint.py reads, into ${SASSRT_DUMPS:-/tmp/sassrt_dump}: the 17 sets
# of lab/2026-11-29-sass/dumps.sh and lab/2026-11-29-lbmconc (needs a release build, build-rel).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
D=${SASSRT_DUMPS:-/tmp/sassrt_dump}
"$root/lab/2026-11-29-sass/dumps.sh"
A=/tmp/sassrt-accuracy/accuracy # built by dumps.sh through fulldump.sh
L=$root/lab/2026-11-29-lbmconc
"$A" --corpus "$L/families" --measured "$L/h200.jsonl" --device H200-SXM-141GB \
  --dump "$D/lbmconc.jsonl" > "$D/lbmconc.txt"
# the H100 sets of h100.py, into ${JOINT_H100_DUMPS:-/tmp/joint_h100}
H=${JOINT_H100_DUMPS:-/tmp/joint_h100}
C=$root/tests/accuracy/corpus
mkdir -p "$H"
h100() { "$A" --corpus "$2" --measured "$3" --device H100-SXM5-80GB --dump "$H/$1.jsonl" > "$H/$1.txt"; }
h100 families "$C/families" "$C/h100.jsonl"
for s in heldout heldout2 heldout3 heldout4 heldout5 depth layers; do
  h100 $s "$C/$s" "$C/h100_$s.jsonl"
done
h100 align "$root/lab/2026-11-23-align/families" "$root/lab/2026-11-23-align/h100.jsonl"
