#!/usr/bin/env python3
"""lab/2026-11-27-knee/make_families.py: the probe's kernels (probe.cu) as family files, so that
`tests/accuracy/accuracy --corpus lab/2026-11-27-knee/families --measured lab/2026-11-27-knee/h100.jsonl` predicts
what the probe timed. One family per kernel and occupancy level, named
knee_KERNEL_bB (B blocks of 256 threads per SM; bBs: 8 blocks with the shared memory
reserved, the probe's level 9), three configurations each (folded 1, 2 and 4: in x for
the streams, in y for the stencil). kernel.shared_bytes is the probe's dynamic shared
memory; the model adds the 1 KiB the driver reserves per block (the H100's
shared_reserved_bytes_per_block, model 2026.11-23), so that its blocks per SM,
floor(233472 / (shared_bytes + 1024)), are the driver's."""
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
SMEM_PER_SM, RESERVED = 233472, 1024  # H100: what the probe prints

N1 = 1 << 25
f8 = lambda name, loads=None, stores=None, dims=N1: dict(
    {"dims": [dims], "element_bytes": 8, "name": name},
    **({"loads": loads} if loads else {}), **({"stores": stores} if stores else {}))
KERNELS = {
    "triad_f64": ("1-D triad a[x] = b[x] + s*c[x], double, 2^25", [N1, 1, 1],
                  {"fields": [f8("b", [["x"]]), f8("c", [["x"]]), f8("a", stores=[["x"]])],
                   "flops": 2}, "x"),
    "strided_f64": ("1-D strided copy b[x] = a[2x], double, 2^25", [N1, 1, 1],
                    {"fields": [f8("a", [["2*x"]], dims=2 * N1), f8("b", stores=[["x"]])],
                     "flops": 0}, "x"),
    "scale_f64": ("1-D scaled copy b[x] = s*a[x], double, 2^25", [N1, 1, 1],
                  {"fields": [f8("a", [["x"]]), f8("b", stores=[["x"]])], "flops": 1}, "x"),
    "star2d_r1_f32": ("2-D 5-point star, float, 8192x4096", [8192, 4096, 1],
                      {"fields": [{"dims": [8194, 4098], "element_bytes": 4, "name": "u",
                                   "loads": [["x+1", "y+1"], ["x", "y+1"], ["x+2", "y+1"],
                                             ["x+1", "y"], ["x+1", "y+2"]]},
                                  {"dims": [8194, 4098], "element_bytes": 4, "name": "v",
                                   "stores": [["x+1", "y+1"]]}],
                       "flops": 5}, "y"),
}


def main():
    out = os.path.join(here, "families")
    os.makedirs(out, exist_ok=True)
    for name, (desc, domain, kernel, axis) in KERNELS.items():
        for level in range(1, 10):
            b = min(level, 8)
            smem = 0 if level == 8 else (SMEM_PER_SM // b - RESERVED) // 128 * 128
            fam = "knee_%s_b%d%s" % (name, b, "s" if level == 9 else "")
            k = dict(kernel)
            if smem:
                k["shared_bytes"] = smem
            configs = [[256, 1, 1] + ([f, 1, 1] if axis == "x" else [1, f, 1])
                       for f in (1, 2, 4)]
            doc = {"configs": configs, "description": desc + ", %d blocks of 256 per SM%s" %
                   (b, " (shared memory reserved)" if smem else ""),
                   "device": "H100-SXM5-80GB", "domain": domain, "family": fam, "kernel": k}
            with open(os.path.join(out, fam + ".json"), "w") as f:
                json.dump(doc, f, sort_keys=True)
                f.write("\n")


main()
