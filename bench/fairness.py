#!/usr/bin/env python3
"""bench/fairness.py: how long estimates wait beside a ranking (issue 41, item 2).

Starts `launchrank serve` (the build's, or LAUNCHRANK) with --threads 2 and a fresh
cache, stores one estimate, then, for SECONDS seconds while a ranking of the 3-D
25-point stencil folded 16 and 32 in z holds both compute threads, asks that cached
estimate every 20 ms and an uncached one (another domain) every tenth time, and prints
latency percentiles of each, beside the cached estimate's latency on the idle daemon.
The ranking's client then hangs up (which cancels it).

    bench/fairness.py build-release/clients/cli/launchrank [SECONDS]
"""
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build-release/clients/cli/launchrank")
SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0


def load(path):
    with open(os.path.join(ROOT, path)) as f:
        return json.load(f)


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))] * 1e3 if v else float("nan")


RANK = load("tests/data/ref3_3d25pt_a100.json")
RANK.pop("launch")
RANK["search"] = {"foldings": [[1, 1, 16], [1, 1, 32]]}
RANK_BODY = json.dumps(RANK).encode()
EST = load("tests/data/ref2_2d5pt_a100_80gb.json")


def body(n):
    return json.dumps(dict(EST, domain=[15000 - n, 15000, 1])).encode()


def main():
    tmp = tempfile.mkdtemp(prefix="lr-fair-")
    port_file = os.path.join(tmp, "port")
    proc = subprocess.Popen([LR, "serve", "--listen", "127.0.0.1:0", "--port-file", port_file,
                             "--db", os.path.join(tmp, "c.sqlite"), "--quiet", "--threads", "2",
                             "--time-limit", "3600"], stderr=subprocess.DEVNULL)
    for _ in range(300):
        if os.path.exists(port_file) and open(port_file).read().strip():
            break
        time.sleep(0.05)
    port = int(open(port_file).read())
    hdr = {"Content-Type": "application/json", "Host": "127.0.0.1:%d" % port}

    def post(b):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        t0 = time.monotonic()
        c.request("POST", "/v1/estimate", b, hdr)
        r = c.getresponse()
        r.read()
        c.close()
        return time.monotonic() - t0, r.status

    post(body(0))
    idle = [post(body(0))[0] for _ in range(50)]
    rs = socket.create_connection(("127.0.0.1", port))
    rs.sendall(b"POST /v1/rank HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: "
               b"application/json\r\nContent-Length: %d\r\n\r\n" % (port, len(RANK_BODY))
               + RANK_BODY)
    time.sleep(1.0)
    cached, cold, bad, n = [], [], 0, 0
    end = time.monotonic() + SECONDS
    while time.monotonic() < end:
        n += 1
        dt, st = post(body(0))
        cached.append(dt)
        bad += st != 200
        if n % 10 == 0:
            dt, st = post(body(n))
            cold.append(dt)
            bad += st != 200
        time.sleep(0.02)
    rs.close()
    proc.terminate()
    proc.wait()
    print("launchrank daemon (%s), --threads 2, %d cores, load average %s" %
          (LR, os.cpu_count(), open("/proc/loadavg").read().split()[0]))
    print("%-34s %6s %9s %9s %9s" % ("estimate", "count", "p50 ms", "p95 ms", "max ms"))
    for name, v in (("cached, idle daemon", idle), ("cached, beside a ranking", cached),
                    ("not cached, beside a ranking", cold)):
        print("%-34s %6d %9.2f %9.2f %9.2f" % (name, len(v), pct(v, 0.5), pct(v, 0.95),
                                              max(v) * 1e3 if v else float("nan")))
    print("answers other than 200: %d" % bad)


main()
