#!/usr/bin/env python3
"""slowloris.py: how a prompt client fares while slow clients trickle (issue 41, item 3).

Starts `launchrank-serve` (or `launchrank serve`) on 127.0.0.1 port 0 with its default
limits, opens TRICKLERS connections from 127.0.0.2 .. 127.0.0.5 that send a request head
that never ends, one byte per connection every 100 ms, and reconnect as soon as the
daemon drops one (a slowloris attack), and meanwhile sends GET /healthz from 127.0.0.1,
one request per new connection, for SECONDS seconds. Prints how many of those requests
were answered, how fast (median, 99th percentile, slowest), how many failed or took
more than 1 s, and how often the tricklers had to reconnect.

Usage: bench/slowloris.py DAEMON [--seconds S] [--tricklers N] [-- DAEMON OPTIONS...]
  DAEMON  build-release/clients/cli/launchrank-serve (or .../launchrank: then `serve`
          is added). Linux only: every 127.0.0.x address is loopback there.
"""
import argparse
import os
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time

ADDRS = ["127.0.0.%d" % i for i in range(2, 6)]
TRICKLE_EVERY_S = 0.1
CLIENT_TIMEOUT_S = 5.0  # a request not answered by then counts as failed


def start_daemon(binary, extra):
    tmp = tempfile.mkdtemp(prefix="lr-slowloris-")
    port_file = os.path.join(tmp, "port")
    args = [binary] + (["serve"] if os.path.basename(binary) == "launchrank" else [])
    args += ["--listen", "127.0.0.1:0", "--port-file", port_file, "--no-cache", "--quiet"]
    proc = subprocess.Popen(args + extra, stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(tmp, "stderr"), "w"))
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit("the daemon exited with %d: %s" % (proc.returncode,
                                                        open(os.path.join(tmp, "stderr")).read()))
        try:
            with open(port_file) as f:
                return proc, int(f.read())
        except (FileNotFoundError, ValueError):
            time.sleep(0.05)
    proc.kill()
    sys.exit("the daemon wrote no port file within 15 s")


class Tricklers(threading.Thread):
    """n connections trickling an endless head from ADDRS, reconnecting when dropped."""

    def __init__(self, port, n):
        super().__init__(daemon=True)
        self.port, self.n = port, n
        self.head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-T: " % port
        self.stop = threading.Event()
        self.reconnects = 0
        self.sel = selectors.DefaultSelector()
        self.socks = [None] * n
        self.sent = [0] * n

    def open(self, i):
        old = self.socks[i]
        if old is not None:
            self.sel.unregister(old)
            old.close()
            self.reconnects += 1
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        # the port is picked at connect(), so four addresses share the range
        s.setsockopt(socket.IPPROTO_IP, getattr(socket, "IP_BIND_ADDRESS_NO_PORT", 24), 1)
        s.bind((ADDRS[i % len(ADDRS)], 0))
        try:
            s.connect(("127.0.0.1", self.port))
        except BlockingIOError:
            pass
        except OSError:
            pass  # refused: seen as readable below, and opened again
        self.socks[i] = s
        self.sent[i] = 0
        self.sel.register(s, selectors.EVENT_READ, i)

    def run(self):
        for i in range(self.n):
            self.open(i)
        next_send = time.monotonic()
        while not self.stop.is_set():
            for key, _ in self.sel.select(timeout=0.01):
                self.open(key.data)  # an answer or the end of the stream: come back
            if time.monotonic() < next_send:
                continue
            next_send += TRICKLE_EVERY_S
            for i, s in enumerate(self.socks):
                k = self.sent[i]
                byte = self.head[k:k + 1] or b"a"
                try:
                    if s.send(byte) == 1:
                        self.sent[i] += 1
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError as e:
                    if e.errno != 107:  # ENOTCONN: still connecting
                        self.open(i)
        for s in self.socks:
            s.close()


def client_request(port):
    """Seconds GET /healthz took from 127.0.0.1 on a new connection, or None."""
    t0 = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=CLIENT_TIMEOUT_S,
                                      source_address=("127.0.0.1", 0)) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close"
                      b"\r\n\r\n" % port)
            data = b""
            while True:
                b = s.recv(4096)
                if not b:
                    break
                data += b
    except OSError:
        return None
    return time.monotonic() - t0 if data.startswith(b"HTTP/1.1 200") else None


def percentile(sorted_xs, q):
    return sorted_xs[min(len(sorted_xs) - 1, int(q * len(sorted_xs)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("daemon")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--tricklers", type=int, default=512)
    ap.add_argument("--warmup", type=float, default=2, help="seconds before the client starts")
    ap.add_argument("extra", nargs="*", help="options for the daemon (after --)")
    a = ap.parse_args()
    proc, port = start_daemon(a.daemon, a.extra)
    try:
        t = Tricklers(port, a.tricklers)
        t.start()
        time.sleep(a.warmup)
        times, failed = [], 0
        t0 = time.monotonic()
        while time.monotonic() - t0 < a.seconds:
            took = client_request(port)
            if took is None:
                failed += 1
            else:
                times.append(took)
            time.sleep(0.05)
        t.stop.set()
        t.join()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    sent = len(times) + failed
    times.sort()
    slow = sum(1 for x in times if x > 1.0)
    print("%d tricklers from %s, %.0f s: the 127.0.0.1 client got %d of %d requests "
          "answered (%.1f %%), %d failed (no answer within %.0f s, or refused)"
          % (a.tricklers, "-".join([ADDRS[0], ADDRS[-1].split(".")[-1]]), a.seconds,
             len(times), sent, 100.0 * len(times) / max(sent, 1), failed, CLIENT_TIMEOUT_S))
    if times:
        print("answered in: median %.1f ms, p99 %.1f ms, slowest %.1f ms; %d took more "
              "than 1 s" % (1e3 * percentile(times, 0.5), 1e3 * percentile(times, 0.99),
                            1e3 * times[-1], slow))
    print("the tricklers reconnected %d times (%.0f per second)"
          % (t.reconnects, t.reconnects / (a.seconds + a.warmup)))


if __name__ == "__main__":
    main()
