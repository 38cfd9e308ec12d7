"""param_names_once: a row of estimator/params.def is named, as a word, in at most two
production source files: the table and, at most, one consumer (issue 42: adding or
renaming a parameter is one edit of the table and one of the equation that reads it).

Every other reader reaches a parameter through the table: est_mparams (the device's
fields, defaults, bounds, JSON, the fit), est_mparam_sole (the one EST_MEASURED and the
one EST_RANKING row) or RULE(NAME) in the one file whose equation uses the rule. The
built-in devices (estimator/devices/*.json) are data, not source, and tests do not
count.

Usage: param_names_once.py SOURCE_ROOT
"""
import os
import re
import sys

ROOT = sys.argv[1]
DIRS = ["calibrate", "clients", "common", "cudagen", "estimator", "mesh", "protocol",
        "server", "store", "tools"]
SOURCES = (".c", ".h", ".def", ".py", ".in")


def names():
    text = open(os.path.join(ROOT, "estimator/params.def")).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.findall(r"^EST_(?:PARAM|RULE)\(\s*(\w+)", text, flags=re.M)


def sources():
    for d in DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
            for f in sorted(files):
                if f.endswith(SOURCES):
                    path = os.path.join(dirpath, f)
                    yield os.path.relpath(path, ROOT), open(path, errors="replace").read()


def main():
    rows = names()
    if len(rows) < 19:
        print("FAIL params.def has its rows (%d read)" % len(rows))
        sys.exit(1)
    files = list(sources())
    failed = 0
    for name in rows:
        word = re.compile(r"\b%s\b" % re.escape(name))
        where = [path for path, text in files if word.search(text)]
        if len(where) > 2:
            print("FAIL %s is named in %d production files (at most the table and one "
                  "consumer): %s" % (name, len(where), ", ".join(where)))
            failed += 1
    print("%d rows of params.def checked in %d production source files" % (len(rows),
                                                                         len(files)))
    sys.exit(1 if failed else 0)


main()
