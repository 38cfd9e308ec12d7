"""lrdaemon: start and stop a real `launchrank serve` for the tests of tests/schema/.

The daemon binds 127.0.0.1 port 0 and writes the port it got to --port-file, so
tests never race for a fixed port; every wait here is bounded, and stop() sends
SIGTERM (the graceful shutdown) before it ever kills.
"""
import http.client
import os
import signal
import subprocess
import tempfile
import time

START_TIMEOUT_S = 15  # the daemon loads five device files and binds a socket
STOP_TIMEOUT_S = 15   # graceful shutdown waits for requests in flight (none here)
HTTP_TIMEOUT_S = 60   # a default-space ranking takes about a second


class Daemon:
    """A launchrank daemon on 127.0.0.1:<port>. Use as a context manager."""

    def __init__(self, binary, cache=True, extra_args=(), db=None):
        """db: the database to serve (e.g. with stored devices); default a new one."""
        self.binary = binary
        self.tmp = tempfile.TemporaryDirectory(prefix="lr-schema-")
        self.port_file = os.path.join(self.tmp.name, "port")
        self.db = db or os.path.join(self.tmp.name, "cache.sqlite")
        args = [binary, "serve", "--listen", "127.0.0.1:0", "--port-file", self.port_file,
                "--quiet", "--threads", "2"]
        args += ["--db", self.db] if cache else ["--no-cache"]
        args += list(extra_args)
        self.log = open(os.path.join(self.tmp.name, "stderr"), "w+")
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=self.log)
        self.port = self._wait_port()
        self.base = "http://127.0.0.1:%d" % self.port

    def _wait_port(self):
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("launchrank serve exited with %d before listening: %s"
                                   % (self.proc.returncode, self.stderr()))
            try:
                with open(self.port_file) as f:
                    text = f.read().strip()
                if text:
                    return int(text)
            except (FileNotFoundError, ValueError):
                pass
            time.sleep(0.05)
        self.proc.kill()
        self.proc.wait(timeout=STOP_TIMEOUT_S)
        raise RuntimeError("launchrank serve wrote no port file within %d s" % START_TIMEOUT_S)

    def stderr(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def request(self, method, path, body=None, headers=None, timeout=HTTP_TIMEOUT_S):
        """Sends one request; returns (status, headers dict with lower-case names, body bytes).
        timeout: seconds the socket waits (a long ranking under a sanitizer needs more)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.putrequest(method, path, skip_accept_encoding=True)
            for k, v in (headers or {}).items():
                conn.putheader(k, v)
            if body is not None:
                conn.putheader("Content-Length", str(len(body)))
            conn.endheaders()
            try:
                if body:
                    conn.send(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # answered from the headers (413, 415, ...): the answer is waiting
            resp = conn.getresponse()
            data = resp.read()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
        finally:
            conn.close()

    def stop(self):
        """SIGTERM, then wait; returns the exit status (killed after STOP_TIMEOUT_S)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=STOP_TIMEOUT_S)
                raise RuntimeError("launchrank serve ignored SIGTERM for %d s" % STOP_TIMEOUT_S)
        return self.proc.returncode

    def close(self):
        try:
            rc = self.stop()
            # what the daemon said before a bad exit (a sanitizer report, an abort) is
            # the only trace of it: keep it for the error below
            self.last_words = self.stderr()[-4000:] if rc != 0 else ""
            return rc
        finally:
            self.log.close()
            self.tmp.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        rc = self.close()
        if exc[0] is None and rc != 0:
            raise RuntimeError("launchrank serve exited with %d after SIGTERM; its stderr "
                               "ends:\n%s" % (rc, self.last_words))
        return False
