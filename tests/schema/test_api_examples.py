#!/usr/bin/python3
"""test_api_examples: every example of docs/api.md runs and prints what the docs say.

Usage: test_api_examples.py LAUNCHRANK_BINARY SOURCE_ROOT [--show | --update] [--doc docs/OTHER.md]

--doc runs the examples of another page the same way (docs/pystencils.md); the default
is docs/api.md, which must also have a curl example of every route.

An example is a fenced ```sh block whose first line starts with `curl ` or
`launchrank `. The next non-blank line after it states the expected outcome:
    Answer: **200 OK**          (curl: the HTTP status)
    Exit status: **0**          (launchrank: the exit status)
and the fenced block after that line, if any, is the expected output:
  - ```json: the body; "..." as a value matches anything, a "...": "..." entry in an
    object allows keys left out, and "..." as the last element of an array allows more
    elements. Numbers that the model computes may differ by 2 %; "message" and
    "model_version" values are not compared.
  - ```http: `curl -i` output: the status line, the headers shown (except Date and
    Content-Length), then the JSON body as above.
  - ```text: lines compared one by one (numbers within 2 %); a line "..." matches any
    number of lines.
Examples run in document order with the source root as working directory against one
fresh daemon (`launchrank serve --db NEW_FILE`, so the cache starts empty); the docs'
http://127.0.0.1:8080 is replaced by its address and `launchrank` by the binary. A
.curlrc with a write-out format is how the status is read, so commands run as written.
--show prints what each example really outputs (to update the docs); --update writes
it into the page in place of each differing expected output, keeping the page's "..."
abridgements (an object left open stays open, a closed one takes the new keys), then
reports as usual: read the diff before committing it.
Exits 1 on any failure, 0 otherwise.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lrdaemon  # noqa: E402

DOC_BASE = "http://127.0.0.1:8080"
EXAMPLE_TIMEOUT_S = 120
STATUS_MARK = "\n@@launchrank-doc-status=%{http_code}\n"
TOLERANCE = 0.02
# Values the model computes: compared within TOLERANCE; every other number exactly.
MODEL_KEYS = {
    "l1_cycles", "smx_load", "l1_load", "l2_load_compulsory", "l2_load", "l2_store",
    "dram_load_compulsory", "dram_load_warm", "dram_load", "dram_store", "flops", "l1", "l2",
    "dram", "predicted", "l1_coverage", "l2_oversubscription", "wave_overlap_y",
    "wave_overlap_z", "wave_oversubscription_y", "wave_oversubscription_z",
}
NOT_COMPARED = {"message", "model_version"}
ELLIPSIS = "..."


class Example:
    def __init__(self, line, command, kind, expected_status, out_lang, out_text,
                 out_lines=None):
        self.line = line
        self.command = command
        self.kind = kind  # "curl" or "cli"
        self.expected_status = expected_status
        self.out_lang = out_lang
        self.out_text = out_text
        self.out_lines = out_lines  # (first, end) line indices of the output block's text


def fenced_blocks(lines):
    """Yields (start index, end index, info string, text) of each ``` block."""
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if m:
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            yield i, j, m.group(1), "\n".join(lines[i + 1:j])
            i = j + 1
        else:
            i += 1


def parse_examples(md):
    lines = md.split("\n")
    blocks = list(fenced_blocks(lines))
    examples, problems = [], []
    for n, (start, end, lang, text) in enumerate(blocks):
        first = text.lstrip().split("\n", 1)[0]
        if lang != "sh" or not (first.startswith("curl ") or first.startswith("launchrank ")):
            continue
        kind = "curl" if first.startswith("curl ") else "cli"
        k = end + 1
        while k < len(lines) and not lines[k].strip():
            k += 1
        pattern = r"^Answer: \*\*(\d{3})\b" if kind == "curl" else r"^Exit status: \*\*(\d+)\*\*"
        m = re.match(pattern, lines[k]) if k < len(lines) else None
        if not m:
            problems.append("docs/api.md:%d: the example is not followed by %s" % (
                start + 1, "'Answer: **STATUS ...**'" if kind == "curl" else "'Exit status: **N**'"))
            continue
        out_lang = out_text = out_lines = None
        if n + 1 < len(blocks):
            nstart, nend, nlang, ntext = blocks[n + 1]
            between = [ln for ln in lines[k + 1:nstart] if ln.strip()]
            if nlang in ("json", "http", "text") and len(between) <= 2:
                out_lang, out_text, out_lines = nlang, ntext, (nstart + 1, nend)
        examples.append(Example(start + 1, text, kind, int(m.group(1)), out_lang, out_text,
                                out_lines))
    return examples, problems


# ---- comparison ----------------------------------------------------------------------

def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def compare(exp, got, path, key, errors):
    if exp == ELLIPSIS:
        return
    if key in NOT_COMPARED and isinstance(exp, str) and isinstance(got, str):
        return
    if isinstance(exp, dict):
        if not isinstance(got, dict):
            errors.append("%s: expected an object, got %r" % (path, got))
            return
        open_ = ELLIPSIS in exp
        for k, v in exp.items():
            if k == ELLIPSIS:
                continue
            if k not in got:
                errors.append("%s: key %r is missing" % (path, k))
            else:
                compare(v, got[k], "%s.%s" % (path, k), k, errors)
        extra = [k for k in got if k not in exp]
        if extra and not open_:
            errors.append("%s: keys not in the docs: %s" % (path, ", ".join(extra)))
        return
    if isinstance(exp, list):
        if not isinstance(got, list):
            errors.append("%s: expected an array, got %r" % (path, got))
            return
        open_ = bool(exp) and exp[-1] == ELLIPSIS
        items = exp[:-1] if open_ else exp
        if len(got) < len(items) or (not open_ and len(got) != len(items)):
            errors.append("%s: %d elements, the docs show %d%s" % (
                path, len(got), len(items), " or more" if open_ else ""))
        for i, v in enumerate(items[:len(got)]):
            compare(v, got[i], "%s[%d]" % (path, i), key, errors)
        return
    if is_num(exp) and is_num(got):
        if exp == got:
            return
        if key in MODEL_KEYS and abs(exp - got) <= TOLERANCE * max(abs(exp), abs(got)):
            return
        errors.append("%s: %r, the docs show %r" % (path, got, exp))
        return
    if exp != got or type(exp) != type(got):
        errors.append("%s: %r, the docs show %r" % (path, got, exp))


NUM = re.compile(r"^-?\d+(\.\d+)?$")


def compare_text(exp_text, got_text, errors):
    exp = exp_text.rstrip("\n").split("\n")
    got = got_text.rstrip("\n").split("\n")
    if ELLIPSIS in exp:
        cut = exp.index(ELLIPSIS)
        head, tail = exp[:cut], exp[cut + 1:]
        if len(got) < len(head) + len(tail):
            errors.append("%d lines, the docs show at least %d" % (len(got), len(head) + len(tail)))
            return
        pairs = list(zip(head, got)) + list(zip(tail, got[len(got) - len(tail):]))
    else:
        if len(exp) != len(got):
            errors.append("%d lines, the docs show %d" % (len(got), len(exp)))
        pairs = list(zip(exp, got))
    for e, g in pairs:
        et, gt = e.split(), g.split()
        ok = len(et) == len(gt)
        for a, b in zip(et, gt):
            if NUM.match(a) and NUM.match(b):
                x, y = float(a), float(b)
                ok = ok and abs(x - y) <= TOLERANCE * max(abs(x), abs(y))
            else:
                ok = ok and a == b
        if not ok:
            errors.append("line %r, the docs show %r" % (g, e))


def compare_output(ex, stdout, errors):
    lang, text = ex.out_lang, ex.out_text
    if lang is None:
        return
    if lang == "text":
        compare_text(text, stdout, errors)
        return
    body = stdout
    if lang == "http":
        head, sep, body = stdout.replace("\r\n", "\n").partition("\n\n")
        ehead, _, ebody = text.partition("\n\n")
        got_lines, exp_lines = head.split("\n"), ehead.split("\n")
        if got_lines[0].split()[:2] != exp_lines[0].split()[:2]:
            errors.append("status line %r, the docs show %r" % (got_lines[0], exp_lines[0]))
        got_headers = {}
        for ln in got_lines[1:]:
            name, _, value = ln.partition(":")
            got_headers[name.strip().lower()] = value.strip()
        for ln in exp_lines[1:]:
            name, _, value = ln.partition(":")
            name = name.strip().lower()
            if name in ("date", "content-length"):
                continue
            if got_headers.get(name) != value.strip():
                errors.append("header %s: %r, the docs show %r" % (name, got_headers.get(name),
                                                                   value.strip()))
        text = ebody
    try:
        exp = json.loads(text)
    except ValueError as e:
        errors.append("the documented output is not JSON (%s)" % e)
        return
    try:
        got = json.loads(body)
    except ValueError:
        errors.append("the output is not JSON: %r" % body[:300])
        return
    compare(exp, got, "$", None, errors)


# ---- updating the page (--update) ----------------------------------------------------

def merged(exp, got):
    """The documented value exp brought up to got, keeping exp's "..." abridgements."""
    if exp == ELLIPSIS:
        return ELLIPSIS
    if isinstance(exp, dict) and isinstance(got, dict):
        if ELLIPSIS in exp:  # open: the keys shown, in their order, and the "..."
            return {k: (ELLIPSIS if k == ELLIPSIS else merged(v, got[k]))
                    for k, v in exp.items() if k == ELLIPSIS or k in got}
        return {k: (merged(exp[k], v) if k in exp else v) for k, v in got.items()}
    if isinstance(exp, list) and isinstance(got, list):
        open_ = bool(exp) and exp[-1] == ELLIPSIS
        items = exp[:-1] if open_ else exp
        out = [merged(e, g) for e, g in zip(items, got)]
        if open_:
            return out + [ELLIPSIS]
        return out + got[len(items):]
    return got


def updated_text(ex, stdout):
    """The new text of ex's output block for stdout, or None to leave it."""
    if ex.out_lang == "text":
        exp = ex.out_text.rstrip("\n").split("\n")
        got = stdout.rstrip("\n").split("\n")
        if ELLIPSIS not in exp:
            return "\n".join(got)
        cut = exp.index(ELLIPSIS)
        tail = len(exp) - cut - 1
        return "\n".join(got[:cut] + [ELLIPSIS] + (got[len(got) - tail:] if tail else []))
    text, body, head = ex.out_text, stdout, None
    if ex.out_lang == "http":
        head, _, text = text.partition("\n\n")
        body = stdout.replace("\r\n", "\n").partition("\n\n")[2]
    try:
        new = show_json(merged(json.loads(text), json.loads(body)))
    except ValueError:
        return None
    return head + "\n\n" + new if head is not None else new


def write_updates(path, updates):
    """Replaces the output blocks of (example, new text) pairs in the page at path."""
    with open(path) as f:
        lines = f.read().split("\n")
    for ex, text in sorted(updates, key=lambda u: -u[0].out_lines[0]):
        first, end = ex.out_lines
        lines[first:end] = text.split("\n")
    with open(path, "w") as f:
        f.write("\n".join(lines))


# ---- running -----------------------------------------------------------------------

def show_json(v, indent=0):
    """JSON with arrays of scalars on one line, as the docs print it."""
    pad = "  " * indent
    if isinstance(v, dict):
        if not v:
            return "{}"
        items = ['%s  %s: %s' % (pad, json.dumps(k), show_json(x, indent + 1)) for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(v, list):
        if all(not isinstance(x, (dict, list)) for x in v):
            return "[" + ", ".join(json.dumps(x) for x in v) + "]"
        items = ["%s  %s" % (pad, show_json(x, indent + 1)) for x in v]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(v)


def run_example(ex, binary, root, daemon, curl_home):
    cmd = ex.command
    if ex.kind == "curl":
        if DOC_BASE not in cmd:
            return None, None, ["the command does not address %s" % DOC_BASE]
        cmd = cmd.replace(DOC_BASE, daemon.base)
    else:
        cmd = shlex.quote(binary) + cmd.lstrip()[len("launchrank"):]
    env = dict(os.environ, CURL_HOME=curl_home, HOME=curl_home, LC_ALL="C")
    try:
        p = subprocess.run(["sh", "-c", cmd], cwd=root, env=env, capture_output=True,
                           timeout=EXAMPLE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, None, ["did not finish within %d s" % EXAMPLE_TIMEOUT_S]
    out = p.stdout.decode(errors="replace")
    if ex.kind == "cli":
        return p.returncode, out, []
    errors = []
    if p.returncode != 0:
        errors.append("curl exited with %d: %s" % (p.returncode, p.stderr.decode(errors="replace")))
    m = re.search(r"\n@@launchrank-doc-status=(\d{3})\n$", out)
    if not m:
        return None, out, errors + ["no HTTP status (curl's write-out did not run)"]
    return int(m.group(1)), out[:m.start()], errors


def main():
    argv = sys.argv[1:]
    doc = "docs/api.md"
    if "--doc" in argv and argv.index("--doc") + 1 < len(argv):
        i = argv.index("--doc")
        doc = argv[i + 1]
        del argv[i:i + 2]
    args = [a for a in argv if a not in ("--show", "--update")]
    show = "--show" in argv
    update = "--update" in argv
    updates = []
    if len(args) != 2:
        print(__doc__)
        return 2
    binary, root = os.path.abspath(args[0]), os.path.abspath(args[1])
    if not os.access(binary, os.X_OK):
        print("FAIL: %s is not an executable launchrank binary" % binary)
        return 1
    with open(os.path.join(root, doc)) as f:
        examples, problems = parse_examples(f.read())
    for p in problems:
        print("FAIL:", p)
    curl_examples = [e for e in examples if e.kind == "curl"]
    # Guard against a parser that silently finds nothing.
    paths = " ".join(e.command for e in curl_examples)
    for route in ("/v1/estimate", "/v1/rank", "/v1/devices", "/v1/devices/", "/v1/arrays/", "/healthz",
                  "/v1/stats") if doc == "docs/api.md" else ():
        if route not in paths:
            problems.append("no curl example of %s" % route)
            print("FAIL: docs/api.md has no curl example of %s" % route)
    if len(curl_examples) < (10 if doc == "docs/api.md" else 1):
        problems.append("only %d curl examples found" % len(curl_examples))
        print("FAIL: only %d curl examples found in docs/api.md" % len(curl_examples))
    failed = len(problems)
    with tempfile.TemporaryDirectory(prefix="lr-docs-") as curl_home:
        with open(os.path.join(curl_home, ".curlrc"), "w") as f:
            f.write('write-out = "%s"\n' % STATUS_MARK.replace("\n", "\\n"))
        with lrdaemon.Daemon(binary, cache=True) as d:
            for ex in examples:
                status, out, errors = run_example(ex, binary, root, d, curl_home)
                if status is not None and status != ex.expected_status:
                    errors.append("%s %d, the docs say %d" % (
                        "HTTP status" if ex.kind == "curl" else "exit status", status,
                        ex.expected_status))
                if out is not None and not show:
                    compare_output(ex, out, errors)
                    if errors and update and ex.out_lines:
                        new = updated_text(ex, out)
                        if new is not None:
                            updates.append((ex, new))
                title = ex.command.strip().split("\n")[0][:90]
                if show:
                    print("=== %s:%d: %s -> %s" % (doc, ex.line, title, status))
                    try:
                        print(show_json(json.loads(out)) if ex.kind == "curl" or out.lstrip().startswith("{") else out)
                    except ValueError:
                        print(out)
                if errors:
                    failed += 1
                    print("FAIL: %s:%d: %s" % (doc, ex.line, title))
                    for e in errors[:12]:
                        print("    " + e)
                elif not show:
                    print("ok: %s:%d: %s" % (doc, ex.line, title))
    if updates:
        write_updates(os.path.join(root, doc), updates)
        print("updated %d expected outputs in %s" % (len(updates), doc))
    print("%d examples, %d failed" % (len(examples), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
