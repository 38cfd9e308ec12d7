#!/usr/bin/env python3
"""scripts/test_summary.py: the short report of scripts/test.sh, from the files meson and
ninja leave behind, so that the terminal shows a summary and the full logs stay in files.

    test_summary.py tests TESTLOG_JSON FAILED_DIR
        One line per failed test ("FAIL name (log: FAILED_DIR/name.log)"), its output
        (stdout and stderr, as meson kept them) written to that file; then the line
        "N passed, N failed, N skipped" (OK and EXPECTEDFAIL pass, SKIP skips, every
        other result fails: FAIL, TIMEOUT, ERROR, UNEXPECTEDPASS). Exit 0.
    test_summary.py build-failure BUILD_LOG
        What a failed build said: from ninja's first "FAILED:" line, at most 60 lines
        (the command and the compiler's error), else the log's last 40 lines. Exit 0.

tests/scripts/test_test_summary.py runs both on made-up logs.
"""
import json
import os
import re
import sys

# A failed build's excerpt: enough for a compiler error with its notes and context,
# short enough to read on one screen.
BUILD_FAILURE_LINES = 60
BUILD_TAIL_LINES = 40


def short_name(name):
    """meson's "project / test" name without the project."""
    return name.split(" / ", 1)[-1]


def log_file_name(name):
    """A file name for a test's name (sentences of letters, digits and underscores;
    anything else becomes '_')."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", short_name(name)) + ".log"


def summarize_tests(testlog, failed_dir, out):
    counts = {"OK": 0, "FAIL": 0, "SKIP": 0}
    failures = []
    with open(testlog) as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            result = r.get("result", "")
            key = ("OK" if result in ("OK", "EXPECTEDFAIL") else
                   "SKIP" if result == "SKIP" else "FAIL")
            counts[key] += 1
            if key == "FAIL":
                failures.append(r)
    if failures:
        os.makedirs(failed_dir, exist_ok=True)
    for r in failures:
        path = os.path.join(failed_dir, log_file_name(r.get("name", "unnamed")))
        with open(path, "w") as f:
            f.write("%s: %s (exit status %s, %.1f s)\n" % (
                r.get("name", ""), r.get("result", ""), r.get("returncode", "?"),
                r.get("duration") or 0.0))
            f.write("command: %s\n" % " ".join(r.get("command") or []))
            f.write("--- stdout\n%s\n--- stderr\n%s\n" % (r.get("stdout") or "",
                                                          r.get("stderr") or ""))
        out.write("%s %s (log: %s)\n" % (r.get("result", "FAIL"),
                                         short_name(r.get("name", "")), path))
    out.write("%d passed, %d failed, %d skipped\n" % (counts["OK"], counts["FAIL"],
                                                      counts["SKIP"]))


def build_failure(log, out):
    with open(log, errors="replace") as f:
        lines = f.read().splitlines()
    first = next((i for i, l in enumerate(lines) if l.startswith("FAILED:")), None)
    shown = (lines[first:first + BUILD_FAILURE_LINES] if first is not None
             else lines[-BUILD_TAIL_LINES:])
    out.write("\n".join(shown) + "\n")


def main(argv):
    if len(argv) == 4 and argv[1] == "tests":
        summarize_tests(argv[2], argv[3], sys.stdout)
    elif len(argv) == 3 and argv[1] == "build-failure":
        build_failure(argv[2], sys.stdout)
    else:
        sys.stderr.write("usage: test_summary.py tests TESTLOG_JSON FAILED_DIR\n"
                         "       test_summary.py build-failure BUILD_LOG\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
