#!/bin/bash
# usage: runall.sh BUILD OUTDIR: every measured set of the accuracy gate, its table (OUTDIR/SET.txt) and --dump (OUTDIR/SET.jsonl)
B=$(realpath $1); O=$(realpath -m $2); mkdir -p $O
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
A=$B/tests/accuracy/accuracy
C=tests/accuracy/corpus
run() { name=$1; shift; $A "$@" --dump $O/$name.jsonl > $O/$name.txt 2>&1; }
run h100 --corpus $C/families --measured $C/h100.jsonl
run h200 --corpus $C/families --measured $C/h200.jsonl --device H200-SXM-141GB
for s in heldout layers heldout2 heldout3 heldout4 heldout5 depth; do
  run h100_$s --corpus $C/$s --measured $C/h100_$s.jsonl
  run h200_$s --corpus $C/$s --measured $C/h200_$s.jsonl --device H200-SXM-141GB
done
run h200_heldout6 --corpus $C/heldout6 --measured $C/h200_heldout6.jsonl --device H200-SXM-141GB
run align --corpus lab/2026-11-23-align/families --measured lab/2026-11-23-align/h100.jsonl
run ernst --corpus lab/2026-11-29-ernst/families --measured lab/2026-11-29-ernst/h200.jsonl --device H200-SXM-141GB
run compute --corpus $C/compute --measured $C/h200_compute.jsonl --device H200-SXM-141GB
run compute_heldout --corpus $C/compute_heldout --measured $C/h200_compute_heldout.jsonl --device H200-SXM-141GB
