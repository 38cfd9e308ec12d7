#!/usr/bin/env python3
"""
test_registers: Local.registers() (``launchrank registers --json``) and kernel.source
through the Python client (issue 43, item 2).

tests/data/registers_sample.cu by path and as text for the H200 (sm_90): stencil7 has
22 registers and no spills, heavy<64> 32 registers with spills and 1024 B of static
shared memory (nvcc 13.0.88 -Xptxas -v prints the same registers); a syntax error is a
LaunchrankRequestError quoting the compiler, the V100 under NVRTC 13 a
LaunchrankUnavailableError naming sm_70; Client has no registers() (the daemon takes
kernel.source instead). Local.estimate with kernel.source {"file"} gives the estimate of
kernel.registers 22. Exit 77 (skipped) where NVRTC cannot be loaded.

    PYTHONPATH=clients/python python3 tests/python/test_registers.py PATH/TO/launchrank
"""

import os
import subprocess
import sys
import unittest

from launchrank_client import (Client, LaunchrankRequestError, LaunchrankUnavailableError,
                               LaunchrankUnsupportedError, Local, Resources)

import lrtests  # the command line of the test files here

LAUNCHRANK_BIN = os.environ.get("LAUNCHRANK_BIN", "")
SOURCE_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SAMPLE = os.path.join(SOURCE_ROOT, "tests", "data", "registers_sample.cu")


def request(kernel_extra):
    kernel = {"fields": [
        {"name": "in", "dims": [258, 258, 258],
         "loads": [["x", "y", "z"], ["x-1", "y", "z"], ["x+1", "y", "z"], ["x", "y-1", "z"],
                   ["x", "y+1", "z"], ["x", "y", "z-1"], ["x", "y", "z+1"]]},
        {"name": "out", "dims": [258, 258, 258], "stores": [["x", "y", "z"]]}]}
    kernel.update(kernel_extra)
    return {"device": "H200-SXM-141GB", "domain": [256, 256, 256],
            "launch": {"block": [128, 2, 1]}, "kernel": kernel}


class Registers(unittest.TestCase):
    def setUp(self):
        self.local = Local(LAUNCHRANK_BIN)

    def check_sample(self, r):
        self.assertIsInstance(r, Resources)
        self.assertEqual(r.arch, "sm_90")
        s, h = r.kernel("stencil7"), r.kernel("heavy")
        self.assertEqual((s.registers, s.spill_store_bytes, s.spill_load_bytes, s.stack_bytes,
                          s.shared_bytes, s.constant_bytes), (22, 0, 0, 0, 0, None))
        self.assertEqual(h.name, "_Z5heavyILi64EEvPKfPf")
        self.assertEqual((h.registers, h.shared_bytes), (32, 1024))
        self.assertGreater(h.spill_store_bytes, 0)
        self.assertGreater(h.stack_bytes, 0)

    def test_a_file_and_its_text_give_ptxas_s_figures_for_the_h200(self):
        self.check_sample(self.local.registers(SAMPLE, "H200-SXM-141GB"))
        with open(SAMPLE) as f:
            self.check_sample(self.local.registers(f.read(), arch="sm_90"))

    def test_kernel_and_options_are_passed_on(self):
        r = self.local.registers(SAMPLE, arch="sm_90", kernel="stencil7",
                                 options=["-maxrregcount=24"])
        self.assertEqual([k.name for k in r.kernels], ["stencil7"])

    def test_refusals_are_the_api_s_exceptions(self):
        with self.assertRaises(LaunchrankRequestError) as c:
            self.local.registers("__global__ void k( {}\n", arch="sm_90")
        self.assertIn("could not compile it for sm_90", c.exception.message)
        if self.local.registers(SAMPLE, arch="sm_90").nvrtc.split(".")[0] >= "13":
            with self.assertRaises(LaunchrankUnavailableError) as c:
                self.local.registers(SAMPLE, "V100-PCIe-32GB")
            self.assertIn("sm_70", c.exception.message)
        with self.assertRaises(LaunchrankUnsupportedError):
            Client("http://127.0.0.1:9").registers(SAMPLE, "H200-SXM-141GB")

    def test_kernel_source_estimates_as_its_register_count_and_mix(self):
        # the mix registers() counts in the PTX is what kernel.source sends
        mix = self.local.registers(SAMPLE, arch="sm_90").kernel("stencil7")["instructions"]
        self.assertEqual(mix["fp64"], 7)
        by_count = self.local.estimate(request({"registers": 22, "instructions": mix}))
        by_source = self.local.estimate(request({"source": {"file": SAMPLE,
                                                            "name": "stencil7"}}))
        self.assertEqual(by_source.raw["performance"], by_count.raw["performance"])
        self.assertEqual([w.code for w in by_source.warnings], ["registers_from_source"])
        self.assertEqual(by_count.warnings, [])


def nvrtc_missing(binary):
    p = subprocess.run([binary, "registers", "--arch", "sm_90", SAMPLE],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode == 1 and b"NVRTC not found" in p.stderr


if __name__ == "__main__":
    binary = sys.argv[1] if len(sys.argv) > 1 else LAUNCHRANK_BIN
    if binary and os.access(binary, os.X_OK) and nvrtc_missing(binary):
        print("test_registers: NVRTC cannot be loaded: skipped")
        sys.exit(77)
    sys.exit(lrtests.main(globals()))
