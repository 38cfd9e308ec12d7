#!/bin/bash
# usage: [H200FILE=DEVICE.json] allsets.sh ROOT OUTFILE : per-family lines of every measured set (ROOT's build; H200FILE: a device file for every H200 set)
LABDEV="--device H200-SXM-141GB"; [ -n "$H200FILE" ] && LABDEV="--device-file $H200FILE"
R=$1; O=$2; A=$R/build-rel/tests/accuracy/accuracy; [ -x $A ] || A=$R/build-release/tests/accuracy/accuracy
C=$R/tests/accuracy/corpus; L=$R/lab
: > $O
run(){ name=$1; shift; $A "$@" 2>&1 | grep -E "^[a-z0-9_]+ +[0-9]+ +[0-9]+ \||^summary" | sed "s/^/$name /" >> $O; }
for s in "families h100 -" "heldout h100_heldout -" "heldout2 h100_heldout2 -" "heldout3 h100_heldout3 -" "heldout4 h100_heldout4 -" "heldout5 h100_heldout5 -" "layers h100_layers -" "depth h100_depth -" \
 "families h200 H" "heldout h200_heldout H" "heldout2 h200_heldout2 H" "heldout3 h200_heldout3 H" "heldout4 h200_heldout4 H" "heldout5 h200_heldout5 H" "heldout6 h200_heldout6 H" "heldout7 h200_heldout7 H" "heldout8 h200_heldout8 H" "heldout9 h200_heldout9 H" "heldout10 h200_heldout10 H" "layers h200_layers H" "depth h200_depth H" "compute h200_compute H" "compute_heldout h200_compute_heldout H" \
 "published_v100 v100_published V" "published_v100_rosti v100_rosti V" "published_v100_rosti2 v100_rosti2 V" "published_a100_conv a100_conv A"; do
  set -- $s; dev=""; [ $3 = - ] && [ -n "$H100DEV" ] && dev="--device-file $H100DEV"; [ $3 = H ] && dev="--device ${H200DEV:-H200-SXM-141GB}"; [ $3 = H ] && [ -n "$H200FILE" ] && dev="--device-file $H200FILE"; [ $3 = V ] && dev="--device V100-PCIe-32GB"; [ $3 = A ] && dev="--device A100-SXM4-40GB"
  run "$2" --corpus $C/$1 --measured $C/$2.jsonl $dev
done
run align_h100 --corpus $L/2026-11-23-align/families --measured $L/2026-11-23-align/h100.jsonl ${H100DEV:+--device-file $H100DEV}
run ernst_h200 --corpus $L/2026-11-29-ernst/families --measured $L/2026-11-29-ernst/h200.jsonl $LABDEV
run lbmocc --corpus $L/2026-11-29-lbmocc/families --measured $L/2026-11-29-lbmocc/h200.jsonl $LABDEV
run lbmconc --corpus $L/2026-11-29-lbmconc/families --measured $L/2026-11-29-lbmconc/h200.jsonl $LABDEV
run idlewarps --corpus $L/2026-11-29-idlewarps/families --measured $L/2026-11-29-idlewarps/h200.jsonl $LABDEV
run streams --corpus $L/2026-11-29-streams/families --measured $L/2026-11-29-streams/h200.jsonl $LABDEV
