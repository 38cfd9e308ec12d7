#!/usr/bin/env python3
"""
test_backends: the two back ends of launchrank_client run the same cases.

`Client` talks to a real `launchrank serve` (127.0.0.1 port 0, temporary cache), `Local`
runs the same launchrank executable with the request on stdin. Every case of `Cases`
runs against both: typed results, ranking, measure=K, baseline=, progress=, devices,
and the server's errors as the same exception classes (which also subclass the
matching built-ins) with the same status, code and path. Then what only one back end
has: LAUNCHRANK_URL, retries on 503, timeouts and non-JSON answers (against small fake
HTTP servers); the executable found on PATH, missing, failing, hanging (fake
executables); and both back ends giving the same numbers.

    PYTHONPATH=clients/python python3 tests/python/test_backends.py PATH/TO/launchrank
"""

import http.server
import json
import os
import pickle
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from launchrank_client import (Client, Estimate, LaunchrankConnectionError, LaunchrankError,
                               LaunchrankNotFoundError, LaunchrankRequestError,
                               LaunchrankResponseError, LaunchrankServerError,
                               LaunchrankTimeoutError, LaunchrankUnavailableError,
                               LaunchrankUnsupportedError, Local, Ranking, field)
from test_client import BUILTIN_DEVICES, EXAMPLE, SOURCE_ROOT, Daemon, free_port, seven_point

import lrtests  # the command line of the test files here

LAUNCHRANK_BIN = os.environ.get("LAUNCHRANK_BIN", "")
CLIENT_TIMEOUT_S = 60.0
DEVICE = "A100-SXM4-40GB"
DOMAIN = [256, 256, 256]
BLOCKS = [[32, 4, 1], [64, 2, 2], [128, 1, 1], [256, 1, 1]]


def request(**extra):
    """The 7-point stencil on an A100: the request every case starts from."""
    r = {"device": DEVICE, "kernel": seven_point(), "domain": list(DOMAIN)}
    r.update(extra)
    return r


