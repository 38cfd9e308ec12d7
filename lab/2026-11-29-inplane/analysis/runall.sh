#!/bin/bash
# usage: runall.sh BUILD OUTDIR: every measured H100/H200 set of sets.txt through
# tests/accuracy/accuracy --dump (the dump gives each configuration's limits and counters)
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
B=$(realpath "$1"); mkdir -p "$2"; O=$(realpath "$2")
cd "$ROOT"
while read name corp meas dev; do
  if [[ $corp == @* ]]; then c=${corp#@}; m=$meas; else c=tests/accuracy/corpus/$corp; m=tests/accuracy/corpus/$meas; fi
  args="--corpus $c --measured $m"
  [[ $dev != - ]] && args="$args --device $dev"
  $B/tests/accuracy/accuracy $args --dump $O/$name.dump > $O/$name.txt 2>&1
done < "$HERE/sets.txt"
