#!/usr/bin/env python3
"""
test_kernel_tuner_doc: docs/kernel_tuner.md runs, and its "rank, then tune only what
matters" example passes Kernel Tuner what it should; plus the cases of
launchrank_client.kernel_tuner that the example does not reach.

The page's ```python block runs with the build's launchrank on PATH and a stand-in
`kernel_tuner` module (Kernel Tuner is not installable here): its tune_kernel records its
arguments, times (with made-up numbers) the configurations that tune_params and
restrictions leave, and writes them as a Kernel Tuner cache file (schema 1.1.0). Without
numpy, a stand-in provides the three numpy calls the example makes. Then the ```sh
blocks run in order and must exit 0. Expected values come from `launchrank rank` on the
same request, independently of prune().

    PYTHONPATH=clients/python python3 tests/python/test_kernel_tuner_doc.py LAUNCHRANK
"""

import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import types
import unittest

from launchrank_client import Ranking
from launchrank_client.kernel_tuner import BLOCK_NAMES, prune, search_space

LAUNCHRANK = ""
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(SOURCE_ROOT, "docs", "kernel_tuner.md")


def blocks(text, lang):
    return re.findall(r"```%s\n(.*?)```" % lang, text, re.S)


class FakeKernelTuner:
    """The part of Kernel Tuner's API the example uses, without a GPU."""

    def __init__(self):
        self.calls = []
        self.timed = []

    def module(self):
        m = types.ModuleType("kernel_tuner")
        m.tune_kernel = self.tune_kernel
        return m

    def tune_kernel(self, kernel_name, kernel_source, problem_size, arguments,
                    tune_params=None, restrictions=None, cache=None, **options):
        self.calls.append(dict(kernel_name=kernel_name, kernel_source=kernel_source,
                               problem_size=problem_size, arguments=arguments,
                               tune_params=tune_params, restrictions=restrictions,
                               cache=cache, options=options))
        keys = list(tune_params)
        entries, results = {}, []
        for i, values in enumerate(itertools.product(*tune_params.values())):
            p = dict(zip(keys, values))
            if restrictions is not None and not restrictions(p):
                continue
            t = 0.5 + 0.01 * i  # made up: no GPU here
            r = dict(p, time=t, times=[t, t * 1.01, t * 0.99], compile_time=700.0,
                     verification_time=0, benchmark_time=10.0, strategy_time=0,
                     framework_time=1.0, timestamp="2026-11-22 12:00:00.000000+00:00")
            entries[",".join(str(v) for v in values)] = r
            results.append(r)
            self.timed.append(p)
        if cache:
            with open(cache, "w") as f:
                json.dump({"schema_version": "1.1.0", "device_name": "NVIDIA H100 80GB HBM3",
                           "kernel_name": kernel_name, "problem_size": list(problem_size),
                           "tune_params_keys": keys, "tune_params": tune_params,
                           "objective": "time", "cache": entries}, f)
        return results, {"device_name": "NVIDIA H100 80GB HBM3"}


def fake_numpy():
    np = types.ModuleType("numpy")
    rand = types.SimpleNamespace(rand=lambda k: [0.5] * k)
    np.random = rand
    np.zeros_like = lambda a: [0.0] * len(a)
    np.int32 = int
    return np