class Cases:
    """Cases every back end must pass; a subclass sets self.backend in setUp."""

    backend = None

    # -- estimate ------------------------------------------------------------

    def test_estimate_returns_a_typed_result_with_the_json_as_raw(self):
        r = self.backend.estimate(request(launch={"block": [32, 4, 2]}))
        self.assertIsInstance(r, Estimate)
        self.assertEqual(r.launch.block, (32, 4, 2))
        self.assertEqual(r.launch.folding, (1, 1, 1))
        self.assertTrue(r.launch.launchable)
        self.assertEqual(r.device, DEVICE)
        self.assertEqual(r.domain, (256, 256, 256))
        self.assertGreater(r.predicted, 0)
        self.assertIn(r.performance.limiter, ("flops", "l1", "l2", "dram", "latency",
                                              "blocks", "stores", "l2_requests",
                                              "l1_requests"))
        self.assertGreater(r.performance.l1_requests, 0)
        self.assertGreater(r.estimate.dram_load, 0)
        self.assertAlmostEqual(r.estimate.dram_bytes, r.estimate.dram_load + r.estimate.dram_store)
        self.assertEqual(set(r.fields), {"src", "dst"})
        self.assertIsInstance(r.raw, dict)
        self.assertEqual(r.raw["performance"]["predicted"], r.predicted)
        # The plain-dict style of the first client keeps working.
        self.assertEqual(r["performance"]["predicted"], r.predicted)
        self.assertIn("units", r)
        json.dumps(r.raw)

    def test_estimate_kernel_builds_the_same_request(self):
        a = self.backend.estimate(request(launch={"block": [64, 2, 2], "folding": [1, 1, 2]}))
        b = self.backend.estimate_kernel(DEVICE, seven_point(), DOMAIN, [64, 2, 2], [1, 1, 2])
        self.assertEqual(a.performance, b.performance)
        self.assertEqual(b.launch.folding, (1, 1, 2))

    # -- rank ----------------------------------------------------------------

    def test_rank_returns_the_best_first_with_ranks(self):
        r = self.backend.rank(request(search={"top": 3}))
        self.assertIsInstance(r, Ranking)
        self.assertEqual([x.rank for x in r.results], [1, 2, 3])
        predicted = [x.predicted for x in r.results]
        self.assertEqual(predicted, sorted(predicted, reverse=True))
        self.assertIs(r.best, r.results[0])
        self.assertGreaterEqual(r.evaluated, 3)
        self.assertIsNone(r.measure)
        self.assertIsNone(r.baseline)
        self.assertEqual(r["results"][0]["rank"], 1)

    def test_rank_kernel_passes_the_search_space_and_lists_what_cannot_run(self):
        blocks = BLOCKS + [[64, 32, 1]]  # 2048 threads: not on an A100
        r = self.backend.rank_kernel(DEVICE, seven_point(), DOMAIN, blocks=blocks,
                                     foldings=[[1, 1, 1], [1, 1, 2]])
        self.assertEqual(r.evaluated, 10)
        self.assertEqual(r.launchable, 8)
        got = sorted((x.block, x.folding) for x in r.results)
        want = sorted((tuple(b), f) for b in BLOCKS for f in ((1, 1, 1), (1, 1, 2)))
        self.assertEqual(got, want)
        self.assertEqual({(x.block, x.folding) for x in r.not_launchable},
                         {((64, 32, 1), (1, 1, 1)), ((64, 32, 1), (1, 1, 2))})
        self.assertIn("2048", r.not_launchable[0].reason)

    def test_rank_kernel_model_warpspeed_is_sent(self):
        r = self.backend.rank_kernel(DEVICE, seven_point(), DOMAIN, blocks=BLOCKS[:1],
                                     model="warpspeed")
        self.assertIsNone(r.results[0].performance.latency)  # v2's limit, absent

    def test_measure_asks_for_measure_top_and_reports_either_timings_or_why_not(self):
        req = request(search={"blocks": BLOCKS, "top": 2})
        r = self.backend.rank(req, measure=1)
        self.assertNotIn("measure", req, "the caller's request was modified")
        self.assertIsNotNone(r.measure)
        self.assertIn(r.measure.status, ("ok", "unavailable"))
        if r.measure.status == "ok":
            self.assertIsNotNone(r.results[0].measured)
            self.assertIsNone(r.results[1].measured)
        else:
            self.assertTrue(r.measure.reason)
            self.assertTrue(all(x.measured is None for x in r.results))

    def test_measure_keeps_the_requests_other_measure_options(self):
        r = self.backend.rank(request(search={"blocks": BLOCKS[:1]},
                                      measure={"repetitions": 2, "flush_l2": False}),
                              measure=1)
        self.assertIsNotNone(r.measure)

    def test_measure_must_be_a_count(self):
        for bad in (-1, 1.5, "3", True):
            with self.assertRaises(ValueError):
                self.backend.rank(request(), measure=bad)

    def test_baseline_in_the_space_gets_its_rank_prediction_and_the_speedup(self):
        r = self.backend.rank_kernel(DEVICE, seven_point(), DOMAIN, blocks=BLOCKS,
                                     baseline={"block": [128, 1, 1], "folding": [1, 1, 1]})
        b = r.baseline
        self.assertEqual((b.block, b.folding), ((128, 1, 1), (1, 1, 1)))
        same = [x for x in r.results if x.block == (128, 1, 1)][0]
        self.assertEqual(b.rank, same.rank)
        self.assertEqual(b.predicted, same.predicted)
        self.assertAlmostEqual(b.speedup, r.best.predicted / same.predicted)
        self.assertGreaterEqual(b.speedup, 1.0)
        self.assertIsInstance(b.estimate, Estimate)

    def test_baseline_outside_the_space_or_top_has_no_rank(self):
        r = self.backend.rank_kernel(DEVICE, seven_point(), DOMAIN, blocks=BLOCKS, top=1,
                                     baseline=[32, 8, 1])
        self.assertIsNone(r.baseline.rank)
        self.assertEqual(r.baseline.folding, (1, 1, 1))
        alone = self.backend.estimate_kernel(DEVICE, seven_point(), DOMAIN, [32, 8, 1])
        self.assertEqual(r.baseline.predicted, alone.predicted)
        self.assertAlmostEqual(r.baseline.speedup, r.best.predicted / alone.predicted)

    def test_baseline_that_cannot_run_fails_before_the_ranking(self):
        stages = []
        with self.assertRaises(LaunchrankRequestError) as cm:
            self.backend.rank(request(search={"blocks": BLOCKS}), baseline=[64, 32, 1],
                              progress=lambda *a: stages.append(a))
        self.assertEqual(cm.exception.code, "not_launchable")
        self.assertEqual(cm.exception.status, 422)
        self.assertEqual(stages, [("baseline", 0, 2)])

    def test_baseline_must_name_a_block(self):
        with self.assertRaises(ValueError):
            self.backend.rank(request(), baseline={"folding": [1, 1, 2]})
        with self.assertRaises(ValueError):
            self.backend.rank(request(), baseline="128x1x1")

    def test_progress_is_reported_per_stage(self):
        stages = []
        self.backend.rank(request(search={"blocks": BLOCKS}), baseline=[128, 1, 1],
                          progress=lambda *a: stages.append(a))
        self.assertEqual(stages, [("baseline", 0, 2), ("rank", 1, 2), ("done", 2, 2)])
        stages.clear()
        self.backend.rank(request(search={"blocks": BLOCKS}),
                          progress=lambda *a: stages.append(a))
        self.assertEqual(stages, [("rank", 0, 1), ("done", 1, 1)])

    # -- devices -------------------------------------------------------------

    def test_devices_lists_the_builtins_typed(self):
        devices = self.backend.devices()
        self.assertEqual({d.name for d in devices}, BUILTIN_DEVICES)
        self.assertEqual({d["name"] for d in devices}, BUILTIN_DEVICES)
        for d in devices:
            self.assertGreater(d.dram_bw_gbs, 0)
            self.assertGreater(d.sm_count, 0)

    def test_device_by_name_ignores_case(self):
        d = self.backend.device("k20m")
        self.assertEqual(d.name, "K20m")
        self.assertEqual(d.raw["units"]["dram_bw_gbs"], "GB/s")

    def test_unknown_device_name_is_not_found_and_a_lookup_error(self):
        for name in ("GTX-9999", "--help"):
            with self.assertRaises(LookupError) as cm:
                self.backend.device(name)
            e = cm.exception
            self.assertIsInstance(e, LaunchrankNotFoundError)
            self.assertEqual((e.status, e.code, e.path), (404, "not_found", ""))

    def test_health_names_the_model_version(self):
        h = self.backend.health()
        self.assertEqual(h.status, "ok")
        self.assertRegex(h.model_version, r"^\d{4}\.\d+")
        self.assertTrue(h.cache)

    # -- errors --------------------------------------------------------------

    def assert_request_error(self, cm, status, code, path):
        e = cm.exception
        self.assertIsInstance(e, LaunchrankRequestError)
        self.assertIsInstance(e, ValueError)
        self.assertNotIsInstance(e, ConnectionError)
        self.assertEqual((e.status, e.code, e.path), (status, code, path))
        self.assertTrue(str(e).startswith("%s at %s: " % (code, path)), str(e))
        again = pickle.loads(pickle.dumps(e))
        self.assertEqual((type(again), str(again)), (type(e), str(e)))

    def test_non_affine_expression_is_422_at_its_path(self):
        kernel = {"fields": [field("A", [100, 100], loads=[["x*y", "y"]])]}
        with self.assertRaises(LaunchrankError) as cm:
            self.backend.estimate_kernel(DEVICE, kernel, [100, 100], [32, 4, 1])
        self.assert_request_error(cm, 422, "unsupported_expression",
                                  "kernel.fields[0].loads[0][0]")
        self.assertIn("x*y", cm.exception.message)

    def test_unknown_device_in_a_request_is_400_at_device(self):
        with self.assertRaises(ValueError) as cm:
            self.backend.estimate(request(device="GTX-9999", launch={"block": [32]}))
        self.assert_request_error(cm, 400, "invalid_request", "device")

    def test_missing_domain_is_400_at_domain(self):
        req = request(launch={"block": [32]})
        del req["domain"]
        with self.assertRaises(LaunchrankRequestError) as cm:
            self.backend.estimate(req)
        self.assert_request_error(cm, 400, "invalid_request", "domain")

    def test_block_too_large_is_not_launchable(self):
        with self.assertRaises(LaunchrankRequestError) as cm:
            self.backend.estimate(request(launch={"block": [64, 32, 1]}))
        self.assert_request_error(cm, 422, "not_launchable", "launch.block")

    def test_too_many_configurations_is_413(self):
        foldings = [[f] for f in (1, 2, 4, 8, 16, 32, 64)] + [[1, f] for f in (2, 4, 8, 16, 32, 64)]
        foldings += [[2, 2], [4, 4], [8, 8], [2, 4], [4, 2]]
        with self.assertRaises(LaunchrankRequestError) as cm:
            self.backend.rank(request(search={"blocks": [[32, 4]] * 300, "foldings": foldings}))
        self.assert_request_error(cm, 413, "limit_exceeded", "search")


