"""test_web_mesh: the web calculator and unstructured meshes (issue 45, item 6; docs/web.md,
"Meshes"), in headless Chromium against a live daemon with a database.

    test_web_mesh.py LAUNCHRANK SRCROOT SHOTS_DIR

  - the 512-cell mesh request (tests/data/langguth_fv_mesh_h200.json, its index field's
    values inline) fills the form through the "fill the form from a request" box as it
    is: an estimate of it equals the API's answer to the page's own request;
  - ranked with orderings given, rcm, blocks:32, the page shows what the API answers:
    the ordering of every row of the table, the recommended ordering (the decision's,
    or the best result's when there is none), each ordering's one-time cost in seconds
    (the figure as a number, tolerance 0) and permutation, and a chart with one line
    per ordering whose points are the results;
  - the 8-cell mesh of docs/api.md with its neighbour list given as a file
    (tests/data/index8.i32) through the field's file input: the page hashes it,
    uploads it (PUT /v1/arrays/{sha256}, 201), its values become {"sha256": ...} and the
    estimate equals the API's answer to the same integers inline; a file that is not
    whole int32s gets the API's error under the input, naming the field;
  - the levels figure (POST /v1/levels, levels.js) of a 65536-cell mesh uploaded as a file:
    after its estimate the page shows the levels the API names over their diagonal
    blocks (memory ... random), a point per synthetic mesh at the API's GLup/s, the user's
    own mesh marked at its prediction, the axes with their units (cells, GLup/s), and a
    table row per mesh, all equal to the page's own answer and to the daemon's answer to
    the same request; ranked with orderings given and rcm, the figure (not asked again)
    marks rcm at its prediction for the launch's block;
  - every URL the page requested is of the daemon's origin.

Exit 77 (skipped) only when Chromium or chromedriver is not installed.
"""
import base64
import copy
import hashlib
import json
import os
import random
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_web as tw  # noqa: E402  (its helpers, checks and failure list)
from test_web import (check, act, wait_idle, page_request, api,  # noqa: E402
                      check_estimate, check_numbers_short, ESTIMATE_S, RANK_S)
from lrdaemon import Daemon  # noqa: E402

ORDERINGS = ["given", "rcm", "blocks:32"]

# The 8-cell example of docs/api.md, "Index fields", with no values: the file gives them.
MESH8 = {"device": "H200-SXM-141GB", "domain": [8, 1, 1], "launch": {"block": [32, 1, 1]},
         "kernel": {"registers": 24, "flops": 11, "fields": [
             {"name": "u", "dims": [8], "loads": [["x"], ["nbr(0, x)"], ["nbr(1, x)"],
                                                  ["nbr(2, x)"], ["nbr(3, x)"]]},
             {"name": "w", "dims": [4, 8], "loads": [["0", "x"], ["1", "x"], ["2", "x"], ["3", "x"]]},
             {"name": "nbr", "dims": [4, 8], "integer": True,
              "loads": [["0", "x"], ["1", "x"], ["2", "x"], ["3", "x"]]},
             {"name": "out", "dims": [8], "stores": [["x"]]}]}}


def fill_from_request(b, req):
    """Puts req into the request box and presses "Fill the form" (runs nothing)."""
    b.js("(() => { document.getElementById('request-box').open = true;"
         " document.getElementById('request-json').value = %s;"
         " document.getElementById('load-request').click(); })()" % json.dumps(json.dumps(req)))


def field_node(name):
    return ("[...document.querySelectorAll('#fields .field')].find(n => "
            "n.querySelector('.f-name').value === %s)" % json.dumps(name))


def page_answer(b, path):
    """The body of the page's last POST to path, as Chromium received it (the last line
    of a progress stream is the answer)."""
    b.requested_urls()  # drains the log into b.events
    ev = [e for e in b.events if e["params"]["request"]["url"] == b.driver.current_url.split("#")[0]
          .rstrip("/") + path and e["params"]["request"]["method"] == "POST"][-1]
    body = b.driver.execute_cdp_cmd("Network.getResponseBody", {"requestId": ev["params"]["requestId"]})
    text = base64.b64decode(body["body"]).decode() if body.get("base64Encoded") else body["body"]
    lines = [ln for ln in text.split("\n") if ln.strip()]
    return json.loads(lines[-1])


