#!/usr/bin/env python3
"""
test_decision: the typed decision, warnings, occupancy and idle threads, and
``rank(..., baseline=...)`` sent as ``search.baseline``, through both back ends.

`Client` talks to a real `launchrank serve` (127.0.0.1 port 0, temporary cache), `Local`
runs the same launchrank executable; every case of `Cases` runs against both, and
`BackEndsAgreeTest` checks that they answer the same decision and warnings. Expected
values come from docs/api.md ("The decision", "Warnings") and from the definitions there
(occupancy = blocks_per_sm * threads_per_block / max_threads_per_sm, idle threads =
launched threads beyond ceil(n / f) per axis), not from the answers themselves.

    PYTHONPATH=clients/python python3 tests/python/test_decision.py PATH/TO/launchrank
"""

import math
import os
import shutil
import sys
import tempfile
import unittest

from launchrank_client import (BaselineAdvice, Choice, Client, Decision, Local,
                               PlausibilityWarning, Ranking, field)
from test_client import Daemon, seven_point

import lrtests  # the command line of the test files here

LAUNCHRANK_BIN = os.environ.get("LAUNCHRANK_BIN", "")
CLIENT_TIMEOUT_S = 60.0
DEVICE = "A100-SXM4-40GB"
DOMAIN = [256, 256, 256]
BLOCKS = [[32, 4, 1], [64, 2, 2], [128, 1, 1], [256, 1, 1]]


def five_point(n):
    """A 2-D 5-point stencil on doubles over an n x n interior (one halo layer)."""
    c = ["x+1", "y+1"]
    return {"fields": [field("u", [n + 2, n + 2], loads=[c, ["x", "y+1"], ["x+2", "y+1"],
                                                         ["x+1", "y"], ["x+1", "y+2"]]),
                       field("v", [n + 2, n + 2], stores=[c])],
            "flops": 5,
            # sent, so that only the warnings these tests are about come back (without
            # it every answer also warns registers_assumed, issue 43)
            "registers": 32}


def thread_load():
    """A 2-D kernel with one load written in thread variables: a folding larger than 1
    issues it once per thread, not per lattice point (warning load_not_folded)."""
    return {"fields": [field("u", [1026, 1026], loads=[["x+1", "y+1"], ["x", "y+1"],
                                                       ["tidx+1", "tidy"]]),
                       field("v", [1026, 1026], stores=[["x+1", "y+1"]])],
            "flops": 3, "registers": 32}


def same_config(choice, result):
    """A decision entry names the ranked result of its rank, with its numbers."""
    return (choice.block, choice.folding, choice.predicted) == \
        (result.block, result.folding, result.predicted)


