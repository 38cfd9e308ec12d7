"""test_levels: POST /v1/levels (issue 45, item 6; docs/api.md, "POST /v1/levels") against a
real daemon with a database, checked against `launchrank levels`, whose table prints the
same computation (protocol/api_levels.c):

  - the 512-cell mesh of tests/data/langguth_fv_mesh_h200.json (values inline): diagonal
    blocks of 32, 128 and 512 cells, levels memory, memory, random, DRAM-bound at 64.0 B/Lup
    with the L2 load rising 56.0 -> 79.8 B/Lup, the mesh itself at 79.6 B/Lup like blocks
    of 512 cells: the table `launchrank levels` prints, to its printed digits; the own
    mesh's row is POST /v1/estimate's answer, figure for figure (tolerance 0);
  - the same values uploaded (PUT /v1/arrays) and named {"sha256"} give the same answer;
  - a 65536-cell mesh (neighbours mostly within 300 cells), uploaded, against the CLI
    reading the same integers from a file: every row's GLup/s, limiter, DRAM, L2 load and
    level as printed (to the printed digits), with an on-chip level between the memory
    plateau and the random mesh;
  - refusals are 4xx JSON errors naming the field: a kernel without an index field (400,
    kernel.fields), an unknown array (400, kernel.fields[2].values.sha256), a body that
    is not JSON (400), GET (405), a body over --max-body (413), a request over
    --max-request-mb (413), and the time limit (422 budget_exceeded at domain), which
    `launchrank levels --time-limit` gives the table too (exit 2).

Usage: test_levels.py LAUNCHRANK SOURCE_ROOT
"""
import copy
import hashlib
import json
import os
import random
import struct
import subprocess
import sys
import tempfile

LR, ROOT = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(ROOT, "tests", "schema"))
from lrdaemon import Daemon  # noqa: E402

FAILED = []
JSON = {"Content-Type": "application/json"}
OCTETS = {"Content-Type": "application/octet-stream"}
MESH = os.path.join(ROOT, "tests", "data", "langguth_fv_mesh_h200.json")

# `launchrank levels tests/data/langguth_fv_mesh_h200.json` (H200, block 128): diagonal
# block, GLup/s, limiter, DRAM and L2 load in B/Lup, level. The 512 cells fill a
# fraction of one wave, so latency-bound DRAM streams give 0.1 GLup/s.
MESH512 = [(32, 0.1, "dram", 64.0, 56.0, "memory"),
           (128, 0.1, "dram", 64.0, 56.0, "memory"),
           (512, 0.1, "dram", 64.0, 79.8, "random")]
MESH512_OWN = (0.1, "dram", 64.0, 79.6, "memory", 512)


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)
    return cond


def post(d, path, obj):
    body = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    status, _, data = d.request("POST", path, body, JSON, timeout=300)
    try:
        return status, json.loads(data)
    except ValueError:
        return status, {"raw": data[:200]}


def cli_table(path):
    """The rows of `launchrank levels path` as (first column, GLup/s, limiter, DRAM, L2,
    level), and the sentence under them."""
    out = subprocess.run([LR, "levels", path], capture_output=True, text=True, timeout=300)
    check(out.returncode == 0, "launchrank levels %s exits 0%s" % (
        os.path.basename(path), "" if out.returncode == 0 else ": " + out.stderr[-200:]))
    rows = []
    for line in out.stdout.splitlines()[2:]:
        if not line.strip() or line.startswith("your mesh performs"):
            continue
        first, rest = line[:12].strip(), line[12:].split()
        rows.append((first, float(rest[0]), rest[1], float(rest[2]), float(rest[3]),
                     rest[4] if len(rest) > 4 else None))
    return rows, out.stdout.strip().splitlines()[-1]


def g3(v):
    """v as the CLI prints GLup/s (%.3g), read back."""
    return float("%.3g" % v)


def row_figures(r):
    p = r["performance"]
    return (p["predicted"], p["limiter"], r["dram_load"] + r["dram_store"], r["l2_load"], r["level"])


def same_as_printed(got, want):
    """A row of the answer against the printed one: GLup/s to 3 significant digits,
    volumes to 0.05 B/Lup (%.1f), limiter and level equal."""
    glups, lim, dram, l2, level = got
    return (g3(glups) == want[0] and lim == want[1] and abs(dram - want[2]) <= 0.05 + 1e-9 and
            abs(l2 - want[3]) <= 0.05 + 1e-9 and level == want[4])