def read_orderings(b):
    return b.js("""(() => {
      const q = (sel) => [...document.querySelectorAll(sel)];
      const t = (e) => e ? (e.querySelector('.num') ? e.querySelector('.num').title : e.textContent) : null;
      return {
        error: document.getElementById('error').hidden ? null : document.getElementById('error').textContent,
        hidden: document.getElementById('orderings-block').hidden,
        rows: q('#rank-table tr[data-rank]').map(tr => [+tr.dataset.rank,
          tr.querySelector('[data-key="ordering"]') ? tr.querySelector('[data-key="ordering"]').textContent : null,
          tr.querySelector('[data-key="predicted"]') ? +tr.querySelector('[data-key="predicted"]').title : null]),
        head: q('#rank-table th').map(th => th.textContent),
        chosen: document.getElementById('ordering-chosen') ? document.getElementById('ordering-chosen').textContent : null,
        chosenText: document.getElementById('recommended-ordering').textContent,
        costs: q('#orderings-table tr[data-ordering]').map(tr => ({
          name: tr.dataset.ordering, seconds: t(tr.querySelector('[data-key="seconds"]')),
          shown: tr.querySelector('[data-key="seconds"]').textContent,
          best: t(tr.querySelector('[data-key="best"]')),
          href: tr.querySelector('[data-key="permutation"] a') ?
            tr.querySelector('[data-key="permutation"] a').getAttribute('href') : null,
          rec: tr.classList.contains('rec')})),
        lines: q('#orderings-chart g.ordering-line').map(g => [g.dataset.ordering,
          [...g.querySelectorAll('g.bar')].map(p => +p.dataset.rank)]),
        legend: q('#orderings-chart .legend span[data-ordering]').map(s => s.dataset.ordering),
      };
    })()""")


def test_mesh_rank(b, d, srcroot, shots):
    with open(os.path.join(srcroot, "tests", "data", "langguth_fv_mesh_h200.json")) as f:
        mesh = json.load(f)
    fill_from_request(b, mesh)
    nbr = field_node("nbr")
    form = b.js("(() => { const n = %s; return n ? {integer: n.querySelector('.f-integer').checked,"
                " values: n.querySelector('.f-values').textContent,"
                " u: %s.querySelector('.f-loads').value.split('\\n')} : null; })()" % (nbr, field_node("u")))
    check(form is not None and form["integer"] and "2048 integers inline" in form["values"] and
          form["u"][1] == "nbr(0, x)",
          "the 512-cell mesh request fills the form: nbr is an index field with its 2048 values "
          "inline, u reads nbr(0, x) (%s)" % (form and {k: v for k, v in form.items() if k != "u"}))
    act(b, "document.getElementById('run-estimate').click()", ESTIMATE_S, "the mesh's estimate")
    _, req = page_request(b)
    f = req["kernel"]["fields"][2]
    check(f.get("integer") is True and f.get("values") == mesh["kernel"]["fields"][2]["values"] and
          req["kernel"]["fields"][0]["loads"] == mesh["kernel"]["fields"][0]["loads"],
          "the page sends the index field and the accesses through it as the request has them")
    check_estimate(b, d, "512-cell mesh")

    b.js("document.getElementById('orderings').value = %s" % json.dumps(", ".join(ORDERINGS)))
    act(b, "document.getElementById('run-rank').click()", RANK_S, "the mesh's ranking by ordering")
    _, req = page_request(b)
    check(req.get("search", {}).get("orderings") == ORDERINGS,
          "the ranking asks for search.orderings %s (%s)" % (ORDERINGS, req.get("search")))
    # The orderings' seconds are wall times, measured anew by each ranking: the page is
    # compared with the very answer it got (its body, from Chromium's network log), and
    # that answer with the daemon's answer to the same request, the seconds aside.
    status, ans = api(d, "/v1/rank", req)
    own = page_answer(b, "/v1/rank")
    same = copy.deepcopy(own)
    for o, p in zip(same.get("orderings", []), ans.get("orderings", [])):
        o["seconds"] = p["seconds"]
    check(own.get("results") == ans.get("results") and same.get("orderings") == ans.get("orderings") and
          own.get("decision") == ans.get("decision"),
          "the page's own answer is the daemon's answer to the same request, but for the seconds "
          "(%s)" % [o["seconds"] for o in own.get("orderings", [])])
    ans = own
    page = read_orderings(b)
    if not check(status == 200 and page["error"] is None and not page["hidden"],
                 "the page shows the ranking's orderings (API %d, page error %s)" % (status, page["error"])):
        return
    want = [[r["rank"], r["ordering"], r["performance"]["predicted"]] for r in ans["results"][:15]]
    check("ordering" in page["head"] and page["rows"] == want,
          "the table's ordering column and predictions are the API's, row by row (%d rows)" % len(want))
    rec = (ans.get("decision") or {}).get("recommended")
    chosen = rec["ordering"] if rec else ans["results"][0]["ordering"]
    check(page["chosen"] == chosen,
          "the recommended ordering %s is the API's %s (%s)"
          % (page["chosen"], "decision's" if rec else "best result's", page["chosenText"]))
    costs = {o["name"]: o for o in ans["orderings"]}
    ok = [c["name"] for c in page["costs"]] == [o["name"] for o in ans["orderings"]]
    for c in page["costs"]:
        o = costs.get(c["name"], {})
        top = next(r for r in ans["results"] if r["ordering"] == c["name"])
        ok = ok and float(c["seconds"]) == o["seconds"] and tw.shown_short(c["shown"], c["seconds"]) and \
            float(c["best"]) == top["performance"]["predicted"] and \
            c["href"] == "/v1/arrays/" + o["permutation_sha256"] and c["rec"] == (c["name"] == chosen)
    check(ok, "each ordering's one-time cost in seconds, best prediction and permutation are "
              "the API's: %s" % [(c["name"], c["seconds"]) for c in page["costs"]])
    # The chart: one line per ordering, through its best result of each block size.
    lines = dict(page["lines"])
    okc = sorted(lines) == sorted(ORDERINGS) and sorted(page["legend"]) == sorted(ORDERINGS)
    for name, ranks in lines.items():
        mine = [r for r in ans["results"] if r["ordering"] == name]
        by_threads = {}
        for r in mine:
            by_threads.setdefault(r["launch"]["threads_per_block"], r["rank"])
        okc = okc and ranks == [by_threads[t] for t in sorted(by_threads)]
    check(okc, "the chart draws one line per ordering through its results by threads per block "
               "(%s)" % {k: len(v) for k, v in lines.items()})
    # The permutation downloads from the daemon, and it is the API's.
    first = ans["orderings"][0]
    got = b.js("fetch(%s).then(r => r.arrayBuffer()).then(a => a.byteLength)"
               % json.dumps("/v1/arrays/" + first["permutation_sha256"]))
    check(got == 8 * 512, "the %s permutation's link gives 512 int64 (%s bytes)" % (first["name"], got))
    check_numbers_short(b, "mesh ranking")
    b.screenshot(os.path.join(shots, "mesh-orderings.png"), tw.rect_of(b, "#orderings-block"))


