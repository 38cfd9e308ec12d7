"""test_metrics_format: issue 46, item 8. GET /metrics of a real daemon (`launchrank
serve`), read by a parser we did not write: prometheus_client's
text_string_to_metric_families (Debian: python3-prometheus-client), the library
Prometheus's own Python clients use.

tests/server/test_ops.c keeps its small C parser (it checks the format strictly, and
against the daemon linked with a fake api); this test adds a maintained one, on the
daemon with the real api, and checks that both agree on what the text says:
  - the whole body parses, with the Content-Type of the text format 0.0.4;
  - every family has a TYPE the library knows and a HELP text, no family twice;
  - counters are not negative; a histogram's buckets grow with le up to +Inf, which
    equals its _count;
  - the counters move by exactly the requests this test sends (as test_ops.c checks).

Skipped (77) without prometheus_client, which scripts/deps.sh test installs.
Usage: test_metrics_format.py LAUNCHRANK SOURCE_ROOT
"""
import http.client
import os
import shutil
import subprocess
import sys
import tempfile
import time

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    print("skip: no prometheus_client (scripts/deps.sh test installs "
          "python3-prometheus-client)")
    sys.exit(77)

LR, ROOT = sys.argv[1], sys.argv[2]
FAILED = []
START_TIMEOUT_S = 15
SETTLE_S = 5  # how long counts may lag the answers this test has read
TYPES = {"counter", "gauge", "histogram", "summary", "unknown"}


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)


def request(port, method, path, body=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body, headers)
        resp = conn.getresponse()
        return resp.status, resp.getheader("Content-Type", ""), resp.read()
    finally:
        conn.close()


def scrape(port):
    """One GET /metrics, checked and parsed: ({(sample name, frozenset of its labels):
    value}, [the families])."""
    status, ctype, body = request(port, "GET", "/metrics")
    check(status == 200, f"GET /metrics is 200 ({status})")
    check(ctype.startswith("text/plain") and "version=0.0.4" in ctype,
          f"Content-Type is the text format 0.0.4 ({ctype})")
    try:
        families = list(text_string_to_metric_families(body.decode("utf-8")))
    except (ValueError, TypeError, KeyError, IndexError) as e:
        check(False, f"prometheus_client parses /metrics: {e!r}")
        return {}, []
    check(len(families) >= 5, f"/metrics has families ({len(families)})")
    names = [f.name for f in families]
    check(len(names) == len(set(names)), "no family is written twice")
    samples = {}
    for fam in families:
        check(fam.type in TYPES, f"{fam.name}: a known type ({fam.type})")
        check(bool(fam.documentation), f"{fam.name}: a HELP text")
        for s in fam.samples:
            key = (s.name, frozenset(s.labels.items()))
            check(key not in samples, f"{s.name}{s.labels}: one sample per series")
            samples[key] = s.value
            if fam.type == "counter":
                check(s.value >= 0, f"{s.name}{s.labels}: a counter is not negative")
        if fam.type == "histogram":
            check_histogram(fam)
    return samples, families


def check_histogram(fam):
    series = {}
    for s in fam.samples:
        labels = {k: v for k, v in s.labels.items() if k != "le"}
        key = frozenset(labels.items())
        if s.name.endswith("_bucket"):
            series.setdefault(key, {"buckets": [], "count": None})["buckets"].append(
                (float(s.labels["le"]), s.value))
        elif s.name.endswith("_count"):
            series.setdefault(key, {"buckets": [], "count": None})["count"] = s.value
    for key, h in series.items():
        b = h["buckets"]
        what = f"{fam.name}{dict(key)}"
        check(b and b[-1][0] == float("inf"), f"{what}: buckets end at le=+Inf")
        check(all(b[i][0] < b[i + 1][0] and b[i][1] <= b[i + 1][1] for i in range(len(b) - 1)),
              f"{what}: buckets grow with le")
        check(b and h["count"] == b[-1][1], f"{what}: _count equals the +Inf bucket")


def value(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())), 0.0)


def moved_counts(before, after):
    """[(series, expected move, move)] of the requests main() sends."""
    req = "launchrank_http_requests_total"
    dur = "launchrank_http_request_duration_seconds_count"
    want = [(req, {"route": "GET /healthz", "code": "200"}, 3),
            (req, {"route": "POST /v1/estimate", "code": "200"}, 2),
            (req, {"route": "POST /v1/estimate", "code": "400"}, 1),
            (req, {"route": "other", "code": "404"}, 1),
            (dur, {"route": "GET /healthz"}, 3),
            ("launchrank_errors_total", {"code": "invalid_json"}, 1),
            ("launchrank_errors_total", {"code": "not_found"}, 1),
            ("launchrank_cache_misses_total", {}, 1),
            ("launchrank_cache_hits_total", {}, 1)]
    return [(f"{name}{labels}", delta,
             value(after, name, **labels) - value(before, name, **labels))
            for name, labels, delta in want]


def main():
    tmp = tempfile.mkdtemp(prefix="lr-metrics-")
    port_file = os.path.join(tmp, "port")
    proc = subprocess.Popen([LR, "serve", "--listen", "127.0.0.1:0", "--port-file", port_file,
                             "--db", os.path.join(tmp, "cache.sqlite"), "--threads", "1",
                             "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline, port = time.monotonic() + START_TIMEOUT_S, None
        while port is None:
            if proc.poll() is not None or time.monotonic() > deadline:
                check(False, "launchrank serve starts")
                return
            try:
                with open(port_file) as f:
                    port = int(f.read().strip())
            except (FileNotFoundError, ValueError):
                time.sleep(0.05)

        with open(os.path.join(ROOT, "tests/data/ref2_2d5pt_a100_80gb.json")) as f:
            estimate = f.read()
        before, _ = scrape(port)
        for _ in range(3):
            check(request(port, "GET", "/healthz")[0] == 200, "GET /healthz is 200")
        for _ in range(2):
            check(request(port, "POST", "/v1/estimate", estimate)[0] == 200,
                  "POST /v1/estimate is 200")
        check(request(port, "POST", "/v1/estimate", "not json")[0] == 400, "not json is 400")
        check(request(port, "GET", "/no/such/path")[0] == 404, "an unknown path is 404")
        # The daemon counts a request when its answer has been sent, which may be a
        # moment after this client has read it: scrape until the counts settle.
        deadline = time.monotonic() + SETTLE_S
        while True:
            after, families = scrape(port)
            moves = moved_counts(before, after)
            if all(got == want for _, want, got in moves) or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        for what, want, got in moves:
            check(got == want, f"{what} moved by {want} ({got})")
        types = {f.name: f.type for f in families}
        check(types.get("launchrank_http_requests") == "counter",
              "launchrank_http_requests_total is a counter")
        dur = "launchrank_http_request_duration_seconds"
        check(types.get(dur) == "histogram", f"{dur} is a histogram")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    print(f"{len(FAILED)} failed" if FAILED else "all passed")
    sys.exit(1 if FAILED else 0)
