#!/usr/bin/env python3
"""
test_client: the Python client (clients/python/launchrank_client) against a live daemon.

Each test starts the real `launchrank serve` on 127.0.0.1 port 0 with a temporary
cache database, reads the bound port from --port-file, and talks to it through the
client: predictions, ranking, devices, the server's errors as LaunchrankError, an
unreachable daemon, the example script, and the cache surviving a restart. Every
wait is bounded; tearDown always stops the daemon.

    PYTHONPATH=clients/python python3 tests/python/test_client.py PATH/TO/launchrank

(or LAUNCHRANK_BIN=PATH/TO/launchrank). Exits non-zero when a test fails.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

from launchrank_client import Client, LaunchrankConnectionError, LaunchrankError, field

import lrtests  # the command line of the test files here

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLE = os.path.join(SOURCE_ROOT, "clients", "python", "examples", "pick_block_size.py")

LAUNCHRANK_BIN = os.environ.get("LAUNCHRANK_BIN", "")

START_TIMEOUT_S = 15.0  # the daemon writes its port file within milliseconds
STOP_TIMEOUT_S = 15.0   # graceful stop answers in-flight requests first
CLIENT_TIMEOUT_S = 30.0

BUILTIN_DEVICES = {"V100-PCIe-32GB", "A100-SXM4-40GB", "A100-SXM4-80GB", "K20m",
                   "H100-SXM5-80GB", "H200-SXM-141GB"}


def seven_point(dims=(258, 258, 258)):
    """A 3-D 7-point stencil on doubles with a halo of 1 (interior at +1)."""
    c = ["x+1", "y+1", "z+1"]
    nb = [["x", "y+1", "z+1"], ["x+2", "y+1", "z+1"], ["x+1", "y", "z+1"],
          ["x+1", "y+2", "z+1"], ["x+1", "y+1", "z"], ["x+1", "y+1", "z+2"]]
    return {"fields": [field("src", dims, loads=[c] + nb), field("dst", dims, stores=[c])],
            "flops": 8}


class Daemon:
    """One `launchrank serve` process on 127.0.0.1:0 with the given cache file."""

    def __init__(self, binary, workdir, db):
        self.port_file = os.path.join(workdir, "port-%d" % time.monotonic_ns())
        self.log_path = self.port_file + ".log"
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [binary, "serve", "--listen", "127.0.0.1:0", "--port-file", self.port_file,
             "--db", db, "--quiet"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)
        self.port = self._wait_for_port()
        self.url = "http://127.0.0.1:%d" % self.port

    def _wait_for_port(self):
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.kill()
                raise RuntimeError("launchrank serve exited with %d before listening:\n%s"
                                   % (self.proc.returncode, self.output()))
            try:
                with open(self.port_file) as f:
                    text = f.read().strip()
                if text.isdigit() and int(text) > 0:
                    return int(text)
            except FileNotFoundError:
                pass
            time.sleep(0.02)
        self.kill()
        raise RuntimeError("launchrank serve wrote no port file within %g s:\n%s"
                           % (START_TIMEOUT_S, self.output()))

    def output(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def stop(self):
        """SIGTERM and wait (bounded); returns the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=STOP_TIMEOUT_S)
        finally:
            self.kill()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=STOP_TIMEOUT_S)
        if not self.log.closed:
            self.log.close()


