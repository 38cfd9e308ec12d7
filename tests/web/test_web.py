"""test_web: the web calculator (web/, docs/web.md) against a live daemon.

    test_web.py static LAUNCHRANK SRCROOT
        GET / and GET /web/{file} answer the files of web/ byte for byte, with their
        types and the Content-Security-Policy that keeps the page to its origin;
        unknown files and other methods get the API's JSON errors.
    test_web.py browser LAUNCHRANK SRCROOT SHOTS_DIR [--docs DIR]
        drives the page in Debian's headless Chromium through Selenium and
        chromedriver (tests/web/browser.py): loads each preset, edits an expression,
        provokes a syntax error and checks where it is marked, runs a ranking, hovers
        over it, measures, opens a permalink, and saves screenshots (with --docs,
        also the three of docs/web.md). Every number read off
        the page is compared with the daemon's answer to the same request, sent by
        this script: equal as numbers (tolerance 0, the page shows the JSON's
        numbers as they are). At the end, every URL the page requested must be of the
        daemon's origin.

Exit 77 (skipped) only when Chromium or chromedriver is not installed (scripts/deps.sh
installs both, and python3-selenium, without which the browser test fails).
"""
import json
import math
import os
import re
import time
import subprocess
import sys
import tempfile
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "schema"))
from lrdaemon import Daemon  # noqa: E402

ESTIMATE_S = 60   # one estimate under ASan on a loaded 2-core machine: well under 1 s
RANK_S = 240      # the 25-point ranking, 230 configurations: ~5 s under ASan alone
PRESET_25 = "3-D 25-point, range 4"
# A device stored with `launchrank devices add`, as a lab adds a GPU it calibrated.
STORED = {"base": "A100-SXM4-40GB", "name": "Lab-A100", "dram_bw_gbs": 1234}

failures = []


def check(cond, what):
    if cond:
        print("ok  ", what)
    else:
        print("FAIL", what)
        failures.append(what)
    return cond


def numbers(text):
    """The numbers written in text, as floats."""
    return [float(t) for t in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)]


def first_number(text):
    found = numbers(text)
    return found[0] if found else None


def sig_digits(text):
    """Significant digits of the first number written in text (trailing zeros of an
    integer do not count: 1310 has three)."""
    m = re.search(r"\d+(?:\.\d+)?", text)
    if not m:
        return 0
    t = m.group(0)
    digits = t.replace(".", "").lstrip("0")
    return len(digits.rstrip("0") if "." not in t else digits)


def shown_short(text, full):
    """Issue 46, item 5: a number is shown to three significant digits, the API's
    figure (its title) rounded: within half a unit of the third digit."""
    x, v = first_number(text), first_number(full or "")
    if x is None or v is None:
        return False
    if v == 0 or v == int(v) and x == v:
        return True
    unit = 10 ** (math.floor(math.log10(abs(v))) - 2)
    return sig_digits(text) <= 3 and abs(x - v) <= unit / 2 * (1 + 1e-9)


def launch_cell(b, key):
    """The launch table's value for key: a number's full value (its title), else the text."""
    return b.js("""(() => { const td = document.querySelector('#launch-table td[data-key="%s"]');
      return td && (td.querySelector('.num') ? +td.querySelector('.num').title : td.textContent); })()"""
                % key)


def check_numbers_short(b, label):
    """Every number the page marks as one (.num) shows three significant digits and
    has the full value in its title (hover): HTML spans by their title attribute, SVG
    texts by the <title> of their group."""
    pairs = b.js("""[...document.querySelectorAll('#results .num')].filter(e => e.getClientRects().length)
      .map(e => e.tagName === 'g' ? [e.querySelector('text').textContent, e.querySelector('title').textContent]
                                  : [e.textContent, e.title])""")
    bad = [p for p in pairs if not shown_short(p[0], p[1])]
    check(len(pairs) > 0 and not bad,
          "%s: %d numbers shown to 3 significant digits, the API's figure on hover (wrong: %s)"
          % (label, len(pairs), bad[:3]))


def titles(b, selector):
    """The full values (titles) of the numbers under selector, as floats."""
    return [float(t) for t in b.js("[...document.querySelectorAll(%s)].map(e => e.title)"
                                   % json.dumps(selector + " .num"))]


def api(d, path, req):
    status, _, body = d.request("POST", path, json.dumps(req).encode(),
                                {"Content-Type": "application/json"})
    return status, json.loads(body)


# ---- static files -------------------------------------------------------------------