# -- the HTTP back end ---------------------------------------------------------------


class DaemonBackend(unittest.TestCase):
    """One daemon for the whole class: the cases only read."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="launchrank-py-http-")
        try:
            cls.daemon = Daemon(LAUNCHRANK_BIN, cls.tmp, os.path.join(cls.tmp, "cache.sqlite"))
        except BaseException:
            shutil.rmtree(cls.tmp, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        cls.daemon.kill()
        shutil.rmtree(cls.tmp, ignore_errors=True)


class HttpCases(Cases, DaemonBackend):
    def setUp(self):
        self.backend = Client(self.daemon.url, timeout=CLIENT_TIMEOUT_S)

    def test_stats_count_the_requests(self):
        self.backend.devices()
        self.assertGreaterEqual(self.backend.stats()["requests"]["GET /v1/devices"], 1)


class LaunchrankUrlTest(DaemonBackend):
    def setUp(self):
        self.saved = os.environ.get("LAUNCHRANK_URL")

    def tearDown(self):
        if self.saved is None:
            os.environ.pop("LAUNCHRANK_URL", None)
        else:
            os.environ["LAUNCHRANK_URL"] = self.saved

    def test_launchrank_url_is_the_default_url(self):
        os.environ["LAUNCHRANK_URL"] = self.daemon.url + "/"
        client = Client()
        self.assertEqual(client.url, self.daemon.url)
        self.assertEqual(client.health().status, "ok")

    def test_an_explicit_url_wins_and_an_empty_variable_is_unset(self):
        os.environ["LAUNCHRANK_URL"] = "http://127.0.0.1:1"
        self.assertEqual(Client(self.daemon.url).url, self.daemon.url)
        os.environ["LAUNCHRANK_URL"] = ""
        self.assertEqual(Client().url, "http://127.0.0.1:8080")


class FakeDaemon:
    """An HTTP server on 127.0.0.1:0 answering from a list of (status, headers, body,
    delay_s); the last answer repeats. Counts the requests it got."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.requests = 0
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                fake.requests += 1
                status, headers, body, delay = fake.answers[min(fake.requests, len(fake.answers)) - 1]
                time.sleep(delay)
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up first (the timeout case)

            do_POST = do_GET

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


