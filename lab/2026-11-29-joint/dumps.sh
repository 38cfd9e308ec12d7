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