def free_port():
    """A port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveDaemonTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="launchrank-py-")
        self.db = os.path.join(self.tmp, "cache.sqlite")
        self.daemons = []
        try:
            self.daemon = self.start()
        except BaseException:
            self.tearDown()  # unittest skips tearDown when setUp fails
            raise
        self.client = Client(self.daemon.url, timeout=CLIENT_TIMEOUT_S)

    def tearDown(self):
        for d in self.daemons:
            d.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self):
        d = Daemon(LAUNCHRANK_BIN, self.tmp, self.db)
        self.daemons.append(d)
        return d

    def estimate_request(self, block=(32, 4, 2)):
        return {"device": "A100-SXM4-40GB", "kernel": seven_point(), "domain": [256, 256, 256],
                "launch": {"block": list(block), "folding": [1, 1, 1]}}

    # -- predictions ---------------------------------------------------------

    def test_estimate_returns_volumes_and_performance_and_is_cached_on_repeat(self):
        r = self.client.estimate(self.estimate_request())
        for key in ("model_version", "device", "domain", "launch", "estimate", "performance",
                    "fields", "units", "cached"):
            self.assertIn(key, r)
        self.assertEqual(r["device"], "A100-SXM4-40GB")
        self.assertEqual(r["launch"]["block"], [32, 4, 2])
        self.assertTrue(r["launch"]["launchable"])
        self.assertIn("B/Lup", r["units"]["volumes"])
        self.assertIn("GLup/s", r["units"]["performance"])
        self.assertGreater(r["performance"]["predicted"], 0)
        self.assertIn(r["performance"]["limiter"], ("flops", "l1", "l2", "dram"))
        self.assertGreater(r["estimate"]["dram_load"], 0)
        self.assertEqual(set(r["fields"]), {"src", "dst"})
        self.assertIs(r["cached"], False)

        again = self.client.estimate_kernel("A100-SXM4-40GB", seven_point(), [256, 256, 256],
                                            [32, 4, 2])
        self.assertIs(again["cached"], True)
        self.assertEqual(again["performance"]["predicted"], r["performance"]["predicted"])

    def test_rank_with_top_3_returns_three_results_best_first(self):
        r = self.client.rank_kernel("A100-SXM4-40GB", seven_point(), [256, 256, 256], top=3)
        results = r["results"]
        self.assertEqual(len(results), 3)
        self.assertGreaterEqual(r["evaluated"], 3)
        predicted = [x["performance"]["predicted"] for x in results]
        self.assertEqual(predicted, sorted(predicted, reverse=True))
        self.assertEqual([x["rank"] for x in results], [1, 2, 3])
        for x in results:
            self.assertEqual(len(x["block"]), 3)
            self.assertGreater(x["performance"]["predicted"], 0)

    def test_rank_kernel_passes_the_search_space(self):
        blocks = [[32, 4, 1], [64, 2, 2], [256, 1, 1]]
        r = self.client.rank_kernel("K20m", seven_point(), [256, 256, 256], blocks=blocks,
                                    foldings=[[1, 1, 1], [1, 1, 2]])
        self.assertEqual(r["evaluated"], 6)
        got = sorted((tuple(x["block"]), tuple(x["folding"])) for x in r["results"])
        want = sorted((tuple(b), tuple(f)) for b in blocks for f in ([1, 1, 1], [1, 1, 2]))
        self.assertEqual(got, want)

    # -- devices and service -------------------------------------------------

    def test_devices_lists_the_six_builtins(self):
        names = {d["name"] for d in self.client.devices()}
        self.assertEqual(names, BUILTIN_DEVICES)

    def test_device_returns_one_device(self):
        d = self.client.device("K20m")
        self.assertEqual(d["name"], "K20m")
        self.assertGreater(d["dram_bw_gbs"], 0)
        self.assertEqual(d["units"]["dram_bw_gbs"], "GB/s")

    def test_health_and_stats(self):
        h = self.client.health()
        self.assertEqual(h["status"], "ok")
        self.assertIn("model_version", h)
        self.client.devices()
        s = self.client.stats()
        self.assertGreaterEqual(s["requests"]["GET /v1/devices"], 1)
        self.assertIn("cache", s)

    # -- errors --------------------------------------------------------------

    def test_non_affine_expression_raises_unsupported_expression_with_its_path(self):
        kernel = {"fields": [field("A", [100, 100], loads=[["x*y", "y"]])]}
        with self.assertRaises(LaunchrankError) as cm:
            self.client.estimate_kernel("A100-SXM4-40GB", kernel, [100, 100], [32, 4, 1])
        e = cm.exception
        self.assertNotIsInstance(e, LaunchrankConnectionError)
        self.assertEqual(e.code, "unsupported_expression")
        self.assertEqual(e.path, "kernel.fields[0].loads[0][0]")
        self.assertEqual(e.status, 422)
        self.assertIn("x*y", e.message)
        self.assertTrue(str(e).startswith(
            "unsupported_expression at kernel.fields[0].loads[0][0]: "), str(e))

    def test_unknown_device_in_a_request_raises_invalid_request_at_device(self):
        req = self.estimate_request()
        req["device"] = "GTX-9999"
        with self.assertRaises(LaunchrankError) as cm:
            self.client.estimate(req)
        self.assertEqual(cm.exception.code, "invalid_request")
        self.assertEqual(cm.exception.path, "device")
        self.assertEqual(cm.exception.status, 400)

    def test_unknown_device_name_is_404(self):
        with self.assertRaises(LaunchrankError) as cm:
            self.client.device("GTX-9999")
        self.assertEqual(cm.exception.status, 404)
        self.assertEqual(cm.exception.code, "not_found")
        self.assertEqual(cm.exception.path, "")
        self.assertTrue(str(cm.exception).startswith("not_found: "), str(cm.exception))

    def test_unreachable_daemon_raises_connection_error_naming_the_url(self):
        url = "http://127.0.0.1:%d" % free_port()
        with self.assertRaises(LaunchrankConnectionError) as cm:
            Client(url, timeout=5.0).health()
        self.assertIsInstance(cm.exception, LaunchrankError)
        self.assertEqual(cm.exception.code, "unreachable")
        self.assertIn(url, str(cm.exception))

    # -- example and cache ---------------------------------------------------

    def test_example_script_picks_a_block(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [os.path.join(SOURCE_ROOT, "clients", "python")]
            + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        p = subprocess.run([sys.executable, EXAMPLE, "--url", self.daemon.url], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=CLIENT_TIMEOUT_S + 10)
        out = p.stdout.decode("utf-8", "replace")
        self.assertEqual(p.returncode, 0, out)
        self.assertIn("chosen block", out)
        self.assertIn("GLup/s", out)

    def test_cache_survives_a_restart(self):
        first = self.client.estimate(self.estimate_request(block=(64, 2, 2)))
        self.assertIs(first["cached"], False)
        status = self.daemon.stop()
        self.assertEqual(status, 0, self.daemon.output())

        self.daemon = self.start()
        client = Client(self.daemon.url, timeout=CLIENT_TIMEOUT_S)
        again = client.estimate(self.estimate_request(block=(64, 2, 2)))
        self.assertIs(again["cached"], True)
        self.assertEqual(again["performance"], first["performance"])


if __name__ == "__main__":
    sys.exit(lrtests.main(globals()))