def test_static(launchrank, srcroot):
    with Daemon(launchrank, cache=False) as d:
        status, headers, body = d.request("GET", "/")
        check(status == 200 and headers.get("content-type") == "text/html; charset=utf-8",
              "GET / answers 200 text/html (got %d %s)" % (status, headers.get("content-type")))
        with open(os.path.join(srcroot, "web", "index.html"), "rb") as f:
            check(body == f.read(), "GET / is web/index.html byte for byte")
        csp = headers.get("content-security-policy", "")
        check("default-src 'self'" in csp and "connect-src" not in csp,
              "the page may load and call its own origin only (CSP: %s)" % csp)
        check(headers.get("x-content-type-options") == "nosniff", "the page's files are not sniffed")
        for name, type_ in (("app.js", "text/javascript; charset=utf-8"),
                            ("levels.js", "text/javascript; charset=utf-8"),
                            ("style.css", "text/css; charset=utf-8"),
                            ("index.html", "text/html; charset=utf-8")):
            status, headers, body = d.request("GET", "/web/" + name)
            with open(os.path.join(srcroot, "web", name), "rb") as f:
                check(status == 200 and headers.get("content-type") == type_ and body == f.read(),
                      "GET /web/%s is web/%s byte for byte, as %s" % (name, name, type_))
        # No address of another site in the page's files: the SVG namespace is a name,
        # never fetched.
        for name in ("index.html", "app.js", "levels.js", "style.css"):
            with open(os.path.join(srcroot, "web", name)) as f:
                urls = set(re.findall(r"(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s\"')]*", f.read()))
            check(urls <= {"http://www.w3.org/2000/svg"},
                  "web/%s names no other site (%s)" % (name, sorted(urls)))
        status, headers, body = d.request("HEAD", "/")
        check(status == 200 and body == b"", "HEAD / answers 200 without a body")
        for path in ("/web/missing.js", "/web/meson.build", "/web/", "/web/a/app.js",
                     "/web/%2e%2e%2fREADME.md", "/index.html"):
            status, headers, body = d.request("GET", path)
            err = json.loads(body).get("error", {}) if body.startswith(b"{") else {}
            check(status == 404 and err.get("code") == "not_found" and
                  headers.get("content-type") == "application/json",
                  "GET %s is a 404 not_found in JSON (got %d)" % (path, status))
        status, headers, body = d.request("POST", "/", b"{}", {"Content-Type": "application/json"})
        check(status == 405 and json.loads(body)["error"]["code"] == "method_not_allowed" and
              "GET" in headers.get("allow", ""), "POST / is a 405 that allows GET")
        status, _, body = d.request("GET", "/v1/stats")
        counts = json.loads(body)["requests"]
        check(counts.get("GET /") == 2 and counts.get("GET /web/{file}") >= 3,
              "/v1/stats counts the page's routes (GET / %s, GET /web/{file} %s)"
              % (counts.get("GET /"), counts.get("GET /web/{file}")))


# ---- the page in Chromium ---------------------------------------------------------------

def wait_idle(b, done_before, timeout_s, what):
    b.wait_for("document.body && Number(document.body.dataset.done || 0) > %d && "
               "document.body.dataset.running === '0' && document.body.dataset.ready === '1'"
               % done_before, timeout_s, what)


def act(b, script, timeout_s, what):
    """Runs script (which starts one request of the page) and waits until answered."""
    before = b.js("Number(document.body.dataset.done || 0)")
    b.js(script)
    wait_idle(b, before, timeout_s, what)


def page_request(b):
    """The request of the page's permalink (the URL fragment)."""
    frag = b.js("location.hash")
    m = re.match(r"^#(estimate|rank)=(.*)$", frag, re.S)
    return m.group(1), json.loads(urllib.parse.unquote(m.group(2)))


def read_estimate(b):
    return b.js("""(() => {
      const q = (sel) => [...document.querySelectorAll(sel)];
      return {
        hidden: document.getElementById('estimate').hidden,
        error: document.getElementById('error').hidden ? null : document.getElementById('error').textContent,
        predicted: document.getElementById('predicted').title,
        limiter: document.getElementById('limiter').textContent,
        reason: document.getElementById('reason').textContent,
        levels: Object.fromEntries(q('#volumes-chart text[data-level]').map(e => [e.dataset.level,
          e.parentNode.classList.contains('num') ? e.parentNode.querySelector('title').textContent : e.textContent])),
        segments: q('#volumes-chart rect title').map(t => t.textContent),
        limits: Object.fromEntries(q('#limits-chart text[data-limit]').map(e => [e.dataset.limit, e.textContent])),
        limitsFull: Object.fromEntries(q('#limits-chart text[data-limit]').map(e => [e.dataset.limit,
          e.parentNode.classList.contains('num') ? e.parentNode.querySelector('title').textContent : e.textContent])),
        reasonFull: q('#reason .num').map(e => +e.title),
        limiterBars: q('#limits-chart rect.limiter-bar').length,
        launch: Object.fromEntries(q('#launch-table td[data-key]').map(e => [e.dataset.key, e.textContent])),
      };
    })()""")


