"""no_call_circle: the files of a module call each other without a circle (issue 42).

docs/architecture.md promises that within a module the files form layers: a file calls
functions of files below it, never one that (through others) calls it back. This reads
the module's static library with nm, draws an arrow from each object file to the
files that define the functions and data it uses, and fails, naming the circle, when
the arrows close one.

Usage: no_call_circle.py NM LIBRARY...
"""
import collections
import os
import subprocess
import sys


def graph(nm, lib):
    out = subprocess.run([nm, "-A", lib], capture_output=True, text=True, check=True).stdout
    defined, used = {}, collections.defaultdict(set)
    for line in out.splitlines():
        # "lib.a:file.c.o:0000000000000000 T name" or "lib.a:file.c.o:                 U name"
        head, _, rest = line.rpartition(":")
        obj = os.path.basename(head.split(":")[-1]).removesuffix(".o")
        fields = rest.split()
        if len(fields) < 2:
            continue
        kind, name = fields[-2], fields[-1]
        if kind in "TDBRC":
            defined[name] = obj
        elif kind == "U":
            used[obj].add(name)
    return {o: sorted({defined[n] for n in names if defined.get(n, o) != o})
            for o, names in used.items()}


def circle(g):
    """A list of files closing a circle, or None."""
    state, stack = {}, []

    def visit(v):
        state[v] = 1
        stack.append(v)
        for w in g.get(v, []):
            if state.get(w) == 1:
                return stack[stack.index(w):] + [w]
            if w not in state:
                found = visit(w)
                if found:
                    return found
        stack.pop()
        state[v] = 2
        return None

    for v in sorted(g):
        if v not in state:
            found = visit(v)
            if found:
                return found
    return None


def main():
    nm, libs = sys.argv[1], sys.argv[2:]
    bad = 0
    for lib in libs:
        g = graph(nm, lib)
        c = circle(g)
        name = os.path.basename(lib)
        if c:
            print("FAIL %s: %s calls itself back: %s" % (name, c[0], " -> ".join(c)))
            bad += 1
        else:
            print("ok   %s: %d files, %d arrows, no circle"
                  % (name, len(g), sum(len(v) for v in g.values())))
    sys.exit(1 if bad else 0)


main()
