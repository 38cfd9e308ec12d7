#!/usr/bin/env bash
# Copies this campaign's device side and the carried mesh files into the checkout that the
# device tool sends (its .mesh-carry/, ignored through .git/info/exclude), and reports the
# size that will travel.   lab/2026-11-29-mesh/stage.sh WORKDIR CHECKOUT
# WORKDIR holds make_orderings.py's *.xz files; CHECKOUT is the session's checkout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$1 co=$2
rm -rf "$co/.mesh-carry"
mkdir -p "$co/.mesh-carry/data"
cp "$here"/{mesh_bench.cu,gen_blocks.h,gen_blocks.c,decode_mesh.py,device_run.sh} "$co/.mesh-carry/"
cp "$work"/*.xz "$co/.mesh-carry/data/" 2>/dev/null || true
du -sh "$co/.mesh-carry"
(cd "$co" && { git ls-files -z; git ls-files -z --others --exclude-standard; } | du -cb --files0-from=- | tail -1)
