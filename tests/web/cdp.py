"""cdp: drive Debian's headless Chromium over the DevTools protocol, standard library only.

Chromium started with --remote-debugging-pipe reads protocol commands from its file
descriptor 3 and writes answers and events to its descriptor 4, each message a JSON
text ended by a NUL byte. That needs no WebSocket library and no network port, and
no npm package (a test tool that downloads a browser of its own cannot work here).
Every wait is bounded; close() ends the browser it started and nothing else.
"""
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

# The flags a closed machine needs (no sandbox as root, no GPU, no calls home: the
# page's own requests are then the only ones, which the test checks; shared memory
# in /tmp, as a container's /dev/shm may be too small).
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio",
         "--hide-scrollbars", "--disable-dev-shm-usage", "--remote-debugging-pipe"]


def find_chromium():
    """The Chromium executable, or None."""
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


class CdpError(RuntimeError):
    pass


class Browser:
    """One headless Chromium with one page, attached in flat session mode."""

    def __init__(self, executable, width=1400, height=1000, timeout_s=30):
        self.tmp = tempfile.TemporaryDirectory(prefix="lr-web-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def fds():  # in the child: its fd 3 reads our commands, fd 4 writes answers
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        # close_fds=False: Popen closes the fds not kept after fds() ran, which would
        # close 3 and 4 again; ours are the only inheritable ones (Python's default).

        self.log = open(os.path.join(self.tmp.name, "stderr"), "w+")
        self.proc = subprocess.Popen(
            [executable] + FLAGS + ["--user-data-dir=" + os.path.join(self.tmp.name, "profile"),
                                    "--window-size=%d,%d" % (width, height), "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log,
            preexec_fn=fds, close_fds=False)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._next_id = 0
        self.events = []  # every event received, in order: {"method", "params", ...}
        self.session = None
        target = self._first_page(timeout_s)
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True,
                                 _browser=True)["sessionId"]
        for domain in ("Page", "Runtime", "Network"):
            self.call(domain + ".enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def _first_page(self, timeout_s):
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for t in self.call("Target.getTargets", _browser=True)["targetInfos"]:
                if t["type"] == "page":
                    return t["targetId"]
            time.sleep(0.1)
        raise CdpError("Chromium opened no page within %d s" % timeout_s)

    def _send(self, msg):
        data = json.dumps(msg).encode() + b"\0"
        while data:
            data = data[os.write(self._to_child, data):]

    def _receive(self, deadline):
        """The next message, or CdpError when the deadline passes or Chromium exits."""
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError("Chromium did not answer in time")
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise CdpError("Chromium closed its pipe: " + self.stderr()[-2000:])
                self._buf += chunk
        text, self._buf = self._buf.split(b"\0", 1)
        return json.loads(text)

    def call(self, method, _browser=False, _timeout_s=60, **params):
        """Sends one command (to the page's session unless _browser) and returns its
        result; events that arrive meanwhile are kept in self.events."""
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params}
        if self.session and not _browser:
            msg["sessionId"] = self.session
        self._send(msg)
        deadline = time.monotonic() + _timeout_s
        while True:
            m = self._receive(deadline)
            if m.get("id") == self._next_id:
                if "error" in m:
                    raise CdpError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def js(self, expression, timeout_s=60):
        """Evaluates expression in the page (awaiting a promise) and returns its value
        (JSON-serialisable values only); a thrown exception becomes CdpError."""
        r = self.call("Runtime.evaluate", expression=expression, awaitPromise=True,
                      returnByValue=True, _timeout_s=timeout_s)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise CdpError("page threw: %s" % d.get("exception", {}).get("description", d))
        return r["result"].get("value")

    def wait_for(self, expression, timeout_s, what):
        """Polls expression until it is truthy; returns its value. While a page
        loads, its context may vanish under an evaluation: that is polled again."""
        deadline = time.monotonic() + timeout_s
        last = None
        while time.monotonic() < deadline:
            try:
                v = self.js(expression)
                if v:
                    return v
            except CdpError as e:
                last = e
            time.sleep(0.05)
        raise CdpError("timed out after %d s waiting for %s (last error: %s)"
                       % (timeout_s, what, last))

    def navigate(self, url):
        self.call("Page.navigate", url=url)

    def mouse_move(self, x, y):
        self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)

    def click(self, x, y):
        """A left click at (x, y), viewport coordinates."""
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def insert_text(self, text):
        """Types text at the focused element's cursor, as a keyboard would."""
        self.call("Input.insertText", text=text)

    def screenshot(self, path, clip=None):
        """A PNG of the page, or of clip {x, y, width, height} in page coordinates."""
        params = {"format": "png", "captureBeyondViewport": True}
        if clip:
            params["clip"] = dict(clip, scale=1)
        data = base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])
        with open(path, "wb") as f:
            f.write(data)
        return len(data)

    def requested_urls(self):
        """Every URL the page asked the network for so far."""
        return [e["params"]["request"]["url"] for e in self.events
                if e.get("method") == "Network.requestWillBeSent"]

    def stderr(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def close(self):
        try:
            if self.proc.poll() is None:
                try:
                    self.call("Browser.close", _browser=True, _timeout_s=10)
                except (CdpError, OSError):
                    pass
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(timeout=10)
        finally:
            for fd in (self._to_child, self._from_child):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self.log.close()
            self.tmp.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
