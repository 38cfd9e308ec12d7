#!/usr/bin/env bash
# Builds emit_cubins against a release build of the project (build-rel, made if missing),
# with corpus_measure's flags and libraries.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
[ -f build-rel/build.ninja ] || meson setup build-rel --buildtype=release >/dev/null
ninja -C build-rel lab/corpus-tools/corpus_measure >/dev/null
b=build-rel
cc -std=c11 -O2 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -pthread \
  -I$b/protocol -Iprotocol -Iestimator -I$b/estimator -Icommon -I$b/common -Istore -Icudagen \
  -Icalibrate -I/usr/include/cjson -o "$here/emit_cubins" "$here/emit_cubins.c" \
  -Wl,--start-group $b/protocol/liblrprotocol.a $b/estimator/liblrestimator.a \
  $b/common/liblrcommon.a $b/mesh/liblrmesh.a $b/store/liblrstore.a $b/cudagen/liblrcudagen.a \
  $b/calibrate/liblrcalibrate.a -lcjson -lnettle -lisl -lgmp -lm -lsqlite3 -ldl -lmetis \
  -Wl,--end-group
