#!/usr/bin/env bash
# scripts/deps.sh run|test [--list]: installs the Debian packages launchrank needs, if
# any are missing; safe to run twice. --list prints the set, one per line, and installs
# nothing.
#   run   to build and run the daemon and the CLI (scripts/run.sh): a compiler, meson,
#         the six libraries, help2man (the build writes the man pages with it), curl
#         and python3 (the README's first request and its json.tool).
#   test  the run set plus what the tests drive (scripts/test.sh, CI).
set -euo pipefail
run_pkgs=(gcc pkg-config meson ninja-build help2man python3 libisl-dev libcjson-dev nettle-dev
          libmetis-dev libmicrohttpd-dev libsqlite3-dev curl)
# python3-jsonschema: tests/schema validates every body against schema/.
# chromium, chromium-driver, python3-selenium and a font: tests/web drives the web
# calculator in headless Chromium through Selenium's WebDriver.
# man-db: tests/server/test_install.py renders the installed man pages with man -l.
# python3-prometheus-client: tests/server/test_metrics_format.py reads /metrics with
# its parser.
# python3-numpy: lab/2026-11-29-mesh/predict.py rebuilds the mesh corpus's neighbour
# lists (tests/accuracy, gathers on meshes).
# haproxy: tests/server/test_replicas.py runs three daemons behind it (the replica
# recipe of docs/operations.md); the test is skipped where it is missing.
test_pkgs=(python3-jsonschema python3-numpy chromium fonts-dejavu-core man-db haproxy
           python3-prometheus-client chromium-driver python3-selenium)
case ${1:-} in
  run) pkgs=("${run_pkgs[@]}") ;;
  test) pkgs=("${run_pkgs[@]}" "${test_pkgs[@]}") ;;
  *) echo "usage: scripts/deps.sh run|test [--list]" >&2; exit 2 ;;
esac
if [ "${2:-}" = --list ]; then
  printf '%s\n' "${pkgs[@]}"
  exit 0
fi
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
