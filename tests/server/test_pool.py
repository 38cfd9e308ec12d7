"""test_pool: issue 12, item 4 against a real daemon (`launchrank serve`).

One ranking uses every idle compute thread (server/pool.c lends it to them), with
answers and cache rows byte-identical to a one-thread daemon's and each ranked entry
equal to its single estimate; a ranking whose client hangs up is cancelled and its
threads go idle; Accept: application/x-ndjson streams progress lines and ends with the
answer a plain request gets (docs/api.md, "Progress of a ranking").

Usage: test_pool.py LAUNCHRANK SOURCE_ROOT. Registered with is_parallel: false, so that
meson runs no other test beside the timing one.
"""
import http.client
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schema"))
from lrdaemon import Daemon  # noqa: E402

LR, ROOT = sys.argv[1], sys.argv[2]
FAILED = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)


def load(path):
    with open(os.path.join(ROOT, path)) as f:
        return json.load(f)


# The 3-D 25-point stencil of the reference cases, over the default blocks with
# foldings 1, 2, 4 and 8 in z (224 configurations): 1 to 5 s of CPU (release to ASan
# build), big enough that lending threads shows against the daemon's fixed costs (the
# default foldings 1 and 2, 112 configurations, took as long before the sampler and
# the footprint counting became 3-5x faster, issue 12).
BIG = load("tests/data/ref3_3d25pt_a100.json")
BIG.pop("launch")
BIG["search"] = {"foldings": [[1, 1, 1], [1, 1, 2], [1, 1, 4], [1, 1, 8]]}
BIG_BODY = json.dumps(BIG).encode()
# The same over every power-of-two bx too (warp_multiple_bx false: 920 configurations),
# about 1.6 times as long: what a client hangs up on, or what is still running while
# estimates arrive, however fast the model becomes.
BIGGER = dict(BIG, search=dict(BIG["search"], warp_multiple_bx=False))
BIGGER_BODY = json.dumps(BIGGER).encode()
# A 2-D Jacobi ranking with a baseline (111 configurations, a fraction of a second).
SMALL = load("tests/protocol/data/jacobi_baseline.json")
SMALL_BODY = json.dumps(SMALL).encode()
JSON = {"Content-Type": "application/json"}
# The rankings these tests wait for must finish also in sanitizer builds (under TSan
# the 920-configuration one takes minutes): the daemon's time limit has tests of its own.
NO_LIMIT = ["--time-limit", "3600"]


def post(d, path, body, headers=JSON):
    t0 = time.monotonic()
    status, hdrs, data = d.request("POST", path, body, headers)
    return status, hdrs, data, time.monotonic() - t0


def thread_ticks(pid):
    """CPU ticks (user + system) of each thread of pid, by thread id."""
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            out[tid] = int(fields[11]) + int(fields[12])  # utime, stime
        except (FileNotFoundError, ProcessLookupError):
            pass
    return out


def cpu_ticks(pid):
    return sum(thread_ticks(pid).values())


def cache_rows(db):
    con = sqlite3.connect(db)
    try:
        return con.execute(
            "SELECT p.key, p.kind, p.json, r.text, p.config FROM prediction p "
            "JOIN request r ON r.id = p.request_id ORDER BY p.key").fetchall()
    finally:
        con.close()


def metric(d, name, labels):
    status, _, data = d.request("GET", "/metrics")
    for line in data.decode().splitlines():
        if line.startswith(name + "{") and all(l in line for l in labels):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def wait_counted(d, route, n, settle_s):
    """The requests of route counted (any status), once they reach n or settle_s passed."""
    t0 = time.monotonic()
    while True:
        _, _, data = d.request("GET", "/metrics")
        total = sum(float(line.rsplit(" ", 1)[1]) for line in data.decode().splitlines()
                    if line.startswith("launchrank_http_requests_total{") and
                    'route="%s"' % route in line)
        if total >= n or time.monotonic() - t0 > settle_s:
            return total
        time.sleep(0.05)