def test_upload(b, d, srcroot, shots):
    path = os.path.abspath(os.path.join(srcroot, "tests", "data", "index8.i32"))
    with open(path, "rb") as f:
        raw = f.read()
    digest = hashlib.sha256(raw).hexdigest()
    fill_from_request(b, MESH8)
    nbr = field_node("nbr")
    check(b.js("%s.querySelector('.f-values').textContent" % nbr).startswith("no values yet"),
          "an index field without values says so")
    from selenium.webdriver.common.by import By
    inputs = b.driver.find_elements(By.CSS_SELECTOR, "#fields .field .f-file")
    inputs[2].send_keys(path)
    b.wait_for("(%s).dataset.upload === 'ok' || (%s).dataset.upload === 'failed'" % (nbr, nbr),
               ESTIMATE_S, "the upload of index8.i32")
    text = b.js("%s.querySelector('.f-upload').textContent" % nbr)
    check(b.js("%s.dataset.upload" % nbr) == "ok" and digest in text and "HTTP 201" in text and
          "nbr" in text,
          "the file input hashes index8.i32 in the browser and uploads it (201): " + text)
    act(b, "document.getElementById('run-estimate').click()", ESTIMATE_S, "the uploaded mesh's estimate")
    _, req = page_request(b)
    check(req["kernel"]["fields"][2].get("values") == {"sha256": digest},
          "the field's values are {\"sha256\": the file's digest}")
    ans = check_estimate(b, d, "8-cell mesh from a file")
    inline = copy.deepcopy(req)
    inline["kernel"]["fields"][2]["values"] = {"data": list(
        int.from_bytes(raw[i:i + 4], "little", signed=True) for i in range(0, len(raw), 4))}
    status, same = api(d, "/v1/estimate", inline)
    check(ans is not None and status == 200 and
          same["performance"]["predicted"] == ans["performance"]["predicted"],
          "the uploaded file estimates as the same integers inline")
    b.js("%s.scrollIntoView()" % nbr)
    b.screenshot(os.path.join(shots, "mesh-upload.png"), tw.rect_of(b, "#fields .field:nth-child(3)"))
    with tempfile.NamedTemporaryFile(suffix=".i32", delete=False) as bad:
        bad.write(raw[:6])  # not a whole number of int32
    try:
        b.js("%s.dataset.upload = ''" % nbr)
        inputs[2].send_keys(bad.name)
        b.wait_for("(%s).dataset.upload === 'ok' || (%s).dataset.upload === 'failed'" % (nbr, nbr),
                   ESTIMATE_S, "the upload of a broken file")
    finally:
        os.unlink(bad.name)
    text = b.js("%s.querySelector('.f-upload').textContent" % nbr)
    status, _, body = d.request("PUT", "/v1/arrays/" + hashlib.sha256(raw[:6]).hexdigest(), raw[:6],
                                {"Content-Type": "application/octet-stream"})
    e = json.loads(body)["error"]
    check(b.js("%s.dataset.upload" % nbr) == "failed" and e["message"] in text and
          "nbr" in text and "HTTP %d" % status in text and
          b.js("%s.querySelector('.f-file').classList.contains('bad')" % nbr),
          "a file that is not whole int32s gets the API's error (%d, %s) under the input, naming "
          "the field: %s" % (status, e["path"], text[:160]))
    check(b.js("%s.querySelector('.f-values').textContent" % nbr).find(digest) >= 0,
          "after a refused upload the field keeps the values it had")