BUSY = (503, {"Content-Type": "application/json"},
        b'{"error": {"code": "unavailable", "message": "the queue is full", "path": ""}}', 0)
HEALTHY = (200, {"Content-Type": "application/json"},
           b'{"status": "ok", "cache": "ok", "model_version": "2026.11-6"}', 0)


class HttpOnlyTest(unittest.TestCase):
    def fake(self, answers):
        d = FakeDaemon(answers)
        self.addCleanup(d.close)
        return d

    def test_503_is_retried_with_backoff_until_it_succeeds(self):
        d = self.fake([BUSY, BUSY, HEALTHY])
        t0 = time.monotonic()
        h = Client(d.url, retries=3, backoff=0.05).health()
        self.assertEqual(h.status, "ok")
        self.assertEqual(d.requests, 3)
        self.assertGreaterEqual(time.monotonic() - t0, 0.05 + 0.1)

    def test_503_is_raised_when_the_retries_are_spent(self):
        d = self.fake([BUSY])
        with self.assertRaises(RuntimeError) as cm:
            Client(d.url, retries=2, backoff=0.01).health()
        self.assertIsInstance(cm.exception, LaunchrankUnavailableError)
        self.assertEqual((cm.exception.status, cm.exception.code), (503, "unavailable"))
        self.assertEqual(d.requests, 3)

    def test_retry_after_sets_the_wait(self):
        busy = (503, {"Retry-After": "0.3"}, BUSY[2], 0)
        d = self.fake([busy, HEALTHY])
        t0 = time.monotonic()
        Client(d.url, backoff=5.0).health()
        self.assertGreaterEqual(time.monotonic() - t0, 0.3)
        self.assertLess(time.monotonic() - t0, 4.0)

    def test_backoff_doubles_up_to_its_cap(self):
        c = Client("http://127.0.0.1:1", backoff=0.5, max_backoff=8.0)
        self.assertEqual([c._delay(i, None) for i in range(6)], [0.5, 1, 2, 4, 8, 8])
        self.assertEqual(c._delay(0, 2.0), 2.0)
        self.assertEqual(c._delay(0, 100.0), 8.0)

    def test_4xx_is_not_retried(self):
        bad = (400, {}, b'{"error": {"code": "invalid_json", "message": "no", "path": ""}}', 0)
        d = self.fake([bad, HEALTHY])
        with self.assertRaises(LaunchrankRequestError):
            Client(d.url, backoff=0.01).health()
        self.assertEqual(d.requests, 1)

    def test_a_reply_that_is_not_json_is_a_response_error(self):
        d = self.fake([(200, {"Content-Type": "text/html"}, b"<html>proxy</html>", 0)])
        with self.assertRaises(LaunchrankResponseError) as cm:
            Client(d.url).health()
        self.assertEqual(cm.exception.code, "invalid_response")

    def test_an_error_page_that_is_not_json_keeps_its_text(self):
        d = self.fake([(502, {}, b"Bad Gateway from the proxy", 0)])
        with self.assertRaises(LaunchrankServerError) as cm:
            Client(d.url).health()
        self.assertEqual((cm.exception.status, cm.exception.code), (502, "http_502"))
        self.assertIn("Bad Gateway", cm.exception.message)

    def test_no_reply_in_time_is_a_timeout_error(self):
        d = self.fake([(200, {}, HEALTHY[2], 3.0)])
        with self.assertRaises(TimeoutError) as cm:
            Client(d.url, timeout=0.3).health()
        self.assertIsInstance(cm.exception, LaunchrankTimeoutError)
        self.assertIsInstance(cm.exception, ConnectionError)
        self.assertEqual(cm.exception.code, "timeout")

    def test_unreachable_daemon_is_a_connection_error_naming_the_url(self):
        url = "http://127.0.0.1:%d" % free_port()
        with self.assertRaises(ConnectionError) as cm:
            Client(url, timeout=5.0).estimate(request(launch={"block": [32]}))
        e = cm.exception
        self.assertIsInstance(e, LaunchrankConnectionError)
        self.assertIsInstance(e, OSError)
        self.assertEqual((e.status, e.code), (0, "unreachable"))
        self.assertIn(url, str(e))


