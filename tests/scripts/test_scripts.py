#!/usr/bin/env python3
"""tests/scripts: the set-up scripts a newcomer runs first (issue 46, items 1 and 2).

    test_scripts.py SOURCE_ROOT summary|deps

summary: scripts/test_summary.py, which scripts/test.sh ends with, on a made-up
meson testlog.json (each result meson writes) and on made-up ninja logs: the exact
"N passed, N failed, N skipped" line, one line per failed test naming a file that holds
its output, and a failed build's compiler error rather than the whole log. Running
scripts/test.sh itself would take the whole suite's time, so that it calls these is
checked on its text only.

deps: scripts/deps.sh run --list and test --list (nothing installed): run.sh's set
holds the compiler, meson, the libraries, help2man (the build writes the man pages)
and no browser, man-db or haproxy; test's holds run's and those; run.sh asks for run,
test.sh for test, .ci/run calls test.sh.

Exits 0 when all holds, 1 naming what does not.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def read(rel):
    with open(os.path.join(ROOT, rel)) as f:
        return f.read()


def summary_py(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "scripts/test_summary.py"),
                           *args], capture_output=True, text=True)


def case_summary():
    with tempfile.TemporaryDirectory() as t:
        testlog = os.path.join(t, "testlog.json")
        rows = [("launchrank / a_passes", "OK", ""),
                ("launchrank / b_is_expected_to_fail", "EXPECTEDFAIL", ""),
                ("launchrank / c_needs_a_gpu", "SKIP", ""),
                ("launchrank / d_breaks", "FAIL", "expected 3, got 4"),
                ("launchrank / e_hangs", "TIMEOUT", "still waiting"),
                ("launchrank / f_also_passes", "OK", "")]
        with open(testlog, "w") as f:
            for name, result, out in rows:
                f.write(json.dumps({"name": name, "result": result, "stdout": out,
                                    "stderr": "", "returncode": 1, "duration": 0.5,
                                    "command": ["/bin/false"]}) + "\n")
        failed = os.path.join(t, "failed")
        r = summary_py("tests", testlog, failed)
        check(r.returncode == 0, "summary exits 0 (%d: %s)" % (r.returncode, r.stderr))
        lines = r.stdout.splitlines()
        check(lines[-1:] == ["3 passed, 2 failed, 1 skipped"],
              "the last line is '3 passed, 2 failed, 1 skipped': %r" % lines[-1:])
        d_log = os.path.join(failed, "d_breaks.log")
        e_log = os.path.join(failed, "e_hangs.log")
        check("FAIL d_breaks (log: %s)" % d_log in lines, "the failed test and its log: %r"
              % lines)
        check("TIMEOUT e_hangs (log: %s)" % e_log in lines, "the timed-out test and its log")
        check(len(lines) == 3, "nothing but the failures and the count: %r" % lines)
        check(os.path.isfile(d_log) and "expected 3, got 4" in open(d_log).read(),
              "the failed test's output is in its log file")
        check(not any("passes" in l for l in lines), "passing tests are not listed")

        # a failed build: ninja's FAILED line and the compiler's error, not the 150
        # lines of progress before it
        log = os.path.join(t, "build.log")
        with open(log, "w") as f:
            for i in range(150):
                f.write("[%d/167] Compiling C object x%d.o\n" % (i, i))
            f.write("FAILED: estimator/x.o\ncc -c estimator/x.c\n"
                    "estimator/x.c:3:1: error: expected ';' before '}' token\n"
                    "ninja: build stopped: subcommand failed.\n")
        r = summary_py("build-failure", log)
        check("estimator/x.c:3:1: error: expected ';'" in r.stdout,
              "a failed build shows the compiler's error")
        check("[10/167]" not in r.stdout, "a failed build starts at its first error")
        # a log without ninja's FAILED line (meson setup failed): its tail
        with open(log, "w") as f:
            f.write("".join("line %d\n" % i for i in range(100)))
            f.write("meson.build:1:0: ERROR: Dependency \"isl\" not found\n")
        r = summary_py("build-failure", log)
        check('Dependency "isl" not found' in r.stdout and "line 10\n" not in r.stdout,
              "a failed set-up shows the log's tail")

    sh = read("scripts/test.sh")
    check("build-test/build.log" in sh and 'echo "building (log: $log)"' in sh,
          "test.sh says where the build log goes before building")
    check("test_summary.py build-failure" in sh, "test.sh shows a failed build's error")
    check("test_summary.py tests" in sh, "test.sh ends with test_summary.py's summary")
    check("--print-errorlogs" not in sh, "test.sh leaves failed tests' output in files")
    check("took $((SECONDS - start)) s" in sh, "test.sh says how long it took")


def case_deps():
    def pkgs(which):
        r = subprocess.run(["bash", os.path.join(ROOT, "scripts/deps.sh"), which, "--list"],
                           capture_output=True, text=True)
        check(r.returncode == 0, "deps.sh %s --list exits 0 (%s)" % (which, r.stderr))
        return r.stdout.split()
    run, test = pkgs("run"), pkgs("test")
    for p in ("gcc", "meson", "ninja-build", "libisl-dev", "libcjson-dev",
              "libmicrohttpd-dev", "libsqlite3-dev", "help2man"):
        check(p in run, "deps.sh run installs %s" % p)
    for p in ("chromium", "man-db", "haproxy", "fonts-dejavu-core", "python3-jsonschema"):
        check(p not in run, "deps.sh run does not install %s" % p)
        check(p in test, "deps.sh test installs %s" % p)
    check(set(run) <= set(test), "deps.sh test installs everything run does")
    r = subprocess.run(["bash", os.path.join(ROOT, "scripts/deps.sh")], capture_output=True,
                       text=True)
    check(r.returncode == 2 and "usage" in r.stderr, "deps.sh without a set is a usage error")
    check("./scripts/deps.sh run\n" in read("scripts/run.sh"), "run.sh calls deps.sh run")
    check("./scripts/deps.sh test\n" in read("scripts/test.sh"), "test.sh calls deps.sh test")
    check("exec ./scripts/test.sh" in read(".ci/run"), ".ci/run runs scripts/test.sh")


{"summary": case_summary, "deps": case_deps}[sys.argv[2]]()
sys.exit(1 if failures else 0)