def mesh_file(n, path):
    """A mesh of n cells, 4 neighbours each within 2000 cells of it (Random(7)), as an
    int32-le file."""
    rnd = random.Random(7)
    vals = [min(n - 1, max(0, x + rnd.randint(-2000, 2000))) for x in range(n) for _ in range(4)]
    with open(path, "wb") as f:
        f.write(struct.pack("<%di" % len(vals), *vals))


def read_levels(b):
    return b.js("""(() => {
      const q = (sel) => [...document.querySelectorAll(sel)];
      const full = (g) => g ? g.querySelector('title').textContent : null;
      return {
        hidden: !document.getElementById('levels') || document.getElementById('levels').hidden,
        state: document.getElementById('levels') ? document.getElementById('levels').dataset.state : 'absent',
        status: document.getElementById('levels-status') ? document.getElementById('levels-status').textContent : '',


        names: q('#levels-chart text.level-name').map(t => [t.dataset.level, t.textContent]),
        bands: q('#levels-chart rect.level-band').length,
        points: q('#levels-chart g.level-point').map(g => [+g.dataset.block, g.dataset.level,
          +full(g.querySelector('.num')), g.querySelector('circle').dataset.limiter]),
        mesh: (g => g ? [+g.dataset.predicted, g.dataset.like] : null)(document.querySelector('#levels-chart g.mesh-mark')),
        meshLabel: full(document.querySelector('#levels-chart .mesh-label') &&
          document.querySelector('#levels-chart .mesh-label').parentNode),
        units: q('#levels-chart text.unit-x, #levels-chart text.unit-y').map(t => t.textContent),
        limits: q('#levels-chart polyline.limit-line').map(l => l.dataset.limit),
        rows: q('#levels-table tr[data-block]').map(tr => [tr.dataset.block,
          tr.querySelector('[data-key="level"]').textContent,
          +tr.querySelector('[data-key="predicted"] .num').title]),
        orderings: q('#levels-chart g.right-labels g.num text[data-ordering]').map(t => [t.dataset.ordering,
          +t.parentNode.querySelector('title').textContent]),
      };
    })()""")


def runs(levels):
    out = []
    for lv in levels:
        if not out or out[-1] != lv:
            out.append(lv)
    return out


