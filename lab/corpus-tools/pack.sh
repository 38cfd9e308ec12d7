#!/usr/bin/env bash
# Copies a release build of corpus_measure and the shared libraries it needs (isl,
# GMP, cJSON, SQLite, ...: the device machine has none of them) into .carry/, which
# the `device` tool carries (it is ignored by git).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -f build-release/build.ninja ] || meson setup build-release --buildtype=release >/dev/null
ninja -C build-release lab/corpus-tools/corpus_measure >/dev/null
rm -rf .carry && mkdir -p .carry/lib
cp build-release/lab/corpus-tools/corpus_measure .carry/
ldd build-release/lab/corpus-tools/corpus_measure | awk '/=> \//{print $3}' |
  grep -v -E '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
  xargs -I{} cp -L {} .carry/lib/
grep -qx '/.carry/' .git/info/exclude 2>/dev/null || echo '/.carry/' >> .git/info/exclude
du -sh .carry
