"""test_replicas: issue 41, item 7. Three daemons behind HAProxy, as
docs/operations.md ("Several daemons behind HAProxy") sets them up, lose one to
SIGKILL and one to SIGTERM under load.

Each replica is a real `launchrank serve` on 127.0.0.1 port 0 with its own cache
database, told the balancer's public name with --allow-origin (the daemon answers 403
to a Host that names another server; HAProxy passes the client's Host on). HAProxy runs
in the foreground as a child, unprivileged, with the configuration of
docs/operations.md on a free loopback port, health-checking GET /healthz. Clients send
estimates (tests/data/ref2_2d5pt_a100_80gb.json over changing domains) through it
the whole time, and each answer is counted in the phase it was sent in:

  all up      no request may fail;
  SIGKILL r1  only requests in flight on r1 may fail (at most one per client, all
              sent before the kill; in practice HAProxy retries them too, on r2 or
              r3); HAProxy marks r1 down and sends it nothing more;
  SIGTERM r2  no request may fail: r2 drains and exits 0; requests that reach it
              while it drains (its listening socket keeps them in the backlog until
              it closes it) are retried on r3 (retry-on empty-response,
              option redispatch); HAProxy marks r2 down;
  r3 alone    no request may fail.

Exit 77 (skipped) when haproxy is not installed; scripts/deps.sh installs it.

Usage: test_replicas.py LAUNCHRANK SOURCE_ROOT
"""
import http.client
import json
import os
import shutil
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
PUBLIC = "lr.test"    # the name clients use for the balancer (its Host)
CLIENTS = 6           # concurrent clients, one request in flight each
PHASE_S = 4.0         # seconds of load per phase
MARK_DOWN_S = 4.0     # a dead or draining replica is down well within this (inter 250ms fall 2)
START_TIMEOUT_S = 15

