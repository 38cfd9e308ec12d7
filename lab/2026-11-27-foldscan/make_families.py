#!/usr/bin/env python3
"""Writes lab/2026-11-27-foldscan/families: the corpus's strided double copy and 3-D 7-point
double stencil at several domain sizes, unfolded and folded, so that a straight line
through time against lattice updates separates what folding costs per launch (the
intercept) from what it costs per update (the slope). Run from the repository root."""
import importlib.util

spec = importlib.util.spec_from_file_location("overhead", "lab/2026-11-23-overhead/make_families.py")
overhead = importlib.util.module_from_spec(spec)
spec.loader.exec_module(overhead)
OUT = "lab/2026-11-27-foldscan/families/"

for n in [2**20, 2**22, 2**23, 2**24, 2**25, 2**26, 2**27]:
    # b[x] = a[2x]: a is twice as long as the domain
    overhead.family("copy_strided_f64", f"copy_strided_f64_n{n}", [n, 1, 1],
                    lambda d, f: [2 * d[0]] if f["name"] != "b" else [d[0]],
                    [[256, 1, 1, 1, 1, 1], [256, 1, 1, 2, 1, 1], [128, 1, 1, 2, 1, 1],
                     [1024, 1, 1, 2, 1, 1], [512, 1, 1, 1, 1, 1], [128, 1, 1, 1, 1, 1]],
                    OUT)
for n in [128, 160, 192, 256, 320]:
    overhead.family("star3d_r1_f64", f"star3d_r1_f64_n{n}", [n, n, n], overhead.halo,
                    [[128, 2, 1, 1, 1, 1], [128, 2, 1, 1, 1, 2], [128, 2, 1, 1, 1, 4],
                     [256, 1, 1, 1, 2, 1], [64, 4, 1, 1, 1, 1]], OUT)