def check_estimate(b, d, label):
    """The page's estimate equals the daemon's answer to the page's own request."""
    action, req = page_request(b)
    status, ans = api(d, "/v1/estimate", req)
    page = read_estimate(b)
    if not check(status == 200 and not page["hidden"] and page["error"] is None,
                 "%s: the page shows an estimate (API %d, page error %s)" % (label, status, page["error"])):
        return None
    perf, est = ans["performance"], ans["estimate"]
    check(first_number(page["predicted"] or "") == perf["predicted"] and page["limiter"] == perf["limiter"],
          "%s: predicted %s GLup/s, limiter %s, as the API (%s, %s)"
          % (label, page["predicted"], page["limiter"], perf["predicted"], perf["limiter"]))
    levels = {k: est[k] for k in ("smx_load", "l1_load", "l2_load", "l2_store", "dram_load", "dram_store")
              if est[k] is not None}
    check(set(page["levels"]) == set(levels) and
          all(float(page["levels"][k]) == v for k, v in levels.items()),
          "%s: each level's bar is labelled with the API's volume in B/Lup %s" % (label, page["levels"]))
    # Each stacked segment is one field's volume at one level: "name: V B/Lup level".
    want = sorted((f, v[k]) for f, v in ans["fields"].items() for k in levels if v[k])
    got = sorted((t.split(":")[0], first_number(t.split(":", 1)[1])) for t in page["segments"])
    check(got == want, "%s: %d stacked segments, each a field's volume as the API gives it"
          % (label, len(want)))
    limits = {k: v for k, v in perf.items() if k not in ("predicted", "limiter")}
    ok = all((page["limits"].get(k) in ("no limit", "not in the warpspeed model")) if v is None else
             first_number(page["limitsFull"].get(k, "")) == v for k, v in limits.items())
    check(ok and first_number(page["limitsFull"]["predicted"]) == perf["predicted"],
          "%s: every limit in GLup/s as the API (null = 'no limit'), and the prediction line" % label)
    check(page["limiterBars"] == (0 if perf["limiter"] == "none" else 1) and
          ("limiter" in page["limits"].get(perf["limiter"], "") or perf["limiter"] == "none"),
          "%s: the limiter's bar (%s) is the one highlighted" % (label, perf["limiter"]))
    check(perf["limiter"] == "none" or perf[perf["limiter"]] in page["reasonFull"],
          "%s: the reason names the limiter's value: %s" % (label, page["reason"]))
    check(first_number(page["launch"]["blocks per SM"]) == ans["launch"]["blocks_per_sm"],
          "%s: blocks per SM %s as the API" % (label, page["launch"]["blocks per SM"]))
    # Issue 46, item 5: occupancy, as the answer has it (it names no limiting
    # resource, so neither does the page).
    active = ans.get("details", {}).get("active_threads_per_sm")
    shown = launch_cell(b, "active threads per SM")
    check(first_number(page["launch"].get("threads per block", "")) == ans["launch"]["threads_per_block"] and
          (shown == active if active is not None else shown == "not in this model"),
          "%s: threads per block %s and active threads per SM %s as the API (%s)"
          % (label, page["launch"].get("threads per block"), shown, active))
    resident = ans.get("details", {}).get("blocks_resident")
    held = launch_cell(b, "blocks held per SM")
    check(held == resident if resident is not None else held == "not in this model",
          "%s: blocks held per SM %s as the API's blocks_resident (%s)" % (label, held, resident))
    check_numbers_short(b, label)
    return ans


def center_of(b, selector):
    """Scrolls selector into view; its centre in viewport coordinates (for the mouse)."""
    return b.js("(() => { const e = document.querySelector(%s); e.scrollIntoView({block: 'center'});"
                " const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
                % json.dumps(selector))


def test_presets(b, d, shots):
    names = b.js("[...document.querySelectorAll('#preset option')].map(o => o.value).filter(v => v)")
    check(len(names) == 5, "five presets: %s" % names)
    for name in names:
        act(b, "(() => { const p = document.getElementById('preset'); p.value = %s;"
               " p.dispatchEvent(new Event('change')); })()" % json.dumps(name),
            ESTIMATE_S, "the estimate of preset " + name)
        ans = check_estimate(b, d, name)
        slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
        b.screenshot(os.path.join(shots, "estimate-%s.png" % slug))
        if ans and name == "D3Q19 pull":
            check(len(ans["fields"]) == 38, "D3Q19 pull: 19 fields read, 19 written")


def select_line(b, selector, line, start=0, end=None):
    """Focuses a textarea and selects columns [start, end) of a line (0-based)."""
    b.js("""(() => { const t = document.querySelector(%s); t.focus();
      const lines = t.value.split('\\n'); let o = 0;
      for (let i = 0; i < %d; i++) o += lines[i].length + 1;
      const end = %s === null ? lines[%d].length : %s;
      t.setSelectionRange(o + %d, o + end); })()"""
         % (json.dumps(selector), line, json.dumps(end), line, json.dumps(end), start))