class DocExample(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        with open(DOC) as f:
            cls.text = f.read()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = cls.tmp.name
        cls.kt = FakeKernelTuner()
        saved = dict(sys.modules), os.getcwd(), os.environ["PATH"]
        os.environ["PATH"] = os.path.dirname(LAUNCHRANK) + os.pathsep + saved[2]
        sys.modules["kernel_tuner"] = cls.kt.module()
        try:
            import numpy  # noqa: F401
        except ImportError:
            sys.modules["numpy"] = fake_numpy()
        os.chdir(cls.dir)
        cls.ns = {"__name__": "__doc_example__"}
        try:
            (cuda,) = blocks(cls.text, "cuda")
            with open("stencil7.cu", "w") as f:
                f.write(cuda)
            (code,) = blocks(cls.text, "python")
            exec(compile(code, DOC, "exec"), cls.ns)
            cls.sh = []
            for cmd in blocks(cls.text, "sh"):
                p = subprocess.run(["sh", "-c", cmd], capture_output=True, text=True,
                                   timeout=240)
                cls.sh.append((cmd.strip(), p.returncode, p.stdout, p.stderr))
        finally:
            os.chdir(saved[1])
            os.environ["PATH"] = saved[2]
            sys.modules.clear()
            sys.modules.update(saved[0])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def expected_kept(self):
        """The 8 best of `launchrank rank` on the example's request, plus the default:
        (block, folding) pairs."""
        p = subprocess.run([LAUNCHRANK, "rank", os.path.join(self.dir, "stencil7.json")],
                           capture_output=True, text=True, timeout=240)
        self.assertEqual(p.returncode, 0, p.stderr)
        results = json.loads(p.stdout)["results"]
        self.assertEqual(len(results) + len(json.loads(p.stdout)["not_launchable"]), 225)
        kept = [(tuple(r["block"]), tuple(r["folding"])) for r in results[:8]]
        default = ((32, 4, 1), (1, 1, 1))
        return kept + ([default] if default not in kept else [])

    def test_the_sh_blocks_exit_0(self):
        self.assertEqual(len(self.sh), 2)
        for cmd, rc, out, err in self.sh:
            self.assertEqual(rc, 0, (cmd, out, err))

    def test_tune_kernel_gets_the_pruned_space_and_the_user_s_arguments(self):
        self.assertEqual(len(self.kt.calls), 1)
        call = self.kt.calls[0]
        self.assertEqual((call["kernel_name"], call["kernel_source"], call["problem_size"]),
                         ("stencil7", "stencil7.cu", (256, 256, 256)))
        self.assertEqual(call["cache"], "stencil7_cache.json")
        self.assertEqual(call["options"], {"grid_div_z": ["block_size_z", "tile_size_z"]})
        self.assertEqual(len(call["arguments"]), 3)
        self.assertEqual(call["arguments"][2], 256)
        kept = self.expected_kept()
        full = self.ns["tune_params"]
        # each block or folding parameter: the values of the kept configurations, in
        # the user's order
        side = {"block_size_x": lambda b, f: b[0], "block_size_y": lambda b, f: b[1],
                "block_size_z": lambda b, f: b[2], "tile_size_z": lambda b, f: f[2]}
        expected = {k: [v for v in full[k] if any(side[k](b, f) == v for b, f in kept)]
                    for k in full}
        self.assertEqual(call["tune_params"], expected)
        self.assertIs(call["tune_params"], self.ns["pruned"].tune_params)
        # the restrictions admit exactly the kept configurations
        timed = {((p["block_size_x"], p["block_size_y"], p["block_size_z"]),
                  (1, 1, p["tile_size_z"])) for p in self.kt.timed}
        self.assertEqual(timed, set(kept))
        self.assertEqual(len(self.kt.timed), len(kept))
        self.assertEqual(self.ns["pruned"].size, len(kept))
        self.assertEqual(self.ns["pruned"].full_size, 225)
        self.assertIn(len(kept), (8, 9))
        # the example's own result
        self.assertEqual(self.ns["best"]["time"], min(r["time"] for r in self.ns["results"]))

    def test_import_reads_every_configuration_kernel_tuner_timed(self):
        cmd, rc, out, err = self.sh[0]
        self.assertTrue(cmd.startswith("launchrank import-kt"))
        summary = json.loads(out)
        self.assertEqual(summary["imported"], len(self.kt.timed))
        self.assertEqual(summary["entries"], len(self.kt.timed))
        self.assertEqual(summary["device"], "H100-SXM5-80GB")

    def test_the_t4_export_of_the_example_lists_the_5_best_first(self):
        cmd, rc, out, err = self.sh[1]
        doc = json.loads(out)
        correct = [r for r in doc["results"] if r["invalidity"] == "correct"]
        self.assertEqual(len(correct), 5)
        kept = self.expected_kept()
        # named by --folding 1,1,tile_size_z: the tuning script's tune_params exactly
        for r in doc["results"]:
            self.assertEqual(set(r["configuration"]), set(self.ns["tune_params"]))
        got = [((r["configuration"]["block_size_x"], r["configuration"]["block_size_y"],
                 r["configuration"]["block_size_z"]),
                (1, 1, r["configuration"]["tile_size_z"])) for r in correct]
        self.assertEqual(got, kept[:5])


def ranking_of(results):
    """A Ranking of (block, folding, GLup/s) triples, best first."""
    return Ranking.from_json({"domain": [64, 64, 64], "results": [
        {"rank": i + 1, "block": b, "folding": f, "performance": {"predicted": g}}
        for i, (b, f, g) in enumerate(results)], "not_launchable": []})


class PruneCases(unittest.TestCase):
    """What the example does not reach."""

    def test_search_space_covers_the_tune_params_blocks_and_foldings(self):
        tp = {"block_size_x": [32, 64], "block_size_y": [1, 2], "unroll": [1, 2, 4]}
        s = search_space(tp)
        self.assertEqual(s, {"blocks": [[32, 1, 1], [32, 2, 1], [64, 1, 1], [64, 2, 1]],
                             "foldings": [[1, 1, 1]]})
        s = search_space(tp, block=("block_size_x", 4), folding=(1, "unroll"))
        self.assertEqual(s["blocks"], [[32, 4, 1], [64, 4, 1]])
        self.assertEqual(s["foldings"], [[1, 1, 1], [1, 2, 1], [1, 4, 1]])
        # Kernel Tuner's defaults for its names that tune_params lacks: 256 x 1 x 1
        self.assertEqual(search_space({"block_size_y": [1, 2]})["blocks"],
                         [[256, 1, 1], [256, 2, 1]])
        p = prune(ranking_of([([256, 2, 1], [1, 1, 1], 9.0), ([256, 1, 1], [1, 1, 1], 8.0)]),
                  {"block_size_y": [1, 2]}, top=1)
        self.assertEqual((p.tune_params, p.kept[0]["params"]), ({"block_size_y": [2]},
                                                               {"block_size_y": 2}))
        self.assertTrue(p.restrictions({"block_size_y": 2}))
        with self.assertRaises(KeyError):
            search_space(tp, block=("bx", "by"))
        with self.assertRaises(ValueError):
            search_space(tp, folding=(1, 1, 1, 1))
        with self.assertRaises(ValueError):
            search_space(tp, folding=(0,))

    def test_other_parameters_stay_whole_and_multiply_the_count(self):
        tp = {"block_size_x": [32, 64, 128], "unroll": [1, 2, 4]}
        r = ranking_of([([128, 1, 1], [1, 1, 1], 90.0), ([64, 1, 1], [1, 1, 1], 80.0),
                        ([32, 1, 1], [1, 1, 1], 70.0)])
        p = prune(r, tp, top=1)
        self.assertEqual(p.tune_params, {"block_size_x": [128], "unroll": [1, 2, 4]})
        self.assertEqual((p.size, p.full_size), (3, 9))
        self.assertTrue(p.restrictions({"block_size_x": 128, "unroll": 2}))
        self.assertFalse(p.restrictions({"block_size_x": 64, "unroll": 2}))
        # the calls of a function inside a restrictions list: values in tune_params
        # order, or keywords
        self.assertTrue(p.restrictions(128, 2))
        self.assertFalse(p.restrictions(64, 2))
        self.assertTrue(p.restrictions(block_size_x=128, unroll=4))
        self.assertFalse(p.restrictions(block_size_x=32, unroll=4))
        with self.assertRaises(TypeError):
            p.restrictions(128)
        self.assertEqual(p.tune_kernel_kwargs(),
                         {"tune_params": p.tune_params, "restrictions": p.restrictions})

    def test_the_default_is_kept_once_and_ranked_configs_outside_the_space_are_skipped(self):
        tp = {"block_size_x": [32, 64], "block_size_y": [1, 4], "tile": [1, 2]}
        r = ranking_of([([256, 1, 1], [1, 1, 1], 99.0), ([64, 4, 1], [1, 2, 1], 90.0),
                        ([32, 1, 1], [1, 1, 1], 80.0), ([64, 1, 1], [1, 1, 1], 70.0)])
        p = prune(r, tp, top=2, folding=(1, "tile"),
                  default={"block_size_x": 64, "block_size_y": 1, "tile": 1})
        self.assertEqual(p.skipped, 1)  # 256 is not a value of block_size_x
        self.assertEqual([(k["block"], k["folding"], k["rank"]) for k in p.kept],
                         [((64, 4, 1), (1, 2, 1), 2), ((32, 1, 1), (1, 1, 1), 3),
                          ((64, 1, 1), (1, 1, 1), None)])
        self.assertEqual(p.kept[2]["predicted_glups"], 70.0)
        self.assertEqual(p.tune_params,
                         {"block_size_x": [32, 64], "block_size_y": [1, 4], "tile": [1, 2]})
        self.assertEqual(p.size, 3)  # the restriction, not the value lists, decides
        self.assertFalse(p.restrictions({"block_size_x": 32, "block_size_y": 4, "tile": 2}))
        again = prune(r, tp, top=2, folding=(1, "tile"),
                      default={"block_size_x": 32, "block_size_y": 1, "tile": 1})
        self.assertEqual(len(again.kept), 2)  # the default is among the best already
        with self.assertRaises(ValueError):
            prune(r, tp, top=2, folding=(1, "tile"), default={"block_size_x": 64})
        with self.assertRaises(ValueError):
            prune(r, tp, top=2, folding=(1, "tile"),
                  default={"block_size_x": 48, "block_size_y": 1, "tile": 1})
        with self.assertRaises(ValueError):
            prune(r, tp, top=0)
        with self.assertRaisesRegex(ValueError, "none of the 1 ranked configurations"):
            prune(ranking_of([([256, 1, 1], [1, 1, 1], 99.0)]), tp, top=2, folding=(1, "tile"))
        self.assertEqual(BLOCK_NAMES, ("block_size_x", "block_size_y", "block_size_z"))


if __name__ == "__main__":
    LAUNCHRANK = os.path.abspath(sys.argv[1])
    unittest.main(argv=sys.argv[:1], verbosity=2)