def test_levels(b, d, shots):
    n = 65536
    tmp = tempfile.mkdtemp(prefix="lr-web-levels-")
    path = os.path.join(tmp, "mesh64k.i32")
    mesh_file(n, path)
    req = copy.deepcopy(MESH8)
    req["domain"] = [n, 1, 1]
    req["launch"] = {"block": [256, 1, 1]}
    for f in req["kernel"]["fields"]:
        f["dims"][-1] = n
    fill_from_request(b, req)
    nbr = field_node("nbr")
    from selenium.webdriver.common.by import By
    b.driver.find_elements(By.CSS_SELECTOR, "#fields .field .f-file")[2].send_keys(path)
    b.wait_for("(%s).dataset.upload === 'ok' || (%s).dataset.upload === 'failed'" % (nbr, nbr),
               ESTIMATE_S, "the upload of the 65536-cell mesh")
    check(b.js("%s.dataset.upload" % nbr) == "ok", "the 65536-cell mesh file uploads")
    b.js("document.getElementById('orderings').value = ''")
    act(b, "document.getElementById('run-estimate').click()", RANK_S, "the mesh's estimate and levels")
    _, preq = page_request(b)
    try:
        own = page_answer(b, "/v1/levels")
    except IndexError:  # the page never asked
        own = None
    lreq = {k: v for k, v in preq.items() if k not in ("search", "measure")}
    status, ans = api(d, "/v1/levels", lreq)
    check(status == 200 and own == ans, "the page's levels answer is the daemon's answer to the "
                                        "same request (%d)" % status)
    page = read_levels(b)
    if not check(not page["hidden"] and page["state"] == "ok",
                 "the levels figure is shown (%s: %s)" % (page["state"], page["status"][:200])):
        return
    want_runs = runs([r["level"] for r in ans["rows"]])
    check([nm[0] for nm in page["names"]] == want_runs and page["bands"] == len(want_runs) and
          want_runs[0] == "memory" and want_runs[-1] == "random" and
          all(nm[1] for nm in page["names"]),
          "the levels are named over their diagonal blocks, as the API names them: %s" % page["names"])
    want = [[r["block_cells"], r["level"], r["performance"]["predicted"], r["performance"]["limiter"]]
            for r in ans["rows"]]
    check(page["points"] == want and want[0][0] == 32 and want[-1][0] == n,
          "a point per synthetic mesh, b = 32 ... %d, at the API's GLup/s and limiter (%d points)"
          % (n, len(want)))
    m = ans["mesh"]
    like = "none" if m["like_block_cells"] is None else str(m["like_block_cells"])
    check(page["mesh"] == [m["performance"]["predicted"], like] and
          page["meshLabel"] == str(m["performance"]["predicted"]),
          "the own mesh is marked at its %s GLup/s, like blocks of %s cells (%s)"
          % (m["performance"]["predicted"], like, page["mesh"]))
    check(len(page["units"]) == 2 and "cells" in page["units"][0] and "GLup/s" in page["units"][1] and
          "log" in page["units"][0],
          "the axes name their units: %s" % page["units"])
    check(page["limits"] and set(page["limits"]) <= set(ans["rows"][0]["performance"]),
          "the limits are drawn as lines: %s" % page["limits"])
    check(page["rows"] == [[str(r["block_cells"]), r["level"], r["performance"]["predicted"]]
                           for r in ans["rows"]] + [["mesh", m["level"], m["performance"]["predicted"]]],
          "the table lists each mesh's level and GLup/s, the own mesh last")
    check_numbers_short(b, "levels")
    # a ranking over orderings of the same request: the figure is reused, rcm marked
    asked = len([e for e in b.events if e["params"]["request"]["url"].endswith("/v1/levels")])
    b.js("document.getElementById('orderings').value = 'given, rcm'")
    act(b, "document.getElementById('run-rank').click()", RANK_S, "the mesh's ranking by ordering")
    rank = page_answer(b, "/v1/rank")
    again = len([e for e in b.events if e["params"]["request"]["url"].endswith("/v1/levels")])
    rcm = [r for r in rank.get("results", []) if r["ordering"] == "rcm" and r["block"] == [256, 1, 1]
           and r["folding"] == [1, 1, 1]]
    page = read_levels(b)
    check(again == asked and rcm and page["orderings"] == [["rcm", rcm[0]["performance"]["predicted"]]],
          "after the ranking the figure marks rcm at its %s GLup/s for block 256 without asking "
          "the levels again (%s; levels asked %d then %d times)"
          % (rcm and rcm[0]["performance"]["predicted"], page["orderings"], asked, again))
    # docs/web.md's picture of the figure
    b.screenshot(os.path.join(shots, "mesh-levels.png"), tw.rect_of(b, "#levels"))
    os.unlink(path)
    os.rmdir(tmp)


def main(argv):
    if len(argv) < 4:
        print(__doc__)
        return 2
    launchrank, srcroot, shots = argv[1:4]
    from browser import Browser, find_chromium
    chromium = find_chromium()
    if not chromium:
        print("SKIP: no Chromium or no chromedriver installed (scripts/deps.sh installs them)")
        return 77
    os.makedirs(shots, exist_ok=True)
    with Daemon(launchrank) as d, Browser(chromium) as b:
        b.navigate(d.base + "/")
        wait_idle(b, 0, ESTIMATE_S, "the page's first estimate")
        test_mesh_rank(b, d, srcroot, shots)
        test_upload(b, d, srcroot, shots)
        test_levels(b, d, shots)
        urls = b.requested_urls()
        foreign = [u for u in urls if not (u.startswith(d.base + "/") or u.startswith("data:"))]
        check(not foreign, "the page requested %d URLs, all of %s (others: %s)"
              % (len(urls), d.base, foreign[:3]))
    print("%d checks failed" % len(tw.failures) if tw.failures else "all checks passed")
    return 1 if tw.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
