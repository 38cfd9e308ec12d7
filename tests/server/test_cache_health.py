"""test_cache_health: issue 41, item 6, against a real daemon (`launchrank serve`).

A cache that fails under load writes a few log lines, not one or two per request:
one when it starts failing, one when it works again (a summary once a minute in
between, which tests/server/test_cache_log.c checks on a clock of its own). Before,
a cache whose reads succeeded and whose writes failed wrote about 500 lines a second,
--quiet or not. And GET /healthz, which answers any Host, names the database by its
base name: before, it showed where the daemon keeps its files to whoever asked.

Two ways to break the cache that work for root too (a chmod does not stop root):
  - writes fail, reads succeed: the daemon's file size limit lowered to 0 with
    prlimit(2) while it runs (every write past offset 0 fails with EFBIG; the
    daemon is started with SIGXFSZ ignored and its stderr is a pipe, which the limit
    does not concern);
  - the database's directory removed: nothing can be opened or made there.

Usage: test_cache_health.py LAUNCHRANK SOURCE_ROOT
"""
import http.client
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

LR, ROOT = sys.argv[1], sys.argv[2]
FAILED = []
START_TIMEOUT_S = 15
LOAD_S = 3.0          # seconds of load while the cache fails
CLIENTS = 8           # concurrent clients of the load
CALM_S = 5.0          # SRV_CACHE_CALM_S (server/srv_int.h)
RECOVERY_WAIT_S = 15  # CALM_S and the requests that show the cache works


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)


with open(os.path.join(ROOT, "tests/data/ref2_2d5pt_a100_80gb.json")) as f:
    ESTIMATE = json.load(f)


def ignore_xfsz():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


