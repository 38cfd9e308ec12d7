#!/usr/bin/env bash
# scripts/complexity.sh [BUILD_DIR]: the functions of launchrank's production code that
# break issue 15's limits, no function above 80 lines or a cognitive complexity of 40,
# as clang-tidy measures them (readability-function-size with LineThreshold 80: lines
# of the body, blank and comment lines included; readability-function-cognitive-
# complexity with Threshold 40). Production code is every .c file git tracks (or would: not
# ignored) outside tests/, bench/, lab/ and tools/. BUILD_DIR (default build-test) is a configured meson build
# directory: its compile_commands.json gives each file's flags.
#
# Prints one line per offender, "file:line: function: N lines" or "... complexity N",
# then a count; exits 0 when there is none, 1 when there are offenders, 2 when it
# cannot measure. Not part of the test suite (yet: offenders remain, owned by several
# people). Needs clang-tidy (Debian: apt-get install clang-tidy). Takes a few minutes
# on two cores.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-test}
if ! command -v clang-tidy >/dev/null; then
  echo "complexity.sh: needs clang-tidy (Debian: apt-get install clang-tidy)" >&2
  exit 2
fi
if [ ! -f "$build/compile_commands.json" ]; then
  echo "complexity.sh: no $build/compile_commands.json (meson setup $build first)" >&2
  exit 2
fi
cd "$root"
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.c' |
                     grep -Ev '^(tests|bench|lab|tools)/')
config='{Checks: "-*,readability-function-cognitive-complexity,readability-function-size",
  CheckOptions: [{key: readability-function-cognitive-complexity.Threshold, value: 40},
                 {key: readability-function-cognitive-complexity.DescribeBasicIncrements,
                  value: false},
                 {key: readability-function-size.LineThreshold, value: 80}]}'
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# clang-tidy exits non-zero on warnings and on flags of GCC it does not know; what it
# measured is in its output either way, and a file it could not read at all is said.
clang-tidy -p "$build" --quiet --config="$config" "${files[@]}" >"$out" 2>/dev/null || true
if grep -q "error:" "$out"; then
  echo "complexity.sh: clang-tidy could not read some files:" >&2
  grep "error:" "$out" | sort -u | head -20 >&2
  exit 2
fi
# "f.c:10:12: warning: function 'x' has cognitive complexity of 45 (threshold 40)"
# "f.c:10:12: warning: function 'x' exceeds recommended size/complexity thresholds",
# followed by "note: 95 lines including whitespace and comments (threshold 80)"
report=$(awk '
  /warning: function .* has cognitive complexity of/ {
    split($0, a, ":"); f = a[1]; sub(/^(\.\.\/)+/, "", f)
    match($0, /function \x27[^\x27]*\x27/); fn = substr($0, RSTART + 10, RLENGTH - 11)
    match($0, /complexity of [0-9]+/); n = substr($0, RSTART + 14, RLENGTH - 14)
    printf "%s:%s: %s: complexity %s\n", f, a[2], fn, n
  }
  /warning: function .* exceeds recommended size/ {
    split($0, a, ":"); f = a[1]; sub(/^(\.\.\/)+/, "", f); line = a[2]
    match($0, /function \x27[^\x27]*\x27/); fn = substr($0, RSTART + 10, RLENGTH - 11)
  }
  /note: [0-9]+ lines including whitespace and comments/ && fn != "" {
    match($0, /[0-9]+ lines/); n = substr($0, RSTART, RLENGTH - 6)
    printf "%s:%s: %s: %s lines\n", f, line, fn, n; fn = ""
  }' "$out" | sort -u)
if [ -z "$report" ]; then
  echo "complexity.sh: no function above 80 lines or cognitive complexity 40 (${#files[@]} files)"
  exit 0
fi
echo "$report"
echo "complexity.sh: $(echo "$report" | wc -l) over the limits (${#files[@]} files)"
exit 1