# -- the local back end --------------------------------------------------------------


class LocalCases(Cases, unittest.TestCase):
    def setUp(self):
        self.backend = Local(LAUNCHRANK_BIN, timeout=CLIENT_TIMEOUT_S)

    def test_stats_is_unsupported(self):
        with self.assertRaises(NotImplementedError) as cm:
            self.backend.stats()
        self.assertIsInstance(cm.exception, LaunchrankUnsupportedError)


class LocalOnlyTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="launchrank-py-local-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def script(self, name, body):
        """An executable shell script standing in for launchrank."""
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, stat.S_IRWXU)
        return path

    def test_the_executable_is_found_on_path(self):
        bindir = os.path.join(self.tmp, "bin")
        os.mkdir(bindir)
        os.symlink(LAUNCHRANK_BIN, os.path.join(bindir, "launchrank"))
        saved = os.environ["PATH"]
        os.environ["PATH"] = bindir + os.pathsep + saved
        try:
            local = Local()
        finally:
            os.environ["PATH"] = saved
        self.assertEqual(local.executable, os.path.join(bindir, "launchrank"))
        self.assertEqual(local.device("K20m").name, "K20m")

    def test_a_missing_executable_is_a_connection_error_with_a_hint(self):
        saved = os.environ["PATH"]
        os.environ["PATH"] = self.tmp
        try:
            with self.assertRaises(ConnectionError) as cm:
                Local()
        finally:
            os.environ["PATH"] = saved
        self.assertIsInstance(cm.exception, LaunchrankConnectionError)
        self.assertIn("not found on PATH", str(cm.exception))
        self.assertIn("Local(executable=", str(cm.exception))
        with self.assertRaises(LaunchrankConnectionError) as cm:
            Local(os.path.join(self.tmp, "nope", "launchrank"))
        self.assertIn("no executable file", str(cm.exception))

    def test_a_hanging_executable_times_out(self):
        local = Local(self.script("slow", "sleep 10"), timeout=0.5)
        t0 = time.monotonic()
        with self.assertRaises(TimeoutError) as cm:
            local.devices()
        self.assertLess(time.monotonic() - t0, 5.0)
        self.assertIsInstance(cm.exception, LaunchrankTimeoutError)
        self.assertIn("0.5 s", str(cm.exception))

    def test_exit_1_is_a_server_error_with_what_it_said(self):
        local = Local(self.script("fails", "echo 'cannot open the cache' >&2; exit 1"))
        with self.assertRaises(RuntimeError) as cm:
            local.estimate(request(launch={"block": [32]}))
        e = cm.exception
        self.assertIsInstance(e, LaunchrankServerError)
        self.assertEqual(e.code, "failed")
        self.assertIn("cannot open the cache", e.message)
        self.assertIn("exited with status 1", e.message)

    def test_exit_2_without_an_error_object_is_a_request_error(self):
        local = Local(self.script("usage", "echo 'unknown option' >&2; exit 2"))
        with self.assertRaises(LaunchrankRequestError) as cm:
            local.devices()
        self.assertEqual(cm.exception.code, "invalid_usage")

    def test_an_error_object_after_warnings_is_found(self):
        err = '{"error":{"code":"limit_exceeded","message":"too big","path":"kernel"}}'
        local = Local(self.script("warns", "echo 'warning: no cache' >&2; echo '%s' >&2; exit 2"
                                  % err))
        with self.assertRaises(LaunchrankRequestError) as cm:
            local.rank(request())
        self.assertEqual((cm.exception.status, cm.exception.code, cm.exception.path),
                         (413, "limit_exceeded", "kernel"))

    def test_a_crash_says_which_signal(self):
        local = Local(self.script("crash", "kill -SEGV $$"))
        with self.assertRaises(LaunchrankServerError) as cm:
            local.devices()
        self.assertEqual(cm.exception.code, "crashed")
        self.assertIn("signal 11", cm.exception.message)

    def test_output_that_is_not_json_is_a_response_error(self):
        local = Local(self.script("chatty", "echo hello"))
        with self.assertRaises(LaunchrankResponseError):
            local.devices()

    def test_example_script_runs_without_a_daemon(self):
        env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE_ROOT, "clients", "python"))
        p = subprocess.run([sys.executable, EXAMPLE, "--local", LAUNCHRANK_BIN], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=CLIENT_TIMEOUT_S)
        out = p.stdout.decode("utf-8", "replace")
        self.assertEqual(p.returncode, 0, out)
        self.assertIn("chosen block", out)
        self.assertRegex(out, r"baseline 1024x1x1: [0-9.]+ GLup/s predicted, the best is "
                              r"[0-9.]+x faster")

    def test_db_caches_between_calls(self):
        local = Local(LAUNCHRANK_BIN, db=os.path.join(self.tmp, "cache.sqlite"), threads=2)
        self.assertEqual(local.health().cache, "ok")
        first = local.estimate(request(launch={"block": [64, 2, 2]}))
        again = local.estimate(request(launch={"block": [64, 2, 2]}))
        self.assertFalse(first.cached)
        self.assertTrue(again.cached)
        self.assertEqual(first.performance, again.performance)
        self.assertEqual(local.rank(request(search={"blocks": BLOCKS})).cached_results, 1)