def check_mesh512(d, req):
    status, a = post(d, "/v1/levels", req)
    if not check(status == 200, "levels of the 512-cell mesh: 200 (%d %s)" % (status, str(a)[:200])):
        return None
    check(a["cells"] == 512 and a["neighbours_per_cell"] == 4 and a["index_field"] == "nbr" and
          a["device"] == "H200-SXM-141GB" and a["launch"]["block"] == [128, 1, 1],
          "the answer names the mesh: 512 cells of 4 neighbours in nbr, H200, block 128")
    rows = [(r["block_cells"],) + row_figures(r) for r in a["rows"]]
    check(len(rows) == 3 and all(r[0] == w[0] and same_as_printed(r[1:], w[1:])
                                 for r, w in zip(rows, MESH512)),
          "rows: blocks 32/128/512, memory, memory, random, 64.0 B/Lup DRAM, L2 56.0 -> 79.8 "
          "B/Lup, 0.1 GLup/s (%s)" % rows)
    own = a["mesh"]
    check(same_as_printed(row_figures(own), MESH512_OWN[:5]) and
          own["like_block_cells"] == MESH512_OWN[5],
          "the own mesh: 79.6 B/Lup from L2, memory, like blocks of 512 cells (%s, %s)"
          % (row_figures(own), own["like_block_cells"]))
    status, est = post(d, "/v1/estimate", req)
    check(status == 200 and est["performance"] == own["performance"] and
          est["estimate"]["l2_load"] == own["l2_load"] and
          est["estimate"]["dram_load"] == own["dram_load"],
          "the own mesh's row is POST /v1/estimate's answer (tolerance 0)")
    return a


def check_cli_agrees(answer, path, what):
    rows, last = cli_table(path)
    want = rows[:-1]
    got = [(str(r["block_cells"]),) + row_figures(r) for r in answer["rows"]]
    ok = len(got) == len(want) and all(g[0] == w[0] and same_as_printed(g[1:], w[1:])
                                       for g, w in zip(got, want))
    check(ok, "%s: every row is the CLI's, to its printed digits (%d rows)" % (what, len(want)))
    own = answer["mesh"]
    check(rows and rows[-1][0] == "your mesh" and same_as_printed(row_figures(own), rows[-1][1:]),
          "%s: the own mesh is the CLI's (%s)" % (what, rows[-1:] if rows else None))
    like = own["like_block_cells"]
    check(("about %d cells" % like in last) if like else "below a random mesh" in last,
          "%s: the CLI's sentence names like_block_cells %s: %s" % (what, like, last))
    return [g[-1] for g in got]


def upload(d, raw):
    digest = hashlib.sha256(raw).hexdigest()
    status, _, _ = d.request("PUT", "/v1/arrays/" + digest, raw, OCTETS)
    check(status in (200, 201), "the mesh uploads (%d)" % status)
    return digest


def mesh64k(tmp, req512):
    """The 65536-cell request: neighbours within 300 cells, one in five anywhere; its
    values as a file for the CLI and as bytes to upload."""
    n, rnd = 65536, random.Random(5)
    vals = []
    for x in range(n):
        for _ in range(4):
            vals.append(min(n - 1, max(0, x + rnd.randint(-300, 300))) if rnd.random() < 0.8
                        else rnd.randrange(n))
    raw = struct.pack("<%di" % len(vals), *vals)
    path = os.path.join(tmp, "m64k.i32")
    with open(path, "wb") as f:
        f.write(raw)
    req = copy.deepcopy(req512)
    req["domain"] = [n, 1, 1]
    for f in req["kernel"]["fields"]:
        f["dims"][-1] = n
    req["kernel"]["fields"][2]["values"] = {"file": path, "format": "int32-le"}
    with open(os.path.join(tmp, "m64k.json"), "w") as f:
        json.dump(req, f)
    return req, raw, os.path.join(tmp, "m64k.json")


