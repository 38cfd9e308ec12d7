#!/usr/bin/env bash
# Builds launchrank (release) and starts the service with its embedded defaults:
# 127.0.0.1:8080, cache in ./launchrank.sqlite, the built-in devices.
# Extra arguments go to `launchrank serve` (see `launchrank serve --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh run
[ -f build-release/build.ninja ] || meson setup build-release --buildtype=release >/dev/null
ninja -C build-release >/dev/null
exec ./build-release/clients/cli/launchrank serve "$@"