class ReadmeExamplesTest(DaemonBackend):
    """The ```python blocks of clients/python/README.md run as written, with
    LAUNCHRANK_URL naming the test's daemon and launchrank on PATH."""

    def blocks(self):
        with open(os.path.join(SOURCE_ROOT, "clients", "python", "README.md")) as f:
            return re.findall(r"```python\n(.*?)```", f.read(), re.S)

    def run_block(self, code):
        bindir = os.path.join(self.tmp, "bin")
        os.makedirs(bindir, exist_ok=True)
        if not os.path.exists(os.path.join(bindir, "launchrank")):
            os.symlink(LAUNCHRANK_BIN, os.path.join(bindir, "launchrank"))
        env = dict(os.environ, LAUNCHRANK_URL=self.daemon.url,
                   PATH=bindir + os.pathsep + os.environ["PATH"],
                   PYTHONPATH=os.path.join(SOURCE_ROOT, "clients", "python"))
        p = subprocess.run([sys.executable, "-c", code], env=env, cwd=self.tmp,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=CLIENT_TIMEOUT_S)
        out = p.stdout.decode("utf-8", "replace")
        self.assertEqual(p.returncode, 0, code + "\n---\n" + out)
        return out

    def test_the_readme_examples_run(self):
        usage, options, decision, warned, errors_ = self.blocks()
        out = self.run_block(usage)
        self.assertRegex(out, r"GLup/s, limited by \w+")
        self.assertRegex(out, r"faster than 1024x1x1")
        local = usage.replace("# backend = Local()", "backend = Local()")
        self.assertNotEqual(local, usage)
        self.assertEqual(self.run_block(local), out)
        out = self.run_block(options)
        self.assertIn("[0/2] baseline", out)
        self.assertIn("[2/2] done", out)
        self.assertRegex(out, r"(not measured: |measured )")
        out = self.run_block(decision)
        self.assertRegex(out, r"^\d+ of \d+ configurations tie within 6\.7 % of the best\n")
        self.assertRegex(out, r"\nuse \(\d+, \d+, 1\) \(\d, \d, 1\) because one of \d+ "
                              r"configurations predicted within 6\.7 %")
        self.assertRegex(out, r"\nbaseline: (keep|switch) \(rank \d+, gain [0-9.]+ %\) "
                              r"(keep the baseline 16x16x1|switch: )")
        self.assertRegex(out, r"\n1 \(\d+, \d+, 1\) \(\d, \d, 1\) occupancy \d+ %, "
                              r"idle threads [0-9.]+ % \[\]\n")
        local = decision.replace("backend = Client()", "backend = Local()")
        self.assertNotEqual(local, decision)
        self.assertEqual(self.run_block(local), out)
        # issue 46, item 2: the warning raised under the "error" filter, then as data
        out = self.run_block(warned)
        self.assertRegex(out, r"^domain_dimensions domain the domain has 64 points in z, "
                              r"but no access of the kernel uses z: .*send domain "
                              r"\[15000, 15000, 1\], or write the accesses in z\n"
                              r"\['domain_dimensions'\]\n$")
        out = self.run_block(errors_)
        self.assertIn("422 unsupported_expression kernel.fields[0].loads[0][0]", out)


class BackEndsAgreeTest(DaemonBackend):
    def test_both_back_ends_predict_the_same_numbers(self):
        http_, local = Client(self.daemon.url), Local(LAUNCHRANK_BIN)
        req = request(launch={"block": [32, 8, 1], "folding": [1, 1, 2]},
                      search={"blocks": BLOCKS, "foldings": [[1, 1, 1], [1, 2, 1]]})
        a, b = http_.estimate(req), local.estimate(req)
        self.assertEqual(a.raw["estimate"], b.raw["estimate"])
        self.assertEqual(a.raw["performance"], b.raw["performance"])
        ra, rb = http_.rank(req), local.rank(req)
        strip = lambda r: [{k: v for k, v in x.items() if k != "cached"} for x in r.raw["results"]]
        self.assertEqual(strip(ra), strip(rb))
        self.assertEqual([d.raw for d in http_.devices()], [d.raw for d in local.devices()])
        self.assertEqual(http_.health().model_version, local.health().model_version)


if __name__ == "__main__":
    sys.exit(lrtests.main(globals()))
