#!/usr/bin/env python3
"""Writes lab/2026-11-23-overhead/families: three kernels of the measured corpus
(tests/accuracy/corpus/families) at several domain sizes, two or three configurations each,
for the size scans of the launch overhead (tests/accuracy/launch_overhead.c, calibrate/overhead.c;
calibrate/meson.build embeds them). Run from the repository root."""
import json

SRC = "tests/accuracy/corpus/families/"
OUT = "lab/2026-11-23-overhead/families/"


def family(base, name, domain, dims, configs, out=OUT):
    """Writes the corpus family base (tests/accuracy/corpus/families) as name on domain, its
    fields' sizes from dims(domain, field), with the launch configurations configs,
    into the folder out (lab/2026-11-27-foldscan/make_families.py uses it too)."""
    d = json.load(open(SRC + base + ".json"))
    d["family"], d["domain"], d["configs"] = name, domain, configs
    for f in d["kernel"]["fields"]:
        f["dims"] = dims(domain, f)
    d["description"] = d["description"].rsplit(",", 1)[0] + ", " + "x".join(map(str, domain))
    with open(out + name + ".json", "w") as f:
        json.dump(d, f, indent=1)


def halo(domain, field):
    return [n + 2 for n in domain]


if __name__ == "__main__":
    for n in [32, 64, 96, 128, 160, 192, 256, 320]:
        family("star3d_r1_f64", f"star3d_r1_f64_n{n}", [n, n, n], halo,
               [[128, 2, 1, 1, 1, 2], [32, 4, 4, 1, 1, 1], [256, 1, 1, 1, 1, 1]])
    for n in [2**14, 2**16, 2**18, 2**20, 2**22, 2**24, 2**25, 2**26]:
        # b[x] = a[2x]: a is twice as long as the domain
        family("copy_strided_f64", f"copy_strided_f64_n{n}", [n, 1, 1],
               lambda d, f: [2 * d[0]] if f["name"] != "b" else [d[0]],
               [[256, 1, 1, 1, 1, 1], [1024, 1, 1, 1, 1, 1]])
    for n in [32, 64, 128, 192, 256, 320]:
        family("varcoef3d_f64", f"varcoef3d_f64_n{n}", [n, n, n], halo,
               [[32, 4, 4, 1, 1, 1], [128, 2, 1, 1, 1, 2]])
