"""test_fairness: issue 41, item 2, against a real daemon (`launchrank serve`).

While a long ranking holds every compute thread, a cached estimate is answered on the
daemon's I/O thread without waiting for it (before: a median 4.1 s, up to 8.7 s, behind
a ranking whose configurations take seconds), and an estimate the cache lacks runs on
the estimate lane at once instead of waiting for one of the ranking's configurations.
The ranking's client then hangs up, which cancels it (tested in test_pool.py).

Usage: test_fairness.py LAUNCHRANK SOURCE_ROOT. Registered with is_parallel: false: it
times answers, which other tests beside it would slow.
"""
import json
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schema"))
from lrdaemon import Daemon  # noqa: E402

LR, ROOT = sys.argv[1], sys.argv[2]
FAILED = []
JSON = {"Content-Type": "application/json"}

# Bounds, generous for a loaded 2-core machine and a sanitizer build: a cached answer
# costs about 0.1 ms of CPU in a release build, a cold 2-D estimate a few ms (30 ms
# under ASan); the ranking's deep foldings take 0.1-2 s per configuration.
CACHED_P95_S = 0.050
COLD_MAX_S = 1.0


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)


def load(path):
    with open(os.path.join(ROOT, path)) as f:
        return json.load(f)


# The 3-D 25-point stencil over the default blocks folded 16 and 32 in z: slow
# configurations (0.05-0.2 s each in a release build, seconds under a sanitizer), many
# more than the test lasts.
RANK = load("tests/data/ref3_3d25pt_a100.json")
RANK.pop("launch")
RANK["search"] = {"foldings": [[1, 1, 16], [1, 1, 32]]}
RANK_BODY = json.dumps(RANK).encode()
ESTIMATE = load("tests/data/ref2_2d5pt_a100_80gb.json")
ESTIMATE["model"] = "v2"


def estimate_body(n):
    """The 2-D estimate on its own domain: n = 0 is the cached one."""
    e = dict(ESTIMATE, domain=[15000 - n, 15000, 1])
    return json.dumps(e).encode()


def percentile(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


def main():
    with Daemon(LR, extra_args=["--time-limit", "3600"]) as d:
        status, _, _ = d.request("POST", "/v1/estimate", estimate_body(0), JSON)
        check(status == 200, "the cached estimate is stored first")
        # the ranking, sent on a socket of its own and never read: hung up on at the end
        rs = socket.create_connection(("127.0.0.1", d.port), timeout=600)
        rs.sendall(b"POST /v1/rank HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                   b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                   % (d.port, len(RANK_BODY)) + RANK_BODY)
        time.sleep(1.0)  # the ranking holds both compute threads now
        cached, cold, statuses = [], [], []
        n = 0
        while len(cached) < 100:
            n += 1
            t0 = time.monotonic()
            s1, _, b1 = d.request("POST", "/v1/estimate", estimate_body(0), JSON)
            cached.append(time.monotonic() - t0)
            statuses.append((s1, json.loads(b1).get("cached")))
            if n % 10 == 0:
                t0 = time.monotonic()
                s2, _, b2 = d.request("POST", "/v1/estimate", estimate_body(n), JSON)
                cold.append(time.monotonic() - t0)
                statuses.append((s2, json.loads(b2).get("cached") is False))
            time.sleep(0.02)
        rs.setblocking(False)
        try:
            early = rs.recv(1)  # nothing: the ranking was still computing throughout
        except BlockingIOError:
            early = b""
        rs.close()
        print("%d cached estimates beside a ranking: median %.1f ms, p95 %.1f ms, max %.1f ms;"
              " %d computed: max %.1f ms"
              % (len(cached), 1e3 * percentile(cached, 0.5), 1e3 * percentile(cached, 0.95),
                 1e3 * max(cached), len(cold), 1e3 * max(cold or [0])))
        check(early == b"", "the ranking was still computing while the estimates were timed")
        check(all(s == (200, True) for s in statuses),
              "every estimate beside the ranking is answered 200 (cached ones from the cache)")
        check(percentile(cached, 0.95) < CACHED_P95_S,
              "cached estimates beside a ranking: p95 %.1f ms < %.0f ms"
              % (1e3 * percentile(cached, 0.95), 1e3 * CACHED_P95_S))
        check(len(cold) >= 2 and max(cold) < COLD_MAX_S,
              "estimates the cache lacks beside a ranking: slowest %.0f ms < %.0f ms"
              % (1e3 * max(cold or [0]), 1e3 * COLD_MAX_S))
    if FAILED:
        print("%d check(s) failed" % len(FAILED))
        sys.exit(1)


main()