def test_edit_and_error(b, d, shots, docs):
    act(b, "(() => { const p = document.getElementById('preset'); p.value = '3-D 7-point';"
           " p.dispatchEvent(new Event('change')); })()", ESTIMATE_S, "the 7-point estimate")
    before = check_estimate(b, d, "7-point")
    loads = "#fields .field:nth-child(1) .f-loads"
    check(b.js("document.querySelector(%s).value.split('\\n')[0]" % json.dumps(loads)) == "x+1, y+1, z+1",
          "the 7-point preset's first load is 'x+1, y+1, z+1'")
    # Type over the last character: z+1 -> z+3, then Estimate.
    line0 = "x+1, y+1, z+1"
    select_line(b, loads, 0, len(line0) - 1, len(line0))
    b.insert_text("3")
    act(b, "document.getElementById('run-estimate').click()", ESTIMATE_S, "the edited estimate")
    _, req = page_request(b)
    check(req["kernel"]["fields"][0]["loads"][0] == ["x+1", "y+1", "z+3"],
          "the edited expression is in the request (%s)" % req["kernel"]["fields"][0]["loads"][0])
    after = check_estimate(b, d, "7-point edited")
    if before and after:
        check(after["estimate"]["l2_load"] != before["estimate"]["l2_load"],
              "the edit changed the L2 volume (%s -> %s B/Lup)"
              % (before["estimate"]["l2_load"], after["estimate"]["l2_load"]))
    link = b.js("location.href")

    # A syntax error on line 2, second expression: 'y+*2' has '*' at its column 3.
    select_line(b, loads, 1)
    b.insert_text("x+1, y+*2, z+1")
    act(b, "document.getElementById('run-estimate').click()", ESTIMATE_S, "the estimate with an error")
    _, req = page_request(b)
    status, ans = api(d, "/v1/estimate", req)
    err = ans.get("error", {})
    mark = b.js("""(() => { const m = document.querySelector('.err-mark');
      return m && {line: +m.dataset.line, column: +m.dataset.column, text: m.textContent,
        bad: document.querySelector('%s').classList.contains('bad'),
        box: document.getElementById('error').textContent,
        estimateHidden: document.getElementById('estimate').hidden}; })()""" % loads)
    check_stale(b, True, "after the syntax error")
    check(status == 400 and err.get("path") == "kernel.fields[0].loads[1][1]" and "column 3" in err.get("message", ""),
          "the API reports the syntax error at kernel.fields[0].loads[1][1], column 3 (%d %s)" % (status, err))
    if check(mark is not None, "the page marks the error in place"):
        typed = "x+1, y+*2, z+1"
        check(mark["line"] == 2 and mark["column"] == 8 and typed[mark["column"] - 1] == "*",
              "the mark is on line 2 at column 8 of what was typed, the '*' (got line %d column %d)"
              % (mark["line"], mark["column"]))
        check(mark["bad"] and err["message"] in mark["text"] and err["path"] in mark["box"],
              "the textarea is flagged and the API's message and path are shown")
        b.screenshot(os.path.join(shots, "error-mark.png"), clip=rect_of(b, "#form"))
        if docs:
            b.screenshot(os.path.join(docs, "error-mark.png"), clip=rect_of(b, "#fields .field"))
    # The cursor was put on the error: typing there fixes it.
    b.insert_text("2*")  # replaces the selected '*': 'y+2*2'
    act(b, "document.getElementById('run-estimate').click()", ESTIMATE_S, "the estimate after the fix")
    _, req = page_request(b)
    check(req["kernel"]["fields"][0]["loads"][1][1] == "y+2*2" and
          b.js("document.querySelector('.err-mark') === null"),
          "typing at the marked column fixes the expression and clears the mark (%s)"
          % req["kernel"]["fields"][0]["loads"][1])
    check_estimate(b, d, "7-point fixed")
    check_stale(b, False, "after the fix")
    return link


def check_stale(b, stale, when):
    """Issue 46, item 5: after a failed request the earlier results on screen are
    visibly marked stale (greyed out, under a note), and unmarked by the next answer."""
    page = b.js("""(() => { const note = document.getElementById('stale-note');
      return {cls: document.getElementById('results').classList.contains('stale'),
        note: note !== null && !note.hidden && note.getBoundingClientRect().height > 0,
        opacity: +getComputedStyle(document.getElementById('estimate')).opacity}; })()""")
    if stale:
        check(page["cls"] and page["note"] and page["opacity"] < 0.5,
              "%s: the earlier results are marked stale, greyed out under a note (%s)" % (when, page))
    else:
        check(not page["cls"] and not page["note"] and page["opacity"] == 1,
              "%s: the results are not marked stale (%s)" % (when, page))


def test_stored_device(b, d):
    """A device stored with `launchrank devices add` is offered, marked as stored, with
    the figures GET /v1/devices gives, and estimates on it are the API's."""
    status, _, body = d.request("GET", "/v1/devices")
    lab = [x for x in json.loads(body)["devices"] if x["name"] == STORED["name"]]
    label = b.js("(() => { const o = [...document.querySelectorAll('#device option')]"
                 ".find(o => o.value === %s); return o ? o.textContent : null; })()"
                 % json.dumps(STORED["name"]))
    if not check(lab and label is not None, "the stored device %s is offered: %s" % (STORED["name"], label)):
        return
    check("(stored)" in label and lab[0]["sm_count"] in numbers(label) and
          lab[0]["dram_bw_gbs"] in numbers(label),
          "its option says stored, with its SMs and DRAM GB/s from GET /v1/devices")
    b.js("document.getElementById('device').value = %s" % json.dumps(STORED["name"]))
    act(b, "document.getElementById('run-estimate').click()", ESTIMATE_S, "the estimate on the stored device")
    _, req = page_request(b)
    check(req["device"] == STORED["name"], "the request names the stored device")
    ans = check_estimate(b, d, "stored device")
    if ans:
        check(ans["device"] == STORED["name"], "the answer is for %s" % ans["device"])