# The configuration of docs/operations.md, with the test's ports and files; keep the
# two the same. {servers} are the "server" lines.
HAPROXY_CFG = """\
global
    maxconn 1024
    stats socket {sock} mode 600 level admin

defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout check 1s
    # estimates and rankings can be sent again (they store nothing but the cache):
    # retry a request whose connection failed or was closed without an answer (a
    # replica killed, or draining), on another replica
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response 503
    # the whole request before a replica is chosen: only a request HAProxy holds
    # whole can be retried; else, on a keep-alive connection, HAProxy closes the
    # client's connection without an answer and leaves the retry to the client
    option http-buffer-request

frontend launchrank
    bind 127.0.0.1:{port}
    default_backend launchrank

backend launchrank
    balance leastconn
    option httpchk GET /healthz
    http-check expect status 200
    default-server check inter 250ms fall 2 rise 2
{servers}
"""


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class HAProxy:
    def __init__(self, exe, tmp, servers):
        self.sock = os.path.join(tmp, "haproxy.sock")
        self.cfg = os.path.join(tmp, "haproxy.cfg")
        self.port = free_port()
        with open(self.cfg, "w") as f:
            f.write(HAPROXY_CFG.format(sock=self.sock, port=self.port, servers="\n".join(
                "    server %s 127.0.0.1:%d" % (name, port) for name, port in servers)))
        self.log = open(os.path.join(tmp, "haproxy.log"), "w+")
        # -db: in the foreground, -W off: one process we can stop with SIGTERM
        self.proc = subprocess.Popen([exe, "-db", "-f", self.cfg], stdout=self.log,
                                     stderr=subprocess.STDOUT)

    def stat(self):
        """{server name: (status, sessions in total)} from `show stat`; self.retries
        gets {server name: (retries, redispatches)}, self.current {server name:
        sessions open now}."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(self.sock)
            s.sendall(b"show stat\n")
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        lines = data.decode().splitlines()
        head = lines[0].lstrip("# ").split(",")
        out, self.retries, self.current = {}, {}, {}
        for line in lines[1:]:
            row = dict(zip(head, line.split(",")))
            if row.get("pxname") == "launchrank" and row.get("svname") not in (
                    "FRONTEND", "BACKEND", None):
                out[row["svname"]] = (row["status"], int(row["stot"] or 0))
                self.retries[row["svname"]] = (int(row["wretr"] or 0), int(row["wredis"] or 0))
                self.current[row["svname"]] = int(row["scur"] or 0)
        return out

    def wait(self, cond, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("haproxy exited: " + self.text())
            try:
                st = self.stat()
                if cond(st):
                    return st
            except OSError:
                pass
            time.sleep(0.05)
        return None

    def text(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


with open(os.path.join(ROOT, "tests/data/ref2_2d5pt_a100_80gb.json")) as f:
    ESTIMATE = json.load(f)


class Load:
    """CLIENTS threads sending estimates through the balancer on keep-alive
    connections; each answer is kept as (sent, answered, status or error)."""

    def __init__(self, port):
        self.port = port
        self.stop = threading.Event()
        self.results = []
        self.mu = threading.Lock()
        self.threads = [threading.Thread(target=self.client, args=(k,)) for k in range(CLIENTS)]
        for t in self.threads:
            t.start()

    def client(self, k):
        conn = None
        i = 0
        while not self.stop.is_set():
            i += 1
            # half repeat 50 configurations (each replica caches them), half new ones
            width = 2000 + (i % 50) if i % 2 else 100000 + k * 100000 + i
            body = json.dumps(dict(ESTIMATE, domain=[width, 1000]))
            sent = time.monotonic()
            try:
                if conn is None:
                    conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                conn.request("POST", "/v1/estimate", body,
                             {"Host": PUBLIC, "Content-Type": "application/json"})
                resp = conn.getresponse()
                data = resp.read()
                outcome = resp.status
                if resp.status != 200:
                    outcome = "%d %s" % (resp.status, data[:200])
                if resp.getheader("connection", "").lower() == "close":
                    conn.close()
                    conn = None
            except (OSError, http.client.HTTPException) as e:
                outcome = "%s: %s" % (type(e).__name__, e)
                if conn:
                    conn.close()
                conn = None
            with self.mu:
                self.results.append((sent, time.monotonic(), outcome))
        if conn:
            conn.close()

    def between(self, t0, t1):
        """The answers to requests sent in [t0, t1)."""
        with self.mu:
            return [r for r in self.results if t0 <= r[0] < t1]

    def close(self):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=120)


def rows(db):
    try:
        with sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=5) as c:
            return c.execute("SELECT count(*) FROM prediction").fetchone()[0]
    except sqlite3.Error as e:
        return "unreadable (%s)" % e


def report(name, answers):
    bad = [r for r in answers if r[2] != 200]
    print("%-11s %5d requests, %d failed%s" % (name, len(answers), len(bad),
                                               (": %s" % sorted({str(r[2]) for r in bad})[:5])
                                               if bad else ""))
    return bad


def main():
    exe = shutil.which("haproxy") or next(
        (p for p in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy") if os.access(p, os.X_OK)),
        None)
    if not exe:
        print("haproxy is not installed (scripts/deps.sh installs it): skipped")
        return 77
    t_start = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="lr-replicas-")
    replicas, hap, load = [], None, None
    try:
        for _ in range(3):
            replicas.append(Daemon(LR, extra_args=["--allow-origin", "http://" + PUBLIC]))
        names = ["r1", "r2", "r3"]
        hap = HAProxy(exe, tmp, [(n, d.port) for n, d in zip(names, replicas)])
        up = hap.wait(lambda st: len(st) == 3 and all(s == "UP" for s, _ in st.values()),
                      START_TIMEOUT_S)
        check(up is not None, "haproxy sees the 3 replicas up: %s" % (up or hap.text()[-2000:]))
        if up is None:
            return 1

        load = Load(hap.port)
        t0 = time.monotonic()
        time.sleep(PHASE_S)
        before_kill = hap.stat()
        on_r1 = hap.current["r1"]
        t_kill = time.monotonic()
        replicas[0].proc.kill()
        down = hap.wait(lambda st: st["r1"][0].startswith("DOWN"), MARK_DOWN_S)
        t_r1_down = time.monotonic()
        time.sleep(max(0.0, PHASE_S - (t_r1_down - t_kill)))
        r1_sessions = hap.stat()["r1"][1]
        time.sleep(0.5)
        r1_sessions_later = hap.stat()["r1"][1]
        hap.stat()
        on_r2 = hap.current["r2"]
        t_term = time.monotonic()
        replicas[1].proc.send_signal(signal.SIGTERM)
        try:
            rc2 = replicas[1].proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            rc2 = None
        down2 = hap.wait(lambda st: st["r2"][0].startswith("DOWN"), MARK_DOWN_S)
        t_r2_down = time.monotonic()
        time.sleep(max(0.0, PHASE_S - (t_r2_down - t_term)))
        t_alone = time.monotonic()
        time.sleep(PHASE_S / 2)
        t_end = time.monotonic()
        load.close()
        after = hap.stat()

        print("sessions per replica before the kill: %s; at the end: %s" % (before_kill, after))
        print("retries and redispatches away from each replica: %s" % hap.retries)
        # the requests in flight at the kill belong to its phase
        in_flight = [r for r in load.between(t0, t_kill) if r[1] >= t_kill]
        all_up = report("all up", [r for r in load.between(t0, t_kill) if r[1] < t_kill])
        killed = report("SIGKILL r1", in_flight + load.between(t_kill, t_term))
        termed = report("SIGTERM r2", load.between(t_term, t_alone))
        alone = report("r3 alone", load.between(t_alone, t_end))
        late = [r for r in load.results if r[0] >= t_end]
        print("r1 marked down %.2f s after SIGKILL (%d requests on it just before), r2 %.2f s "
              "after SIGTERM (%d requests on it just before; exit %s)"
              % (t_r1_down - t_kill, on_r1, t_r2_down - t_term, on_r2, rc2))

        check(len(load.between(t0, t_kill)) >= 50, "the load ran")
        check(not all_up, "all up: no request fails")
        check(all(s > 0 for _, s in before_kill.values()),
              "all up: each replica gets requests: %s" % before_kill)
        killed_in_flight = [r for r in killed if r[0] < t_kill]
        check(len(killed_in_flight) == len(killed),
              "SIGKILL r1: only requests in flight at the kill fail (%d failed, %d of them in "
              "flight of %d in flight on all replicas)"
              % (len(killed), len(killed_in_flight), len(in_flight)))
        check(down is not None, "SIGKILL r1: haproxy marks r1 down within %.0f s" % MARK_DOWN_S)
        check(r1_sessions_later == r1_sessions,
              "SIGKILL r1: once down, r1 is sent nothing (%d then %d sessions)"
              % (r1_sessions, r1_sessions_later))
        check(not termed, "SIGTERM r2: no request fails (%d did)" % len(termed))
        check(rc2 == 0, "SIGTERM r2: r2 drains and exits 0 (%s)%s" % (
            rc2, "" if rc2 == 0 else "; its stderr ends:\n" + replicas[1].stderr()[-3000:]))
        check(down2 is not None, "SIGTERM r2: haproxy marks r2 down within %.0f s" % MARK_DOWN_S)
        check(not alone and len(load.between(t_alone, t_end)) > 0,
              "r3 alone: every request answered")
        check(all(r[2] == 200 for r in late), "the last requests answered too")
        cached = [rows(d.db) for d in replicas]
        check(all(isinstance(n, int) and n > 0 for n in cached),
              "each replica cached in its own database: %s rows" % cached)
        print("test_replicas: %.0f s" % (time.monotonic() - t_start))
    finally:
        if load:
            load.close()
        if hap:
            hap.close()
        for d in replicas:
            d.close()  # SIGTERM where one still runs
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
