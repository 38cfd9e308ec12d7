#!/usr/bin/env bash
# Installs the Debian packages launchrank needs to build, run and test, if any are
# missing. Used by scripts/run.sh and scripts/test.sh; safe to run twice.
set -euo pipefail
# chromium and a font: tests/web drives the web calculator in headless Chromium.
# man-db: tests/server/test_install.py renders the installed man pages with man -l.
# haproxy: tests/server/test_replicas.py runs three daemons behind it (the replica
# recipe of docs/operations.md); the test is skipped where it is missing.
pkgs=(gcc pkg-config meson ninja-build libisl-dev libcjson-dev libmicrohttpd-dev
      libsqlite3-dev python3 python3-jsonschema curl chromium fonts-dejavu-core man-db
      haproxy)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "launchrank: installing missing packages: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
