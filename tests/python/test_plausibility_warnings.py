#!/usr/bin/env python3
"""
test_plausibility_warnings: issue 46, item 2. An answer's plausibility warnings reach a
person who reads only ``.predicted``: ``estimate`` and ``rank`` emit each of them as a
``PlausibilityWarning`` through ``warnings.warn``, at the caller's line, and the
standard filter turns them into errors (or off). Runs the launchrank executable
(``Local``); the HTTP back end shares the code (``_api.py``), and test_decision runs
its warnings through both.

The kernel is issue 46's: a 2-D 5-point stencil (accesses in x, y only) sent a 3-D
domain, which the daemon answers with warning domain_dimensions.

    PYTHONPATH=clients/python python3 tests/python/test_plausibility_warnings.py PATH/TO/launchrank
"""

import os
import sys
import unittest
import warnings

from launchrank_client import Local, PlausibilityWarning, field

import lrtests  # the command line of the test files here

LAUNCHRANK_BIN = os.environ.get("LAUNCHRANK_BIN", "")
DEVICE = "A100-SXM4-40GB"


def five_point(n):
    """A 2-D 5-point stencil on doubles over an n x n interior (one halo layer)."""
    c = ["x+1", "y+1"]
    return {"fields": [field("u", [n + 2, n + 2], loads=[c, ["x", "y+1"], ["x+2", "y+1"],
                                                         ["x+1", "y"], ["x+1", "y+2"]]),
                       field("v", [n + 2, n + 2], stores=[c])],
            "flops": 5,
            # sent, so that only the warnings these tests are about come back (without
            # it the answer also warns registers_assumed, issue 43)
            "registers": 32}


class PlausibilityWarningsReachTheCaller(unittest.TestCase):
    def setUp(self):
        self.lr = Local(LAUNCHRANK_BIN, timeout=60.0)

    def estimate_flat_kernel_on_deep_domain(self):
        return self.lr.estimate_kernel(DEVICE, five_point(1024), [1024, 1024, 64],
                                       [128, 2, 1])

    def test_estimate_warns_through_the_warnings_module_by_default(self):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            e = self.estimate_flat_kernel_on_deep_domain()
        self.assertGreater(e.predicted, 0)  # the answer still comes back
        ours = [w for w in seen if issubclass(w.category, PlausibilityWarning)]
        self.assertEqual([w.message.code for w in ours], ["domain_dimensions"])
        self.assertEqual(ours[0].message, e.warnings[0])
        self.assertIn("64 points in z", str(ours[0].message))
        self.assertIn("send domain [1024, 1024, 1]", str(ours[0].message))
        # reported at the caller's line (this file), not inside the client
        self.assertEqual(os.path.abspath(ours[0].filename), os.path.abspath(__file__))

    def test_simplefilter_error_turns_the_warning_into_an_exception(self):
        with warnings.catch_warnings():
            warnings.simplefilter("error", PlausibilityWarning)
            with self.assertRaises(PlausibilityWarning) as cm:
                self.estimate_flat_kernel_on_deep_domain()
        self.assertEqual(cm.exception.code, "domain_dimensions")
        self.assertEqual(cm.exception.path, "domain")
        self.assertIsInstance(cm.exception, UserWarning)

    def test_simplefilter_ignore_keeps_them_as_data_only(self):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            warnings.simplefilter("ignore", PlausibilityWarning)
            e = self.estimate_flat_kernel_on_deep_domain()
        self.assertEqual([w for w in seen if issubclass(w.category, PlausibilityWarning)], [])
        self.assertEqual([w.code for w in e.warnings], ["domain_dimensions"])

    def test_rank_warns_with_its_top_level_warnings(self):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            r = self.lr.rank_kernel(DEVICE, five_point(1024), [1024, 1024, 64],
                                    blocks=[[128, 2, 1], [256, 1, 1]])
        self.assertTrue(r.results)
        ours = [w.message for w in seen if issubclass(w.category, PlausibilityWarning)]
        self.assertEqual(ours, r.warnings)
        self.assertIn("domain_dimensions", [w.code for w in ours])
        self.assertEqual(os.path.abspath(seen[0].filename), os.path.abspath(__file__))

    def test_a_plausible_request_warns_of_nothing(self):
        with warnings.catch_warnings():
            warnings.simplefilter("error", PlausibilityWarning)
            e = self.lr.estimate_kernel(DEVICE, five_point(1024), [1024, 1024], [128, 2, 1])
        self.assertEqual(e.warnings, [])

    def test_a_request_without_registers_is_warned_with_the_count_that_changes_it(self):
        # issue 43, item 1: 32 registers were assumed silently; 1024-thread blocks on an
        # A100 cannot launch from 65 registers per thread
        kernel = dict(five_point(1024))
        del kernel["registers"]
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            e = self.lr.estimate_kernel(DEVICE, kernel, [1024, 1024], [1024, 1, 1])
        ours = [w.message for w in seen if issubclass(w.category, PlausibilityWarning)]
        self.assertEqual([w.code for w in ours], ["registers_assumed"])
        self.assertEqual(ours, e.warnings)
        self.assertEqual(ours[0].path, "kernel.registers")
        self.assertIn("32 registers per thread are assumed", ours[0].message)
        self.assertIn("none from 65 (it cannot launch)", ours[0].message)
        self.assertIn("ptxas -v", ours[0].message)


if __name__ == "__main__":
    sys.exit(lrtests.main(globals()))