def test_warnings(b, d):
    """A field smaller than the domain: the answer's warnings (issue 11), when the
    daemon gives them, are listed and frame the accesses they name."""
    act(b, "(() => { const p = document.getElementById('preset'); p.value = '2-D 5-point';"
           " p.dispatchEvent(new Event('change')); })()", ESTIMATE_S, "the 5-point estimate")
    b.js("document.querySelector('#fields .field .f-dims').value = '100 100'")
    act(b, "document.getElementById('run-estimate').click()", ESTIMATE_S, "the estimate of a small field")
    ans = check_estimate(b, d, "small field")
    if not ans:
        return
    page = b.js("""({items: [...document.querySelectorAll('#estimate-warnings li')].map(li => li.textContent),
      hidden: document.getElementById('estimate-warnings').hidden,
      warned: [...document.querySelectorAll('.warned')].map(e => e.className)})""")
    warnings = ans.get("warnings") or []
    if not warnings:
        check(page["hidden"], "no warnings in the answer, none shown")
        return
    check(len(page["items"]) == len(warnings) and
          all(w["message"] in t for w, t in zip(warnings, page["items"])),
          "the %d warnings of the answer are listed with their messages" % len(warnings))
    check(any("f-loads" in c for c in page["warned"]),
          "the loads they name are framed as warned (%s)" % page["warned"])


def test_warpspeed(b, d):
    """The reference method: chosen in the form, sent as model, its answer shown; the
    limits it does not model are said to be so."""
    act(b, "(() => { const p = document.getElementById('preset'); p.value = '3-D 7-point';"
           " p.dispatchEvent(new Event('change')); })()", ESTIMATE_S, "the 7-point estimate")
    b.js("document.getElementById('model').value = 'warpspeed'")
    act(b, "document.getElementById('run-estimate').click()", ESTIMATE_S, "the warpspeed estimate")
    _, req = page_request(b)
    ans = check_estimate(b, d, "warpspeed")
    if ans:
        limits = read_estimate(b)["limits"]
        check(req.get("model") == "warpspeed" and ans["model"] == "warpspeed" and
              all(limits[k] == "not in the warpspeed model" for k in ("latency", "blocks", "stores")),
              "model warpspeed: sent, answered, latency/blocks/stores shown as not modelled")


def test_kernel_extra(b, d):
    """More kernel options as JSON: registers reach the request and the answer; a box
    that is not JSON is said so in place, and no request is sent."""
    act(b, "(() => { const p = document.getElementById('preset'); p.value = '3-D 7-point';"
           " p.dispatchEvent(new Event('change')); })()", ESTIMATE_S, "the 7-point estimate")
    before = read_estimate(b)["launch"]["blocks per SM"]
    b.js("document.getElementById('kernel-extra').value = '{\"registers\": 128}'")
    act(b, "document.getElementById('run-estimate').click()", ESTIMATE_S, "the estimate with 128 registers")
    _, req = page_request(b)
    ans = check_estimate(b, d, "128 registers")
    check(req["kernel"].get("registers") == 128 and ans is not None and
          read_estimate(b)["launch"]["blocks per SM"] != before,
          "registers 128 are sent and change the blocks per SM (%s -> %s)"
          % (before, read_estimate(b)["launch"]["blocks per SM"]))
    link = b.js("location.hash")
    b.js("document.getElementById('kernel-extra').value = '{registers: 128'")
    act(b, "document.getElementById('run-estimate').click()", ESTIMATE_S, "the form's own error")
    page = b.js("""({box: document.getElementById('error').textContent,
      bad: document.getElementById('kernel-extra').classList.contains('bad'),
      hash: location.hash})""")
    check("not JSON" in page["box"] and page["bad"] and page["hash"] == link,
          "a box that is not JSON is marked and nothing is sent: " + page["box"][:80])
    check_stale(b, True, "after the form's own error")
    b.js("document.getElementById('kernel-extra').value = ''")


def test_permalink(b, d, link):
    b.navigate("about:blank")
    b.wait_for("location.href === 'about:blank'", 10, "about:blank")
    b.navigate(link)
    wait_idle(b, 0, ESTIMATE_S, "the permalink's estimate")
    check(b.js("document.querySelector('#fields .field .f-loads').value.split('\\n')[0]") == "x+1, y+1, z+3",
          "the permalink restores the edited expression in the form")
    check_estimate(b, d, "permalink")


def read_rank(b):
    return b.js("""(() => {
      const q = (sel) => [...document.querySelectorAll(sel)];
      return {
        error: document.getElementById('error').hidden ? null : document.getElementById('error').textContent,
        evaluated: document.getElementById('evaluated').textContent,
        launchable: document.getElementById('launchable').textContent,
        bars: q('#bars-chart g.bar').map(g => +g.dataset.rank),
        cells: q('#heatmaps g.cell').map(g => +g.dataset.rank),
        panels: q('#heatmaps svg').map(s => +s.dataset.bz),
        heatHidden: document.getElementById('heatmaps-block').hidden,
        firstRow: q('#rank-table tr[data-rank]')[0] ? q('#rank-table tr[data-rank]')[0].textContent : '',
        rows: q('#rank-table tr[data-rank] td:nth-child(4) .num').map(e => e.title),
        recHidden: document.getElementById('recommendation').hidden,
        recText: document.getElementById('recommendation').textContent,
        measure: document.getElementById('measure-status').textContent,
      };
    })()""")