def cli_rank_s(threads, body_file):
    """Wall-clock seconds of an in-process `launchrank rank --threads N`."""
    t0 = time.monotonic()
    subprocess.run([LR, "rank", "--threads", str(threads), body_file], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    return time.monotonic() - t0


def test_two_threads_rank_faster_with_the_same_answer():
    """Wall-clock ratio t1/t2 in one run, the median of three rounds. What two
    threads gain depends on what the machine gives them now: the development machine
    has 2 cores shared with other sessions' builds (load 4 to 28 while this was
    written), CI's has them to itself. So each round also times the same ranking
    in-process, `launchrank rank --threads 1` and `2` (whose own threads have always
    split a ranking), right beside the daemon's. Where that shows the machine giving
    two threads two cores (a gain of 1.6 or more), the daemon must reach 1.4: not 2,
    since the ranking's fixed costs (parsing, sorting, the decision, JSON) run on one
    thread, and the in-process ranking itself reaches 1.8-1.9 on a quiet 2-core
    machine. Where the machine gives less, the ratio is not judged beyond a sanity
    bound (60 % of the in-process gain: a daemon whose second thread hindered the first
    would fall below it). The load-independent half, always judged: both compute
    threads did a fair share of the CPU work."""
    with tempfile.NamedTemporaryFile("wb", suffix=".json") as f, \
            Daemon(LR, cache=False, extra_args=["--threads", "1"] + NO_LIMIT) as d1, \
            Daemon(LR, cache=False, extra_args=["--threads", "2"] + NO_LIMIT) as d2:
        f.write(BIG_BODY)
        f.flush()
        t1, t2, c1, c2, bodies = [], [], [], [], set()
        before = thread_ticks(d2.proc.pid)
        for _ in range(3):
            for threads, d, times, cli in ((1, d1, t1, c1), (2, d2, t2, c2)):
                cli.append(cli_rank_s(threads, f.name))
                status, _, data, dt = post(d, "/v1/rank", BIG_BODY)
                check(status == 200, "the 224-configuration ranking answers 200 (%d)" % status)
                times.append(dt)
                bodies.add(data)
        after = thread_ticks(d2.proc.pid)
        check(len(bodies) == 1, "the answers of 1 and 2 compute threads are byte-identical "
              "(%d distinct of 6)" % len(bodies))
        # per round, each ratio of two runs seconds apart; the median of the rounds, so
        # that one run the machine favoured or starved does not decide
        ratio = sorted(a / b for a, b in zip(t1, t2))[1]
        machine = sorted(a / b for a, b in zip(c1, c2))[1]
        print("     daemon 1 thread: %s s, 2 threads: %s s; in-process %s s, %s s"
              % (["%.2f" % t for t in t1], ["%.2f" % t for t in t2],
                 ["%.2f" % t for t in c1], ["%.2f" % t for t in c2]))
        if machine >= 1.6:
            check(ratio >= 1.4, "2 compute threads rank %.2fx as fast as 1, at least 1.4 "
                  "(in-process gain %.2f)" % (ratio, machine))
        else:
            print("     the machine gives two threads %.2fx now (under 1.6): the daemon's "
                  "%.2fx is not judged against 1.4" % (machine, ratio))
            check(ratio >= 0.6 * machine, "2 compute threads rank %.2fx as fast as 1, at "
                  "least 60%% of the in-process gain %.2f" % (ratio, machine))
        work = sorted((after.get(t, 0) - before.get(t, 0) for t in after), reverse=True)
        share = work[1] / float(work[0] + work[1]) if work[0] + work[1] else 0
        check(share >= 0.3, "the second busiest thread of the 2-thread daemon did at least "
              "30%% of the two busiest threads' CPU work (%.0f%%; ideal 50%%)" % (100 * share))


def test_cache_rows_and_single_estimates_match():
    with Daemon(LR, extra_args=["--threads", "1"] + NO_LIMIT) as d1, \
            Daemon(LR, extra_args=["--threads", "2"] + NO_LIMIT) as d2:
        s1, _, r1, _ = post(d1, "/v1/rank", SMALL_BODY)
        s2, _, r2, _ = post(d2, "/v1/rank", SMALL_BODY)
        check(s1 == s2 == 200, "the Jacobi ranking answers 200 on both daemons")
        check(r1 == r2, "its answers with 1 and 2 compute threads are byte-identical")
        rows1, rows2 = cache_rows(d1.db), cache_rows(d2.db)
        check(len(rows1) == 111 and rows1 == rows2,
              "the 111 cache rows are byte-identical (%d and %d rows)" % (len(rows1), len(rows2)))
    ranking = json.loads(r2)
    with Daemon(LR, cache=False, extra_args=["--threads", "2"]) as d:
        differ = []
        for item in ranking["results"]:
            req = dict(SMALL)
            req.pop("search")
            req["launch"] = {"block": item["block"], "folding": item["folding"]}
            status, _, data, _ = post(d, "/v1/estimate", json.dumps(req).encode())
            est = json.loads(data)
            if status != 200 or any(est[k] != item[k] for k in ("launch", "estimate",
                                                                   "performance")):
                differ.append(item["rank"])
        check(not differ and len(ranking["results"]) > 50,
              "each of the %d ranked entries equals its single estimate (launch, estimate, "
              "performance) exactly; differing ranks: %s" % (len(ranking["results"]), differ))


def hang_up(d, body, after_s, headers=()):
    """Sends a ranking on a raw socket, waits after_s, closes the socket unread."""
    s = socket.create_connection(("127.0.0.1", d.port))
    head = ["POST /v1/rank HTTP/1.1", "Host: 127.0.0.1:%d" % d.port,
            "Content-Type: application/json", "Content-Length: %d" % len(body)]
    s.sendall(("\r\n".join(head + list(headers)) + "\r\n\r\n").encode() + body)
    time.sleep(after_s)
    s.close()


def wait_idle(pid, settle_s=5.0):
    """Seconds until the daemon used under 10% of a core over a sampling window, or None.

    The window is 0.5 s, shorter when settle_s is short (a release build ranks in under
    a second): a single 0.5 s window could not end inside a settle time below it."""
    tick = float(os.sysconf("SC_CLK_TCK"))
    window = min(0.5, max(0.1, settle_s / 4))
    t0 = time.monotonic()
    while time.monotonic() - t0 < settle_s:
        c0 = cpu_ticks(pid)
        time.sleep(window)
        if (cpu_ticks(pid) - c0) / tick < 0.1 * window:
            return time.monotonic() - t0
    return None


def test_a_client_that_hangs_up_cancels_its_ranking():
    for threads, headers in (("1", ()), ("2", ()), ("2", ("Accept: application/x-ndjson",))):
        what = "%s compute thread(s)%s" % (threads, ", streamed" if headers else "")
        with Daemon(LR, cache=False, extra_args=["--threads", threads]) as d:
            _, _, _, full = post(d, "/v1/rank", BIG_BODY)  # the bigger one takes ~1.6x
            hang_up(d, BIGGER_BODY, 0.3 * full, headers)
            idle = wait_idle(d.proc.pid, settle_s=0.6 * full)
            check(idle is not None, "%s: the daemon is idle within %.1f s of the hang-up, "
                  "60%% of the ranking's %.1f s (%s)" % (what, 0.6 * full, full, idle))
            status, _, _, est_s = post(d, "/v1/estimate", json.dumps(
                dict(BIG, launch={"block": [32, 4, 8], "folding": [1, 1, 2]})).encode())
            check(status == 200 and est_s < 0.3 * full,
                  "%s: an estimate is then served at once (%.2f s)" % (what, est_s))
            if headers:
                continue  # a streamed answer's 200 went out with its first progress line
            # A finished ranking is a 200; the cancelled one is counted as 499 (client
            # closed request), not as the 503 of an overloaded daemon (server/respond.c).
            # It is counted when MHD completes its request, on an I/O thread after the
            # job resumed the connection, which a loaded machine may delay past the
            # estimate above: wait (bounded) for both rankings to be counted.
            counted = wait_counted(d, "POST /v1/rank", 2, settle_s=10.0)
            check(counted == 2, "%s: both rankings were counted within 10 s (%g)"
                  % (what, counted))
            done = metric(d, "launchrank_http_requests_total",
                          ['route="POST /v1/rank"', 'code="200"'])
            check(done == 1, "%s: only the first ranking was answered 200 (%g)" % (what, done))
            gone = [metric(d, "launchrank_http_requests_total",
                           ['route="POST /v1/rank"', 'code="%s"' % c]) for c in ("499", "503")]
            check(gone == [1, 0], "%s: the cancelled ranking is counted as 499, not 503 "
                  "(499: %g, 503: %g)" % (what, gone[0], gone[1]))


def test_an_estimate_waits_for_a_configuration_not_for_the_ranking():
    """With one compute thread, busy with a ranking, an estimate is run by the ranking's
    own thread between two configurations (server/pool.c, job_pause)."""
    with Daemon(LR, cache=False, extra_args=["--threads", "1"] + NO_LIMIT) as d:
        _, _, _, full = post(d, "/v1/rank", BIG_BODY)
        out = {}
        # 920 configurations on one thread: about 4 s in a release build, 60-130 s under
        # ThreadSanitizer, past the harness's 60-s socket timeout
        ranking = threading.Thread(target=lambda: out.update(
            r=d.request("POST", "/v1/rank", BIGGER_BODY, JSON, timeout=20 * full + 60)))
        ranking.start()
        time.sleep(0.3 * full)
        est_body = json.dumps(dict(BIG, launch={"block": [32, 4, 8],
                                                "folding": [1, 1, 2]})).encode()
        lat = []
        for _ in range(3):
            status, _, _, dt = post(d, "/v1/estimate", est_body)
            lat.append(dt)
            check(status == 200, "the estimate beside the ranking answers 200")
        running = ranking.is_alive()
        ranking.join()
        check(running and max(lat) < 0.2 * full,
              "3 estimates during a 920-configuration ranking on the only compute thread "
              "(still running after them: %s) take %s s, each under 20%% of the %.1f s a "
              "224-configuration ranking takes" % (running, ["%.2f" % t for t in lat], full))
        got = json.loads(out["r"][2]) if out["r"][0] == 200 else {}
        n = got.get("evaluated", 0)
        check(n > 400 and "incomplete" not in got and
              len(got.get("results", [])) + len(got.get("not_launchable", [])) == n,
              "the ranking they paused answers 200 with all its %d configurations ranked" % n)


def test_progress_stream_ends_with_the_plain_answer():
    with Daemon(LR, cache=False, extra_args=["--threads", "2"] + NO_LIMIT) as d:
        _, _, plain, _ = post(d, "/v1/rank", BIG_BODY)
        status, hdrs, data, dt = post(d, "/v1/rank", BIG_BODY,
                                      dict(JSON, Accept="application/x-ndjson"))
        check(status == 200 and hdrs.get("content-type") == "application/x-ndjson",
              "a streamed ranking answers 200 application/x-ndjson (%d %s)"
              % (status, hdrs.get("content-type")))
        check(data.endswith(b"\n"), "every line, the last one too, ends with a newline")
        lines = data.decode().splitlines()
        check(lines[-1].encode() == plain, "the last line is the plain answer, byte for byte")
        try:
            from jsonschema import Draft202012Validator
            with open(os.path.join(ROOT, "schema", "rank-progress.json")) as f:
                v = Draft202012Validator(json.load(f))
            bad = [l for l in lines[:-1] if list(v.iter_errors(json.loads(l)))]
            check(not bad, "every progress line matches schema/rank-progress.json (%s)" % bad[:1])
        except ImportError:
            print("     (python3-jsonschema missing: the schema is not checked here)")
        progress = [json.loads(l)["progress"] for l in lines[:-1]]
        check(all(set(p) == {"done", "of", "elapsed_s"} and p["of"] == 224 and
                  1 <= p["done"] <= 224 for p in progress),
              "every other line is {\"progress\": {done, of: 224, elapsed_s}}")
        check(all(a["done"] <= b["done"] and a["elapsed_s"] + 0.4 < b["elapsed_s"]
                  for a, b in zip(progress, progress[1:])),
              "progress lines count up, at least 0.5 s apart (elapsed_s, 0.1 s slack)")
        check(dt < 1.0 or len(progress) >= 1,
              "a ranking longer than 1 s (%.2f s) sends progress (%d lines)" % (dt, len(progress)))
        # An error before any progress keeps its status; an estimate is never streamed.
        status, hdrs, data, _ = post(d, "/v1/rank", b'{"bad": 1}',
                                     dict(JSON, Accept="application/x-ndjson"))
        check(status == 400 and json.loads(data)["error"]["path"] == "bad",
              "a bad streamed request is 400 with the JSON error body")
        status, hdrs, _, _ = post(d, "/v1/estimate", json.dumps(
            dict(BIG, launch={"block": [32, 4, 8]})).encode(),
            dict(JSON, Accept="application/x-ndjson"))
        check(status == 200 and hdrs.get("content-type") == "application/json",
              "an estimate asking for ndjson gets its plain JSON answer")


def test_an_error_after_progress_is_the_last_line():
    """A streamed ranking cancelled by shutdown (two SIGTERMs) after its first progress
    line: the status was sent with that line, so the error is the stream's last line,
    the error body it would have been."""
    d = Daemon(LR, cache=False, extra_args=["--threads", "2"])
    try:
        conn = http.client.HTTPConnection("127.0.0.1", d.port, timeout=60)
        conn.request("POST", "/v1/rank", BIGGER_BODY,
                     dict(JSON, Accept="application/x-ndjson"))
        resp = conn.getresponse()
        first = json.loads(resp.readline())
        check(resp.status == 200 and "progress" in first,
              "the first line of a long streamed ranking is progress (%d %s)"
              % (resp.status, first))
        d.proc.send_signal(signal.SIGTERM)
        time.sleep(0.2)
        d.proc.send_signal(signal.SIGTERM)
        lines = [json.loads(l) for l in resp.read().splitlines()]
        last = lines[-1] if lines else {}
        check(set(last) == {"error", "model_version"} and
              last["error"]["code"] == "unavailable" and
              all("progress" in l for l in lines[:-1]),
              "after progress lines, the cancelled ranking's last line is its unavailable "
              "error (%s)" % json.dumps(last)[:200])
        conn.close()
        check(d.proc.wait(timeout=30) == 0, "the daemon then exits 0")
    finally:
        d.close()


for test in (test_two_threads_rank_faster_with_the_same_answer,
             test_cache_rows_and_single_estimates_match,
             test_a_client_that_hangs_up_cancels_its_ranking,
             test_an_estimate_waits_for_a_configuration_not_for_the_ranking,
             test_progress_stream_ends_with_the_plain_answer,
             test_an_error_after_progress_is_the_last_line):
    print("--", test.__name__)
    test()
print("%d failure(s)" % len(FAILED))
sys.exit(1 if FAILED else 0)
