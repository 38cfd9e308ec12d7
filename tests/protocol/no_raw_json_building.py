#!/usr/bin/env python3
"""Every JSON builder of protocol/ adds through protocol/jbuild.c (docs/architecture.md,
issue 42, item 5): a raw cJSON_Add*, cJSON_Create*, cJSON_Insert* or cJSON_Replace*
call in protocol/*.c outside jbuild.c could lose a member on out of memory and the
answer would be sent or cached without it, where jbuild's sticky flag fails the build
whole (LR_NO_MEMORY). Reading JSON (cJSON_Get*, cJSON_Is*, parsing, detaching,
duplicating) is not building and is not looked at.

Usage: no_raw_json_building.py PROTOCOL_DIR. Exit 0 when no such call is found
outside jbuild.c and ALLOWED, 1 otherwise (each call listed as file:line: function).
"""
import os
import re
import sys

# Calls that must stay, as "file:function": reason. None so far; a new entry says why
# the call cannot go through jbuild (and how its failure is still never half-built).
ALLOWED = {}

CALL = re.compile(r"\bcJSON_(Add|Create|Insert|Replace)\w*\s*\(")
# A function definition's first line: a type and a name at column 0, then '('.
FUNC = re.compile(r"^[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\(")


def strip(text):
    """The text with comments and string/char literals blanked (newlines kept)."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  blank, text, flags=re.S)


def calls(path):
    """(line, function, call text) of every building call in the file."""
    out, func = [], "?"
    with open(path, encoding="utf-8") as f:
        lines = strip(f.read()).split("\n")
    for i, line in enumerate(lines, 1):
        m = FUNC.match(line)
        if m and not line.startswith(("typedef", "struct", "static const", "#")):
            func = m.group(1)
        for c in CALL.finditer(line):
            out.append((i, func, c.group(0).rstrip("( \t")))
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    d = sys.argv[1]
    files = sorted(f for f in os.listdir(d) if f.endswith(".c"))
    bad = 0
    # the pattern itself must work: jbuild.c is where the calls are
    if "jbuild.c" not in files or not calls(os.path.join(d, "jbuild.c")):
        print("no cJSON_Add/Create call found in %s/jbuild.c: the check is broken" % d)
        return 1
    for name in files:
        if name == "jbuild.c":
            continue
        for line, func, call in calls(os.path.join(d, name)):
            if "%s:%s" % (name, func) in ALLOWED:
                continue
            print("protocol/%s:%d: %s: %s outside jbuild.c (add through jb_*)" %
                  (name, line, func, call))
            bad += 1
    if bad:
        print("%d raw JSON building call(s) in protocol/; protocol/jbuild.h has the "
              "jb_* equivalents" % bad)
        return 1
    print("no raw JSON building call in %d files of protocol/ outside jbuild.c" %
          (len(files) - 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