def test_rank(b, d, shots, docs):
    act(b, "(() => { const p = document.getElementById('preset'); p.value = %s;"
           " p.dispatchEvent(new Event('change')); })()" % json.dumps(PRESET_25),
        ESTIMATE_S, "the 25-point estimate")
    check_estimate(b, d, "25-point")
    if docs:
        b.screenshot(os.path.join(docs, "estimate-25pt.png"), clip=rect_of(b, "#estimate"))
    # Issue 46, item 5: the page shows the progress the daemon streams while it ranks
    # (every text of the busy line is recorded).
    b.js("""(() => { window.busyTexts = []; const e = document.getElementById('busy');
      new MutationObserver(() => window.busyTexts.push(e.textContent))
        .observe(e, {childList: true, characterData: true, subtree: true}); })()""")
    t0 = time.monotonic()
    act(b, "document.getElementById('run-rank').click()", RANK_S, "the 25-point ranking")
    ranked_s = time.monotonic() - t0
    action, req = page_request(b)
    check(action == "rank", "the permalink says rank")
    status, ans = api(d, "/v1/rank", req)
    progress = [tuple(map(int, m)) for t in b.js("window.busyTexts")
                for m in re.findall(r"(\d+) of (\d+) configurations", t)]
    # the daemon sends a progress line at most every 0.5 s, none for a ranking that ends
    # sooner (a release build ranks this in about that): the page can show only what came
    if ranked_s >= 1.5:
        check(status == 200 and progress and
              all(n <= of == ans["evaluated"] for n, of in progress) and
              [n for n, _ in progress] == sorted(n for n, _ in progress),
              "25-point: while ranking (%.1f s) the page showed 'n of %s configurations', n "
              "rising: %s" % (ranked_s, ans.get("evaluated"), progress[:6]))
    else:
        print("note 25-point: ranked in %.1f s, under the daemon's progress interval: the "
              "progress check needs a longer ranking" % ranked_s)
        check(all(n <= of == ans.get("evaluated") for n, of in progress),
              "25-point: any progress shown counts up to the configurations evaluated")
    page = read_rank(b)
    if not check(status == 200 and page["error"] is None, "25-point: the page shows a ranking (%d %s)"
                 % (status, page["error"])):
        return
    res = ans["results"]
    check(int(page["evaluated"]) == ans["evaluated"] and int(page["launchable"]) == ans["launchable"],
          "25-point: %s evaluated, %s launchable, as the API" % (page["evaluated"], page["launchable"]))
    check(page["bars"] == [r["rank"] for r in res],
          "25-point: one bar per result, in rank order (%d)" % len(page["bars"]))
    # The maps show one folding, the best configuration's unless one is picked.
    shown = [r for r in res if r["folding"] == res[0]["folding"]]
    bzs = sorted({r["block"][2] for r in shown})
    check(not page["heatHidden"] and page["panels"] == bzs and sorted(page["cells"]) == [r["rank"] for r in shown],
          "25-point: a bx x by heat map per bz %s, one cell per configuration of folding %s"
          % (bzs, res[0]["folding"]))
    occ = b.js("[...document.querySelectorAll('#rank-table .num[data-key=occupancy]')].map(e => +e.title)")
    check(len(occ) == min(15, len(res)) and occ == [r["occupancy"] for r in res[:len(occ)]],
          "25-point: the table's occupancy is the API's, row by row (%s)" % occ[:5])
    check(page["rows"] and [float(x) for x in page["rows"]] == [r["performance"]["predicted"] for r in res[:len(page["rows"])]],
          "25-point: the table's predicted GLup/s are the API's, best first")
    # Issue 46, item 5: every heat map has its colour scale, from the slowest to the
    # best predicted GLup/s of the ranking, in units.
    scales = b.js("""[...document.querySelectorAll('#heatmaps svg')].map(svg => {
      const end = (k) => { const t = svg.querySelector('.heat-legend text[data-end=' + k + ']');
        return t ? +t.parentNode.querySelector('title').textContent : null; };
      const g = svg.querySelector('.heat-legend');
      return {min: end('min'), max: end('max'), text: g ? g.textContent : '',
        ramp: g ? g.querySelectorAll('stop').length : 0}; })""")
    preds = [r["performance"]["predicted"] for r in res]
    check(len(scales) == len(bzs) and all(
        sc["min"] == min(preds) and sc["max"] == max(preds) and "GLup/s" in sc["text"] and sc["ramp"] >= 2
        for sc in scales),
          "25-point: each of the %d heat maps has a colour scale %s..%s GLup/s (%s)"
          % (len(bzs), min(preds), max(preds), scales[:1]))
    # Hover: a heat map cell and a bar show that configuration's numbers.
    for selector, r in (('#heatmaps g.cell[data-rank="1"] rect', res[0]),
                        ('#bars-chart g.bar[data-rank="%d"] rect' % res[4]["rank"], res[4])):
        x, y = center_of(b, selector)
        b.mouse_move(x, y)
        b.wait_for("document.getElementById('hover').dataset.rank === '%d'" % r["rank"], 10,
                   "the hover panel of rank %d" % r["rank"])
        text = b.js("document.getElementById('hover').textContent")
        p = r["performance"]
        want = [p["predicted"], r["estimate"]["dram_load"], r["estimate"]["dram_store"]] + \
            [p[k] for k in ("flops", "l1", "l2", "dram") if p[k] is not None]
        check(all(v in numbers(text) for v in want) and p["limiter"] in text and
              "block %s" % "\u00d7".join(map(str, r["block"])) in text,
              "hovering %s shows rank %d's numbers: %s" % (selector.split()[0], r["rank"], text[:120]))
    check_decision(b, ans, page, "25-point")
    check_numbers_short(b, "25-point ranking")
    check_palette(b, "25-point")
    b.mouse_move(0, 0)
    b.screenshot(os.path.join(shots, "rank-25pt.png"))
    if docs:
        b.screenshot(os.path.join(docs, "rank-25pt.png"), clip=rect_of(b, "#rank"))
    # Clicking a bar estimates that configuration.
    r = res[1]
    x, y = center_of(b, '#bars-chart g.bar[data-rank="%d"] rect' % r["rank"])
    before = b.js("Number(document.body.dataset.done || 0)")
    b.click(x, y)
    wait_idle(b, before, ESTIMATE_S, "the estimate of the clicked configuration")
    action, req = page_request(b)
    check(action == "estimate" and req["launch"] == {"block": r["block"], "folding": r["folding"]},
          "clicking rank %d's bar estimates block %s, folding %s" % (r["rank"], r["block"], r["folding"]))
    est = check_estimate(b, d, "clicked rank %d" % r["rank"])
    check(est is not None and est["performance"]["predicted"] == r["performance"]["predicted"],
          "its estimate predicts what the ranking did (%s GLup/s)" % r["performance"]["predicted"])


