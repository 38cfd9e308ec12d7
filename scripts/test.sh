#!/usr/bin/env bash
# Builds launchrank with AddressSanitizer and UndefinedBehaviorSanitizer and runs every
# test (GPU tests skip when no GPU is present). Ends with "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
dir=build-test
[ -f $dir/build.ninja ] || meson setup $dir -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
ninja -C $dir
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
rc=0
meson test -C $dir --print-errorlogs --num-processes 2 || rc=$?
python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, sys
counts = {"OK": 0, "FAIL": 0, "SKIP": 0}
for line in open(sys.argv[1]):
    r = json.loads(line).get("result", "")
    key = "OK" if r in ("OK", "EXPECTEDFAIL") else "SKIP" if r == "SKIP" else "FAIL"
    counts[key] += 1
print(f"{counts['OK']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped")
PY
exit $rc