def check_refusals(d, req):
    with open(os.path.join(ROOT, "docs", "examples", "stencil2d.json")) as f:
        stencil = json.load(f)
    cases = [("a kernel without an index field", stencil, 400, "invalid_request", "kernel.fields")]
    unknown = copy.deepcopy(req)
    unknown["kernel"]["fields"][2]["values"] = {"sha256": "ab" * 32}
    cases.append(("an unknown array", unknown, 400, "invalid_request",
                  "kernel.fields[2].values.sha256"))
    cases.append(("a body that is not JSON", b"{\"device\": ", 400, "invalid_json", ""))
    for what, body, status, code, path in cases:
        st, a = post(d, "/v1/levels", body)
        e = a.get("error", {})
        check(st == status and e.get("code") == code and e.get("path") == path,
              "%s: %d %s at '%s' (%d %s)" % (what, status, code, path, st, str(a)[:200]))
    st, _, data = d.request("GET", "/v1/levels")
    check(st == 405, "GET /v1/levels: 405 (%d)" % st)


def check_cli_time_limit(path):
    """launchrank levels --time-limit: the one limit of the whole table (exit 2)."""
    out = subprocess.run([LR, "levels", "--time-limit", "0.001", path], capture_output=True,
                         text=True, timeout=300)
    e = json.loads(out.stderr.strip().splitlines()[-1]).get("error", {}) if out.stderr.strip() else {}
    check(out.returncode == 2 and e.get("code") == "budget_exceeded" and e.get("path") == "domain",
          "launchrank levels --time-limit 0.001 of 65536 cells: budget_exceeded at domain, exit 2 "
          "(%d %s)" % (out.returncode, out.stderr[-200:]))


def check_limits(req512, big, raw64k):
    """Each limit on a daemon of its own (a new database: the mesh is uploaded to it)."""
    with Daemon(LR, extra_args=["--max-body", "2000"]) as d:
        st, a = post(d, "/v1/levels", req512)
        check(st == 413 and a.get("error", {}).get("code") == "limit_exceeded",
              "a body over --max-body 2000: 413 (%d %s)" % (st, str(a)[:160]))
    for args, status, code, path, what in [
            (["--max-request-mb", "1"], 413, "limit_exceeded", None, "a mesh over --max-request-mb 1"),
            (["--time-limit", "0.02"], 422, "budget_exceeded", "domain",
             "the levels of 65536 cells in 0.02 s")]:
        with Daemon(LR, extra_args=args) as d:
            req = copy.deepcopy(big)
            req["kernel"]["fields"][2]["values"] = {"sha256": upload(d, raw64k)}
            st, a = post(d, "/v1/levels", req)
            e = a.get("error", {})
            check(st == status and e.get("code") == code and (path is None or e.get("path") == path),
                  "%s: %d %s%s (%d %s)" % (what, status, code, " at " + path if path else "", st,
                                          str(a)[:240]))


def main():
    with open(MESH) as f:
        req = json.load(f)
    tmp = tempfile.TemporaryDirectory(prefix="lr-levels-")
    big, raw64k, big_path = mesh64k(tmp.name, req)
    with Daemon(LR) as d:
        inline = check_mesh512(d, req)
        if inline:
            check_cli_agrees(inline, MESH, "512 cells")
            raw = struct.pack("<2048i", *req["kernel"]["fields"][2]["values"]["data"])
            named = copy.deepcopy(req)
            named["kernel"]["fields"][2]["values"] = {"sha256": upload(d, raw)}
            st, a = post(d, "/v1/levels", named)
            check(st == 200 and a == inline, "the mesh uploaded and named by its sha256 answers "
                                             "as its values inline")
        remote = copy.deepcopy(big)
        remote["kernel"]["fields"][2]["values"] = {"sha256": upload(d, raw64k)}
        st, a = post(d, "/v1/levels", remote)
        if check(st == 200, "levels of the 65536-cell mesh: 200 (%d %s)" % (st, str(a)[:200])):
            levels = check_cli_agrees(a, big_path, "65536 cells")
            check(levels[0] == "memory" and "on-chip" in levels and levels[-1] == "random" and
                  [r["block_cells"] for r in a["rows"]] == [32, 128, 512, 2048, 8192, 32768, 65536],
                  "65536 cells: blocks 32 ... 32768 and the random mesh, from the memory plateau "
                  "through on-chip to random (%s)" % levels)
        check_refusals(d, req)
    check_limits(req, big, raw64k)
    check_cli_time_limit(big_path)
    print("%d checks failed" % len(FAILED) if FAILED else "all checks passed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