def check_palette(b, label):
    """Issue 46, item 5: one meaning per colour on the page. With the estimate and the
    ranking both on screen: a limit has one colour in the limits chart and the bars,
    no field of the volume chart has a limiter's colour, and every colour of the bars
    is in their legend, next to the limiter it stands for."""
    page = b.js("""(() => { const q = (sel) => [...document.querySelectorAll(sel)];
      return {fields: q('#volumes-chart rect').map(r => r.getAttribute('fill')),
        limitFills: q('#limits-chart rect').concat(q('#bars-chart g.bar rect')).map(r => r.getAttribute('fill')),
        limits: q('#limits-chart rect[data-limit]').map(r => [r.dataset.limit, r.getAttribute('fill')]),
        bars: q('#bars-chart g.bar rect').map(r => [r.dataset.limiter, r.getAttribute('fill')]),
        legend: q('#bars-chart .legend span[data-limiter]').map(e => [e.dataset.limiter,
          e.querySelector('.swatch').dataset.colour]),
        limitsLegend: q('#limits-chart .legend').length}; })()""")
    colour = {}
    clash = []
    for k, c in page["limits"] + page["bars"]:
        if colour.setdefault(k, c) != c:
            clash.append((k, colour[k], c))
    check(page["limits"] and page["bars"] and not clash and
          len(set(colour.values())) == len(colour),
          "%s: each limit has one colour in the limits chart and the bars, no two the same %s (%s)"
          % (label, colour, clash))
    shared = set(page["fields"]) & set(page["limitFills"])
    check(page["fields"] and not shared,
          "%s: no field of the volume chart has a limiter's colour (shared: %s)" % (label, sorted(shared)))
    legend = dict(page["legend"])
    check(all(legend.get(k) == c for k, c in page["bars"]) and page["limitsLegend"] == 1,
          "%s: the bars' legend names every colour they use, and the limits chart has a legend (%s)"
          % (label, legend))


def check_decision(b, ans, page, label):
    """The decision of the answer (issue 11), when there is one: the recommended
    configuration with its reason, a star on its bar, a dot under each bar of the tie
    group. Without one, nothing is shown."""
    dec = ans.get("decision")
    if not dec:
        check(page["recHidden"], "%s: no decision in the answer, none shown" % label)
        return
    check(not page["recHidden"], "%s: the decision is shown" % label)
    # Issue 46, item 5: the decision is not styled like an error (nor a warning).
    style = b.js("""(() => { const c = (e) => { const s = getComputedStyle(e);
        return [s.borderLeftColor, s.borderTopColor, s.backgroundColor, s.color]; };
      const probe = (cls) => { const e = document.createElement('div'); e.className = cls;
        document.body.append(e); const v = c(e); e.remove(); return v; };
      return {rec: c(document.getElementById('recommendation')), error: probe('error'),
        bad: probe('bad'), warned: probe('warned')}; })()""")
    alarm = set(style["error"][:3] + style["bad"][:3] + style["warned"][:3]) - {"rgba(0, 0, 0, 0)"}
    check(not (set(style["rec"]) & alarm),
          "%s: the decision box has its own neutral colours %s, none of an error's or warning's %s"
          % (label, style["rec"], sorted(alarm)))
    rec = dec.get("recommended")
    if rec:
        text = b.js("document.getElementById('recommended').textContent")
        name = "block %s, folding %s" % ("\u00d7".join(map(str, rec["block"])),
                                         "\u00d7".join(map(str, rec["folding"])))
        check(name in text and rec["reason"] in text and rec["predicted"] in titles(b, "#recommended"),
              "%s: the recommendation %s and its reason, as the API: %s" % (label, name, text[:100]))
        check(b.js("[...document.querySelectorAll('#bars-chart text.rec')].map(t => +t.parentNode.dataset.rank)")
              == [rec["rank"]], "%s: the star marks rank %d's bar" % (label, rec["rank"]))
    ties = sorted(c["rank"] for c in dec["tie_group"])
    shown = sorted(b.js("[...document.querySelectorAll('#bars-chart circle.tie')].map(c => +c.parentNode.dataset.rank)"))
    check(shown == ties, "%s: the tie group's %d bars are marked" % (label, len(ties)))


