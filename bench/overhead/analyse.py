#!/usr/bin/env python3
"""The launch overhead of docs/model.md "Launch overhead", from size scans.

Each family of bench/overhead/families is one kernel of the measured corpus
(bench/corpus) at one domain size, with two or three launch configurations;
bench/overhead/h100.jsonl and h200.jsonl hold their timings (two passes of
bench/corpus_measure time: 3 warm-up and 10 timed runs each, L2 flushed before each
run; median time per run). For every kernel and configuration this fits a straight
line through time against lattice updates (least squares over all sizes and both
passes) and prints its time at zero updates: the fixed time a launch costs whatever
its size. The figure a device carries (launch_overhead_us) is the median of those
intercepts.

    bench/overhead/analyse.py bench/overhead/h100.jsonl [more.jsonl ...]
    bench/overhead/analyse.py --check LAUNCHRANK FILE.jsonl...

--check (the CI test) asks the launchrank CLI for the built-in device of each file's
GPU (`launchrank devices NAME`) and exits 1 unless its launch_overhead_us is this
median to 0.05 us: the device figure and the measurement must not drift apart.
Needs only Python 3's standard library.
"""
import json
import statistics
import subprocess
import sys
from collections import defaultdict


def lattice_updates(family):
    """The family name ends in _nN: N^3 points for 3-D kernels, N for the copy."""
    kernel, n = family.rsplit("_n", 1)
    n = int(n)
    return kernel, (n if kernel.startswith("copy") else n ** 3)


def line(points):
    """Least-squares intercept (us) and slope (us per update) of (updates, us)."""
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x in xs)
    return my - slope * mx, slope


def analyse(path):
    groups = defaultdict(list)
    gpu = driver = date = None
    for text in open(path):
        r = json.loads(text)
        gpu, driver, date = r["gpu"], r.get("nvidia_driver"), r["date"]
        kernel, lups = lattice_updates(r["family"])
        key = (kernel, "x".join(map(str, r["block"])), "x".join(map(str, r["folding"])))
        groups[key].append((lups, r["ms_median"] * 1e3))
    print(f"{path}: {gpu}, driver {driver}, measured {date}")
    print(f"  {'kernel':18} {'block':9} {'folding':7} {'sizes':>5} {'t0 us':>7} "
          f"{'body GLup/s':>11} {'smallest us':>11}")
    intercepts = []
    for (kernel, block, fold), pts in sorted(groups.items()):
        t0, slope = line(pts)
        intercepts.append(t0)
        print(f"  {kernel:18} {block:9} {fold:7} {len(pts) // 2:5d} {t0:7.2f} "
              f"{1e-3 / slope:11.1f} {min(y for _, y in pts):11.2f}")
    med = statistics.median(intercepts)
    print(f"  launch overhead: median {med:.2f} us over {len(intercepts)} scans "
          f"(range {min(intercepts):.2f} to {max(intercepts):.2f} us)")
    return med


# The built-in device each measured GPU is described by.
DEVICE_OF_GPU = {"NVIDIA H100 80GB HBM3": "H100-SXM5-80GB", "NVIDIA H200": "H200-SXM-141GB"}


def gpu_of(path):
    with open(path) as f:
        return json.loads(f.readline())["gpu"]


def check(cli, path, measured):
    name = DEVICE_OF_GPU[gpu_of(path)]
    out = subprocess.run([cli, "devices", name], capture_output=True, text=True, check=True)
    figure = json.loads(out.stdout)["device"]["launch_overhead_us"]
    ok = abs(figure - measured) <= 0.05
    print(f"  {name}: launch_overhead_us {figure} us, measured {measured:.2f} us: "
          f"{'OK' if ok else 'DIFFERENT'} (tolerance 0.05 us)")
    return ok


if __name__ == "__main__":
    args = sys.argv[1:]
    cli = None
    if args[:1] == ["--check"]:
        if len(args) < 3:
            sys.exit(__doc__)
        cli, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    good = True
    for p in args:
        med = analyse(p)
        if cli:
            good = check(cli, p, med) and good
    sys.exit(0 if good else 1)
