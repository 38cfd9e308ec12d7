#!/usr/bin/env python3
"""
test_progress: the Python client's view of issue 12, item 4: ``Client.rank(...,
progress=...)`` reports the daemon's progress lines as ("configurations", done, total)
and returns the same Ranking as without progress; a ranking past the daemon's time
limit comes back with a typed ``Ranking.incomplete`` (and ``decision.incomplete``).

    PYTHONPATH=clients/python python3 tests/python/test_progress.py PATH/TO/launchrank
"""

import json
import os
import sys
import time
import unittest

from launchrank_client import Client, Incomplete, Ranking

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schema"))
from lrdaemon import Daemon  # noqa: E402

LAUNCHRANK_BIN = os.environ.get("LAUNCHRANK_BIN", "")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def big_request(foldings, **search):
    """The 3-D 25-point reference stencil over the default blocks and these foldings."""
    with open(os.path.join(ROOT, "tests", "data", "ref3_3d25pt_a100.json")) as f:
        req = json.load(f)
    req.pop("launch")
    req["search"] = dict(search, foldings=foldings)
    return req


class ProgressTest(unittest.TestCase):
    def test_progress_reports_configurations_and_the_ranking_is_unchanged(self):
        # 56 blocks x foldings 1 and 2 in z: 1 to 9 s (release to ASan build), so at
        # least one progress line once it takes over 1 s.
        req = big_request([[1, 1, 1], [1, 1, 2]])
        with Daemon(LAUNCHRANK_BIN, cache=False) as d:
            client = Client(d.base, timeout=120)
            calls = []
            t0 = time.monotonic()
            streamed = client.rank(req, progress=lambda *a: calls.append(a))
            took = time.monotonic() - t0
            plain = client.rank(req)
        self.assertEqual(streamed.raw, plain.raw)
        self.assertIsInstance(streamed, Ranking)
        self.assertIsNone(streamed.incomplete)
        self.assertIsNone(streamed.decision.incomplete)
        stages = [c for c in calls if c[0] != "configurations"]
        self.assertEqual(stages, [("rank", 0, 1), ("done", 1, 1)])
        configs = [c for c in calls if c[0] == "configurations"]
        if took > 1.0:
            self.assertGreaterEqual(len(configs), 1, "%.2f s without progress" % took)
        for _, done, total in configs:
            self.assertEqual(total, 112)
            self.assertTrue(1 <= done <= 112)
        self.assertEqual([c[1] for c in configs], sorted(c[1] for c in configs))
        # "configurations" calls come between the "rank" stage and "done"
        self.assertEqual(calls[0][0], "rank")
        self.assertEqual(calls[-1][0], "done")

    def test_a_ranking_past_the_time_limit_is_typed_incomplete(self):
        # Foldings 8 and 16 in z over every power-of-two bx (460 configurations): far
        # past a 1 s limit unless a configuration took under 4 ms on two threads.
        req = big_request([[1, 1, 8], [1, 1, 16]], warp_multiple_bx=False)
        with Daemon(LAUNCHRANK_BIN, cache=False, extra_args=["--time-limit", "1"]) as d:
            calls = []
            r = Client(d.base, timeout=120).rank(req, progress=lambda *a: calls.append(a))
        inc = r.incomplete
        self.assertIsInstance(inc, Incomplete)
        self.assertEqual(inc.reason, "time_limit")
        self.assertEqual(inc.of, r.evaluated)
        self.assertGreater(inc.of, 400)
        self.assertTrue(1 <= inc.evaluated < inc.of, inc.evaluated)
        self.assertEqual(inc.time_limit, 1)
        self.assertEqual(len(r.results) + len(r.not_launchable), inc.evaluated)
        self.assertIn("%d of %d" % (inc.evaluated, inc.of), r.decision.incomplete)
        self.assertIn("time limit", inc.message)
        self.assertEqual(inc.raw, r.raw["incomplete"])


if __name__ == "__main__":
    if len(sys.argv) > 1:
        LAUNCHRANK_BIN = sys.argv.pop(1)
    if not LAUNCHRANK_BIN:
        sys.exit("usage: test_progress.py PATH/TO/launchrank")
    unittest.main()