class Daemon:
    """launchrank serve on 127.0.0.1 port 0 caching in DIR/db/cache.sqlite; its stderr
    is read line by line into self.lines by a thread."""

    def __init__(self, quiet):
        self.tmp = tempfile.mkdtemp(prefix="lr-cache-health-")
        self.dir = os.path.join(self.tmp, "db")
        os.mkdir(self.dir)
        self.db = os.path.join(self.dir, "cache.sqlite")
        port_file = os.path.join(self.tmp, "port")
        args = [LR, "serve", "--listen", "127.0.0.1:0", "--port-file", port_file,
                "--db", self.db, "--threads", "2"] + (["--quiet"] if quiet else [])
        # restore_signals=False: subprocess would set SIGXFSZ back to its default
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, errors="replace", preexec_fn=ignore_xfsz,
                                     restore_signals=False)
        self.lines = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        self.port = None
        while self.port is None:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.proc.kill()
                raise RuntimeError("launchrank serve did not start: %s" % self.lines)
            try:
                with open(port_file) as f:
                    self.port = int(f.read().strip())
            except (FileNotFoundError, ValueError):
                time.sleep(0.05)

    def _read(self):
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def cache_lines(self):
        return [l for l in list(self.lines) if l.startswith("launchrank: cache ")]

    def request(self, method, path, body=None, host=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            headers = {"Host": host or "127.0.0.1:%d" % self.port}
            if body is not None:
                headers["Content-Type"] = "application/json"
            conn.request(method, path, body, headers)
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def estimate(self, n):
        """Configuration n: a new one (a cache miss and a write) for each n, or, for
        n < 0, one of 20 that were cached before the cache broke (reads alone)."""
        width = 1000 + n if n >= 0 else 100 - n
        return self.request("POST", "/v1/estimate", json.dumps(dict(ESTIMATE, domain=[width, 1000])))

    def load(self, seconds):
        """CLIENTS clients for seconds, half new configurations, half cached ones, and
        /healthz now and then; returns (requests, answers other than 200)."""
        stop = time.monotonic() + seconds
        counts = [[0, 0] for _ in range(CLIENTS)]

        def client(k):
            i = 0
            while time.monotonic() < stop:
                i += 1
                if i % 10 == 0:
                    status, _ = self.request("GET", "/healthz")
                elif i % 2:
                    status, _ = self.estimate(k * 1000000 + i)
                else:
                    status, _ = self.estimate(-(i % 20) - 1)
                counts[k][0] += 1
                counts[k][1] += status != 200
        threads = [threading.Thread(target=client, args=(k,)) for k in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return sum(c[0] for c in counts), sum(c[1] for c in counts)

    def wait_recovery(self):
        """Requests (new configurations) until the log says the cache works again, at
        most RECOVERY_WAIT_S; returns the seconds it took, or None."""
        t0 = time.monotonic()
        n = 0
        while time.monotonic() - t0 < RECOVERY_WAIT_S:
            n += 1
            self.estimate(50000000 + n)
            if any(l == "launchrank: cache working again" for l in self.cache_lines()):
                return time.monotonic() - t0
            time.sleep(0.25)
        return None

    def healthz_for_a_stranger(self):
        status, body = self.request("GET", "/healthz", host="lb-check.example")
        return status, body.decode("utf-8", "replace")

    def close(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.reader.join(timeout=5)
        shutil.rmtree(self.tmp, ignore_errors=True)
        return self.proc.returncode


def warm(d):
    for n in range(20):
        d.estimate(-n - 1)


def writes_fail_reads_succeed(quiet):
    name = "--quiet" if quiet else "without --quiet"
    d = Daemon(quiet)
    try:
        warm(d)
        before = len(d.lines)
        resource.prlimit(d.proc.pid, resource.RLIMIT_FSIZE,
                         (0, resource.prlimit(d.proc.pid, resource.RLIMIT_FSIZE)[1]))
        requests, bad = d.load(LOAD_S)
        said = d.cache_lines()
        print("%s: %d requests in %.0f s while writes failed, %d not 200; log lines: %d, of "
              "them about the cache: %s" % (name, requests, LOAD_S, bad, len(d.lines) - before,
                                            said))
        check(bad == 0, "%s: a failing cache fails no request (%d did)" % (name, bad))
        check(requests >= 50, "%s: the load ran (%d requests)" % (name, requests))
        check(len(said) == 1 and said[0].startswith("launchrank: cache not used for now: "
                                                     "cache database '%s': " % d.db),
              "%s: one line says the cache fails, naming the database by its full path, "
              "with the reason: %s" % (name, said[:4]))
        if quiet:
            check(len(d.lines) - before <= 1,
                  "--quiet: the daemon wrote %d lines under load, at most 1 expected"
                  % (len(d.lines) - before))
        d.estimate(40000000)  # a new configuration: the last cache operation fails
        status, body = d.healthz_for_a_stranger()
        check(status == 200 and "cache database 'cache.sqlite': " in body
              and d.tmp not in body,
              "%s: /healthz for another Host names the database by its base name: %s"
              % (name, body))

        resource.prlimit(d.proc.pid, resource.RLIMIT_FSIZE,
                         (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        took = d.wait_recovery()
        said = d.cache_lines()
        check(took is not None and took >= CALM_S - 1,
              "%s: once writes succeed, the log says so after about %.0f s of calm (%s s)"
              % (name, CALM_S, took))
        check(said.count("launchrank: cache working again") == 1 and len(said) == 2,
              "%s: two cache lines in all: %s" % (name, said[:4]))
    finally:
        rc = d.close()
    check(rc == 0, "%s: the daemon exits 0 on SIGTERM (%s)" % (name, rc))


def directory_removed(quiet):
    name = "directory removed, " + ("--quiet" if quiet else "without --quiet")
    d = Daemon(quiet)
    try:
        warm(d)
        shutil.rmtree(d.dir)
        requests, bad = d.load(LOAD_S)
        said = d.cache_lines()
        print("%s: %d requests in %.0f s, %d not 200; about the cache: %s"
              % (name, requests, LOAD_S, bad, said))
        check(bad == 0, "%s: no request fails (%d did)" % (name, bad))
        check(len(said) == 1 and "was deleted" in said[0] and d.db in said[0],
              "%s: one line says so, with the full path: %s" % (name, said[:4]))
        status, body = d.healthz_for_a_stranger()
        check(status == 200 and "the cache database cache.sqlite was deleted" in body
              and d.tmp not in body,
              "%s: /healthz for another Host says so without the directories: %s"
              % (name, body))
        status, body = d.request("GET", "/healthz")
        check(status == 200 and d.tmp not in body.decode(),
              "%s: nor for our own Host: %s" % (name, body))
        os.mkdir(d.dir)
        took = d.wait_recovery()
        said = d.cache_lines()
        check(took is not None and len(said) == 2 and said[1] == "launchrank: cache working again",
              "%s: once the directory is back, one line says the cache works (%s s): %s"
              % (name, took, said[:4]))
    finally:
        rc = d.close()
    check(rc == 0, "%s: the daemon exits 0 on SIGTERM (%s)" % (name, rc))


def main():
    t0 = time.monotonic()
    writes_fail_reads_succeed(quiet=True)
    writes_fail_reads_succeed(quiet=False)
    directory_removed(quiet=True)
    print("test_cache_health: %d failure(s), %.0f s" % (len(FAILED), time.monotonic() - t0))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
