#!/usr/bin/env bash
# Builds launchrank with AddressSanitizer and UndefinedBehaviorSanitizer and runs every
# test (GPU tests skip when no GPU is present): about 7 minutes on two cores, most of it
# the tests (one of them alone about 2 minutes).
#
# Prints a summary, the full logs stay in files: a line before building (meson's and
# ninja's output go to build-test/build.log; a failed build prints that log from its
# first error), one line per test as it finishes, each failed test's name and the file
# with its output (build-test/meson-logs/failed/NAME.log; meson's own are
# build-test/meson-logs/testlog.txt and testlog.json), then "N passed, N failed,
# N skipped" and the time taken. Exits 0 when every test passed or was skipped, else
# non-zero (1 for a failed build, meson test's status for failed tests).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
./scripts/deps.sh test
dir=build-test
log=$dir/build.log
failed=$dir/meson-logs/failed
mkdir -p $dir
echo "building (log: $log)"
: >$log
if ! { [ -f $dir/build.ninja ] ||
       meson setup $dir -Db_sanitize=address,undefined -Db_lundef=false >>$log 2>&1; } ||
   ! ninja -C $dir >>$log 2>&1; then
  echo "the build failed after $((SECONDS - start)) s; from $log:"
  python3 scripts/test_summary.py build-failure $log
  exit 1
fi
echo "built in $((SECONDS - start)) s; testing (2 at a time; full output: $dir/meson-logs/testlog.txt)"
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
rm -rf "$failed"
# meson test prints "  3/80 launchrank / NAME   OK   0.12s" per test; the rest of its
# output (failed tests' logs, its own summary) is in testlog.txt.
set +e
PYTHONUNBUFFERED=1 meson test -C $dir --no-rebuild --num-processes 2 2>&1 |
  grep --line-buffered -E '^ *[0-9]+/[0-9]+ '
rc=${PIPESTATUS[0]}
set -e
python3 scripts/test_summary.py tests $dir/meson-logs/testlog.json "$failed"
echo "took $((SECONDS - start)) s"
exit $rc