def rect_of(b, selector):
    return b.js("(() => { const r = document.querySelector(%s).getBoundingClientRect();"
                " return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; })()"
                % json.dumps(selector))


def test_measure(b, d):
    """Ranking with 'measure the best 1': without a GPU the daemon says why not, with
    one it times it; either way the page shows what the answer says."""
    act(b, "(() => { const p = document.getElementById('preset'); p.value = '2-D 5-point';"
           " p.dispatchEvent(new Event('change')); })()", ESTIMATE_S, "the 5-point estimate")
    b.js("document.getElementById('measure-top').value = '1'")
    b.js("document.getElementById('baseline').checked = true")
    act(b, "document.getElementById('run-rank').click()", RANK_S, "the 5-point ranking with a measurement")
    _, req = page_request(b)
    check(req.get("measure") == {"top": 1} and req["search"]["baseline"] == req["launch"],
          "the request asks to measure the best 1, with the launch as the baseline")
    # The page's own answer is not visible to us; the daemon's answer to the same
    # request says the same about the GPU (it is there or not).
    status, ans = api(d, "/v1/rank", req)
    if status != 200:  # a daemon without search.baseline: the page shows its error
        box = b.js("document.getElementById('error').hidden ? '' : document.getElementById('error').textContent")
        check(ans["error"]["message"] in box and ans["error"]["path"] in box,
              "the page shows the API's error: " + box[:120])
        return
    page = read_rank(b)
    check_decision(b, ans, page, "5-point")
    if "decision" in ans:
        base = ans["decision"]["baseline"]
        text = b.js("document.getElementById('decision-baseline').textContent")
        check(base["reason"] in text and base["advice"] in text and
              base["predicted"] in titles(b, "#decision-baseline"),
              "5-point: the baseline's advice and reason, as the API: " + text[:120])
    m = ans.get("measure", {})
    if m.get("status") == "unavailable":
        check(m["reason"] in page["measure"], "no GPU: the page says why not: " + page["measure"])
    else:
        check(page["measure"].startswith("Measured") and "measured GLup/s" in b.js(
            "document.getElementById('rank-table').textContent"),
            "measured beside predicted: " + page["measure"])


def test_localhost(b, d):
    """Opened as http://localhost:PORT/ (a daemon on 127.0.0.1): the page's requests
    carry that origin, which the daemon counts as its own on a loopback address."""
    b.navigate("about:blank")
    b.wait_for("location.href === 'about:blank'", 10, "about:blank")
    b.navigate("http://localhost:%d/" % d.port)
    wait_idle(b, 0, ESTIMATE_S, "the page's first estimate at localhost")
    check_estimate(b, d, "opened at localhost")


def test_browser(launchrank, srcroot, shots, docs):
    from browser import Browser, find_chromium  # Selenium: the static test needs none
    chromium = find_chromium()
    if not chromium:
        print("SKIP: no Chromium or no chromedriver installed (scripts/deps.sh installs "
              "Debian's chromium and chromium-driver)")
        return 77
    os.makedirs(shots, exist_ok=True)
    if docs:
        os.makedirs(docs, exist_ok=True)
    tmp = tempfile.TemporaryDirectory(prefix="lr-web-")
    db = os.path.join(tmp.name, "lab.sqlite")
    device_file = os.path.join(tmp.name, "lab.json")
    with open(device_file, "w") as f:
        json.dump(STORED, f)
    subprocess.run([launchrank, "devices", "add", "--db", db, device_file], check=True,
                   stdout=subprocess.DEVNULL)
    with tmp, Daemon(launchrank, db=db) as d, Browser(chromium) as b:
        b.navigate(d.base + "/")
        wait_idle(b, 0, ESTIMATE_S, "the page's first estimate")
        check(b.js("document.getElementById('preset').value") == PRESET_25,
              "the page opens with the 25-point preset")
        check_estimate(b, d, "first load")
        test_presets(b, d, shots)
        link = test_edit_and_error(b, d, shots, docs)
        test_permalink(b, d, link)
        test_stored_device(b, d)
        test_warnings(b, d)
        test_warpspeed(b, d)
        test_kernel_extra(b, d)
        test_rank(b, d, shots, docs)
        test_measure(b, d)
        urls = b.requested_urls()
        foreign = [u for u in urls if not (u.startswith(d.base + "/") or u.startswith("data:"))]
        check(len(urls) > 10 and not foreign,
              "the page requested %d URLs, all of %s (others: %s)" % (len(urls), d.base, foreign[:3]))
        test_localhost(b, d)
    return 0


def main(argv):
    if len(argv) < 4 or argv[1] not in ("static", "browser"):
        print(__doc__)
        return 2
    if argv[1] == "static":
        test_static(argv[2], argv[3])
        rc = 0
    else:
        docs = argv[argv.index("--docs") + 1] if "--docs" in argv else None
        rc = test_browser(argv[2], argv[3], argv[4], docs)
    if rc == 77:
        return 77
    print("%d checks failed" % len(failures) if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
