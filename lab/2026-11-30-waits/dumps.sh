#!/usr/bin/env bash
# `accuracy --dump` (with the first-touch counts) of every measured set with L1 counters,
# into ${FT_DUMPS:-/tmp/ft2}/SET.jsonl; needs a release build, build-rel.
set -euo pipefail
root=${WAITS_TREE:?the patched tree (README)}
D=${FT_DUMPS:-/tmp/ft2}
A=$root/build-rel/tests/accuracy/accuracy
C=$root/tests/accuracy/corpus
H2=H200-SXM-141GB
mkdir -p "$D"
one() { # name corpus measured [device]
  local n=$1 c=$2 m=$3; shift 3
  "$A" --corpus "$c" --measured "$m" ${1:+--device "$1"} --dump "$D/$n.jsonl" > "$D/$n.txt" 2>&1 || true
}
one h100 "$C/families" "$C/h100.jsonl"
one h200 "$C/families" "$C/h200.jsonl" $H2
for s in layers depth heldout heldout2 heldout3 heldout4 heldout5; do
  one h100_$s "$C/$s" "$C/h100_$s.jsonl"
  one h200_$s "$C/$s" "$C/h200_$s.jsonl" $H2
done
for s in heldout6 heldout7 heldout8 heldout9 heldout10 compute compute_heldout; do
  one h200_$s "$C/$s" "$C/h200_$s.jsonl" $H2
done
for s in ernst idlewarps; do
  one $s "$root/lab/2026-11-29-$s/families" "$root/lab/2026-11-29-$s/h200.jsonl" $H2
done
