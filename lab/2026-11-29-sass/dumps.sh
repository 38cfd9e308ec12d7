#!/usr/bin/env bash
# Full-precision dumps of every H200 set this note reads, into ${SASSRT_DUMPS:-/tmp/sassrt_dump}
# (join.py reads them there), with the accuracy copy of fulldump.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
A=$("$here/fulldump.sh")
D=${SASSRT_DUMPS:-/tmp/sassrt_dump}
C=$root/tests/accuracy/corpus
mkdir -p "$D"
one() { "$A" --corpus "$2" --measured "$3" --device H200-SXM-141GB --dump "$D/$1.jsonl" > "$D/$1.txt"; }
for s in heldout heldout2 heldout3 heldout4 heldout5 heldout6 heldout7 heldout8 heldout9 heldout10 \
         depth layers compute compute_heldout; do
  one $s "$C/$s" "$C/h200_$s.jsonl"
done
one families "$C/families" "$C/h200.jsonl"
one lbmocc "$root/lab/2026-11-29-lbmocc/families" "$root/lab/2026-11-29-lbmocc/h200.jsonl"
one ernst "$root/lab/2026-11-29-ernst/families" "$root/lab/2026-11-29-ernst/h200.jsonl"