class Cases:
    """Cases every back end must pass; a subclass sets self.backend in setUp."""

    backend = None

    # -- occupancy and idle threads ------------------------------------------

    def test_results_carry_occupancy_and_idle_threads_as_docs_api_defines_them(self):
        n = 100  # 100 x 100: every block below sticks out of the domain in x
        blocks = [[32, 1, 1], [64, 1, 1], [32, 4, 1], [128, 2, 1]]
        r = self.backend.rank_kernel(DEVICE, five_point(n), [n, n], blocks=blocks,
                                     foldings=[[1, 1, 1], [1, 2, 1]])
        self.assertEqual(len(r.results), 8)
        per_sm = self.backend.device(DEVICE).raw["max_threads_per_sm"]
        self.assertEqual(per_sm, 2048)
        for x in r.results:
            want_occ = x.launch.blocks_per_sm * x.launch.threads_per_block / per_sm
            launched = 1
            working = 1
            for d, extent in enumerate((n, n, 1)):
                launched *= x.launch.grid[d] * x.block[d]
                working *= math.ceil(extent / x.folding[d])
            want_idle = 1 - working / launched
            self.assertAlmostEqual(x.occupancy, want_occ, places=5, msg=str(x.block))
            self.assertAlmostEqual(x.idle_threads, want_idle, places=5, msg=str(x.block))
            self.assertEqual(x.occupancy, x.raw["occupancy"])
            self.assertEqual(x.warnings, [])
        by = {(x.block, x.folding): x for x in r.results}
        # 100 points in x: a 64- or 128-wide block launches 128 threads per row (28
        # idle), a 32-wide one 128 as well; in y folding 2 needs 50 rows: 128 x 2 blocks
        # launch 50 (none idle), at folding 1 also 100 of 100.
        self.assertAlmostEqual(by[((64, 1, 1), (1, 1, 1))].idle_threads, 28 / 128, places=5)
        self.assertAlmostEqual(by[((128, 2, 1), (1, 2, 1))].idle_threads, 28 / 128, places=5)
        # A 32-thread block: at most 32 blocks per SM on an A100, half its thread slots.
        self.assertAlmostEqual(by[((32, 1, 1), (1, 1, 1))].occupancy, 0.5, places=5)
        self.assertAlmostEqual(by[((32, 4, 1), (1, 1, 1))].occupancy, 1.0, places=5)
        # The tie group repeats both figures for its members.
        for c in r.decision.tie_group:
            x = r.results[c.rank - 1]
            self.assertTrue(same_config(c, x))
            self.assertEqual((c.occupancy, c.idle_threads), (x.occupancy, x.idle_threads))

    # -- the decision --------------------------------------------------------

    def test_decision_has_best_median_worst_tie_group_and_a_recommendation(self):
        # registers sent: no registers_assumed among r.warnings (issue 43)
        r = self.backend.rank_kernel(DEVICE, dict(seven_point(), registers=32), DOMAIN,
                                     blocks=BLOCKS, foldings=[[1, 1, 1], [1, 1, 2]])
        d = r.decision
        self.assertIsInstance(d, Decision)
        self.assertEqual(d.precision, self.backend.device(DEVICE).raw["rank_precision"])
        self.assertEqual(d.considered, 8)  # no configuration has warnings
        self.assertEqual(r.warnings, [])
        self.assertTrue(same_config(d.best, r.results[0]))
        self.assertEqual(d.best.rank, 1)
        self.assertEqual(d.median.rank, 4)  # the middle of 8: (8 - 1) // 2 + 1
        self.assertTrue(same_config(d.median, r.results[3]))
        self.assertEqual(d.worst.rank, 8)
        self.assertTrue(same_config(d.worst, r.results[7]))
        self.assertIsNone(d.best.occupancy)  # best/median/worst carry no occupancy
        # The tie group: ranks 1.. in order, exactly those within precision of the best.
        threshold = (1 - d.precision) * d.best.predicted
        self.assertGreaterEqual(len(d.tie_group), 1)
        self.assertEqual([c.rank for c in d.tie_group], list(range(1, len(d.tie_group) + 1)))
        self.assertEqual(len(d.tie_group), sum(x.predicted >= threshold for x in r.results))
        for c in d.tie_group:
            self.assertIsInstance(c, Choice)
            self.assertIsNone(c.reason)
        # The recommendation is a member of the group, with its one-line reason.
        rec = r.recommended
        self.assertIs(rec, d.recommended)
        self.assertIn(rec.rank, [c.rank for c in d.tie_group])
        self.assertTrue(same_config(rec, r.results[rec.rank - 1]))
        self.assertEqual(rec.block[0] % 32, 0)
        self.assertIn("one of %d configurations predicted within %.1f %% of the best"
                      % (len(d.tie_group), 100 * d.precision), rec.reason)
        self.assertNotIn("\n", rec.reason)
        self.assertIsNone(d.baseline)  # no search.baseline
        self.assertIsNone(d.note)
        self.assertEqual(d.raw, r.raw["decision"])
        self.assertEqual(d["considered"], 8)  # dict-style access as for every result

    def test_decision_recommends_the_full_block_over_the_best_half_empty_one(self):
        # docs/api.md's example: 42 configurations tie on an A100; the best predicted,
        # 32 x 1 x 1, fills half an SM's thread slots, so 32 x 32 x 1 is recommended.
        kernel = {"fields": [
            {"name": "A", "dims": [15002, 15002], "base_offset_bytes": 8,
             "loads": [["x", "y"], ["x+1", "y"], ["x-1", "y"], ["x", "y+1"], ["x", "y-1"]],
             "stores": []},
            {"name": "B", "dims": [15002, 15002], "base_offset_bytes": 8,
             "loads": [], "stores": [["x", "y"]]}], "flops": 5, "registers": 32}
        r = self.backend.rank({"model": "warpspeed", "device": "A100-SXM4-80GB",
                               "domain": [15000, 15000], "kernel": kernel,
                               "search": {"top": 3}})
        d = r.decision
        self.assertEqual(len(r.results), 3)
        self.assertEqual((d.considered, len(d.tie_group)), (42, 42))
        first = d.tie_group[0]
        self.assertEqual((first.rank, first.block, first.folding), (1, (32, 1, 1), (1, 1, 1)))
        self.assertEqual(first.occupancy, 0.5)
        self.assertAlmostEqual(first.idle_threads, 0.000533, places=6)
        self.assertEqual((d.recommended.rank, d.recommended.block, d.recommended.folding),
                         (2, (32, 32, 1), (1, 1, 1)))
        self.assertEqual(d.recommended.occupancy, 1.0)
        self.assertEqual(r.results[1].block, (32, 32, 1))
        self.assertEqual(d.worst.rank, 42)  # ranks beyond top=3 are named all the same

    # -- baseline= is sent as search.baseline --------------------------------

    def test_baseline_outside_the_space_is_ranked_with_it_and_judged(self):
        req = {"device": DEVICE, "kernel": seven_point(), "domain": list(DOMAIN),
               "search": {"blocks": BLOCKS, "top": 1}}
        without = self.backend.rank(req)
        r = self.backend.rank(req, baseline=[32, 1, 1])
        self.assertEqual(req["search"], {"blocks": BLOCKS, "top": 1},
                         "the caller's request was modified")
        self.assertEqual(without.evaluated, 4)
        self.assertEqual(r.evaluated, 5)  # launchrank added the baseline to the space
        self.assertIsNone(without.decision.baseline)
        b = r.decision.baseline
        self.assertIsInstance(b, BaselineAdvice)
        self.assertEqual((b.block, b.folding), ((32, 1, 1), (1, 1, 1)))
        self.assertEqual(b.rank, 5)  # its place in the whole ranking, beyond top=1
        self.assertIsNone(r.baseline.rank)  # not among the returned results
        self.assertEqual(b.predicted, r.baseline.predicted)  # the client's estimate agrees
        rec = r.decision.recommended
        self.assertAlmostEqual(b.gain, rec.predicted / b.predicted - 1, places=6)
        self.assertGreater(b.gain, r.decision.precision)
        self.assertEqual(b.advice, "switch")
        self.assertFalse(b.keep)
        self.assertTrue(b.reason.startswith("switch: the recommendation is predicted "
                                            "%.1f %% faster than the baseline 32x1x1"
                                            % (100 * b.gain)), b.reason)

    def test_baseline_in_the_tie_group_is_kept(self):
        r = self.backend.rank_kernel(DEVICE, seven_point(), DOMAIN, blocks=BLOCKS,
                                     baseline={"block": [128, 1, 1]})
        self.assertEqual(r.evaluated, 4)  # already in the space: nothing added
        b = r.decision.baseline
        self.assertEqual(b.rank, r.baseline.rank)
        self.assertEqual(b.predicted, r.results[b.rank - 1].predicted)
        self.assertIn(b.rank, [c.rank for c in r.decision.tie_group])
        self.assertEqual(b.advice, "keep")
        self.assertTrue(b.keep)
        self.assertLessEqual(b.gain, r.decision.precision)
        self.assertTrue(b.reason.startswith("keep the baseline 128x1x1, folding 1x1x1"),
                        b.reason)

    def test_baseline_keyword_replaces_the_requests_search_baseline(self):
        req = {"device": DEVICE, "kernel": seven_point(), "domain": list(DOMAIN),
               "search": {"blocks": BLOCKS, "baseline": {"block": [32, 1, 1]}}}
        r = self.backend.rank(req, baseline={"block": [64, 2, 2], "folding": [1, 1, 2]})
        self.assertEqual((r.decision.baseline.block, r.decision.baseline.folding),
                         ((64, 2, 2), (1, 1, 2)))
        self.assertEqual(r.evaluated, 5)  # 64x2x2 folded 1x1x2 added, 32x1x1 not
        self.assertEqual(req["search"]["baseline"], {"block": [32, 1, 1]})

    def test_a_search_baseline_that_cannot_run_is_judged_with_nulls(self):
        # Written into the request itself (baseline= would fail fast instead).
        r = self.backend.rank({"device": DEVICE, "kernel": seven_point(),
                               "domain": list(DOMAIN),
                               "search": {"blocks": BLOCKS,
                                          "baseline": {"block": [64, 32, 1]}}})
        self.assertIsNone(r.baseline)  # the client made no estimate of its own
        b = r.decision.baseline
        self.assertEqual(b.block, (64, 32, 1))
        self.assertEqual((b.rank, b.predicted, b.gain), (None, None, None))
        self.assertEqual(b.advice, "switch")
        self.assertIn("cannot run", b.reason)
        self.assertEqual((r.evaluated, r.launchable), (5, 4))
        self.assertEqual([x.block for x in r.not_launchable], [(64, 32, 1)])

    # -- warnings ------------------------------------------------------------

    def test_estimate_warns_of_a_field_smaller_than_the_domain(self):
        # docs/api.md's example: a 100 x 100 coefficient read over 8190 x 8190.
        kernel = {"flops": 2, "registers": 32, "fields": [
            {"name": "c", "dims": [100, 100], "loads": [["x", "y"]]},
            {"name": "u", "dims": [8192, 8192],
             "loads": [["x+1", "y+1"], ["x", "y+1"], ["x+2", "y+1"]]},
            {"name": "v", "dims": [8192, 8192], "stores": [["x+1", "y+1"]]}]}
        e = self.backend.estimate_kernel("H100-SXM5-80GB", kernel, [8190, 8190], [128, 2, 1])
        self.assertEqual([(w.code, w.path) for w in e.warnings],
                         [("access_outside_field", "kernel.fields[0].loads[0][0]"),
                          ("access_outside_field", "kernel.fields[0].loads[0][1]")])
        w = e.warnings[0]
        self.assertIsInstance(w, PlausibilityWarning)
        self.assertIn("field 'c' has 100 elements in dimension 0", w.message)
        self.assertEqual(w.raw, e.raw["warnings"][0])
        self.assertEqual(w["code"], "access_outside_field")
        ok = self.backend.estimate_kernel(DEVICE, dict(seven_point(), registers=32), DOMAIN,
                                          [32, 4, 2])
        self.assertEqual(ok.warnings, [])

    def test_configurations_with_warnings_are_left_out_of_the_decision(self):
        r = self.backend.rank_kernel(DEVICE, thread_load(), [1024, 1024],
                                     blocks=[[32, 4, 1], [128, 1, 1], [32, 1, 1]],
                                     foldings=[[1, 1, 1], [1, 2, 1]])
        self.assertEqual(r.launchable, 6)
        for x in r.results:
            codes = [w.code for w in x.warnings]
            self.assertEqual(codes, ["load_not_folded"] if x.folding == (1, 2, 1) else [],
                             (x.block, x.folding))
            if codes:
                self.assertEqual(x.warnings[0].path, "kernel.fields[0].loads[2]")
        self.assertEqual([w.code for w in r.warnings], ["configurations_with_warnings"])
        self.assertEqual(r.warnings[0].path, "results")
        self.assertTrue(r.warnings[0].message.startswith("3 of the 6 ranked configurations"),
                        r.warnings[0].message)
        d = r.decision
        self.assertEqual(d.considered, 3)
        for c in [d.best, d.median, d.worst, d.recommended] + d.tie_group:
            self.assertEqual(c.folding, (1, 1, 1))
        self.assertEqual(d.worst.block, (32, 1, 1))  # half-empty SMs: slowest unwarned
        self.assertEqual(d.recommended.folding, (1, 1, 1))

    def test_no_recommendation_when_every_configuration_has_warnings(self):
        base = {"block": [32, 4, 1], "folding": [1, 2, 1]}
        r = self.backend.rank_kernel(DEVICE, thread_load(), [1024, 1024],
                                     blocks=[[32, 4, 1], [128, 1, 1]], foldings=[[1, 2, 1]],
                                     baseline=base)
        self.assertTrue(all(x.warnings for x in r.results))
        d = r.decision
        self.assertEqual(d.considered, 2)  # all of them, since none is without
        self.assertIsNone(d.recommended)
        self.assertIsNone(r.recommended)
        self.assertIn("every configuration has plausibility warnings", d.note)
        self.assertIsNone(d.baseline)  # nothing to judge the baseline against
        # The client's own estimate of the baseline carries the same warning.
        self.assertEqual([w.code for w in r.baseline.estimate.warnings], ["load_not_folded"])


