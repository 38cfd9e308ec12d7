#!/bin/sh
# usage (from the repository root): runall.sh BUILD OUTDIR; every measured set, one file each
B=$1; O=$2; mkdir -p $O
A=$B/tests/accuracy/accuracy; C=tests/accuracy/corpus
run() { name=$1; shift; $A "$@" > $O/$name.txt 2>&1; }
run h100 --corpus $C/families --measured $C/h100.jsonl
run h200 --corpus $C/families --measured $C/h200.jsonl --device H200-SXM-141GB
for s in heldout heldout2 heldout3 heldout4 heldout5 layers depth; do
  run h100_$s --corpus $C/$s --measured $C/h100_$s.jsonl
done
for s in heldout heldout2 heldout3 heldout4 heldout5 heldout6 heldout7 heldout8 layers depth compute compute_heldout; do
  run h200_$s --corpus $C/$s --measured $C/h200_$s.jsonl --device H200-SXM-141GB
done
run align --corpus lab/2026-11-23-align/families --measured lab/2026-11-23-align/h100.jsonl
run ernst --corpus lab/2026-11-29-ernst/families --measured lab/2026-11-29-ernst/h200.jsonl --device H200-SXM-141GB
run lbmocc --corpus lab/2026-11-29-lbmocc/families --measured lab/2026-11-29-lbmocc/h200.jsonl --device H200-SXM-141GB
