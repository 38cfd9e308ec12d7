#!/bin/bash
# usage: try.sh BUILD BASEDIR NAME VAR=VAL...: one emulation (emulate.patch applied to the
# build) over every set, compared with BASEDIR (runall.sh of the unchanged model)
HERE=$(cd "$(dirname "$0")" && pwd)
b=$1; base=$2; n=$3; shift 3
env "$@" "$HERE/runall.sh" "$b" "$n"
python3 "$HERE/cmp.py" "$base" "$n"
grep -E "^hdiff|^inplane" "$n/h200_heldout10.txt"