# -- the two back ends ---------------------------------------------------------------


class DaemonBackend(unittest.TestCase):
    """One daemon for the whole class: the cases only read."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="launchrank-py-decision-")
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


class LocalCases(Cases, unittest.TestCase):
    def setUp(self):
        self.backend = Local(LAUNCHRANK_BIN, timeout=CLIENT_TIMEOUT_S)


class BackEndsAgreeTest(DaemonBackend):
    def test_both_back_ends_answer_the_same_decision_and_warnings(self):
        http_, local = Client(self.daemon.url), Local(LAUNCHRANK_BIN)
        req = {"device": DEVICE, "kernel": thread_load(), "domain": [1024, 1024],
               "search": {"blocks": BLOCKS, "foldings": [[1, 1, 1], [1, 2, 1]]}}
        ra, rb = http_.rank(req, baseline=[32, 8, 1]), local.rank(req, baseline=[32, 8, 1])
        self.assertIsInstance(ra, Ranking)
        self.assertEqual(ra.raw["decision"], rb.raw["decision"])
        self.assertEqual(ra.decision.baseline.block, (32, 8, 1))
        self.assertEqual(ra.raw["warnings"], rb.raw["warnings"])
        self.assertEqual([(x.occupancy, x.idle_threads, x.warnings) for x in ra.results],
                         [(x.occupancy, x.idle_threads, x.warnings) for x in rb.results])
        self.assertTrue(any(x.warnings for x in ra.results))


if __name__ == "__main__":
    sys.exit(lrtests.main(globals()))
