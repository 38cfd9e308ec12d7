#!/usr/bin/env python3
"""
pick_block_size: what a code generator does with launchrank before it prints a kernel.

It describes a 3-D 7-point stencil (doubles, 256^3 interior, one halo layer, so the
arrays are 258^3 and interior point (x, y, z) sits at element (x+1, y+1, z+1)), asks
launchrank to rank block sizes with foldings [1,1,1] and [1,1,2] on an A100, prints
the best five, how much faster the best is than a plain 1024x1x1 block, and picks the
first. It asks a daemon (--url, default $LAUNCHRANK_URL) or, with --local, runs the
launchrank executable itself (no daemon).

    pip install ./clients/python
    python3 clients/python/examples/pick_block_size.py --url http://127.0.0.1:8080
    python3 clients/python/examples/pick_block_size.py --local build-release/clients/cli/launchrank
"""

import argparse
import sys

from launchrank_client import Client, LaunchrankError, Local, field

N = 256
DIMS = [N + 2, N + 2, N + 2]  # halo 1 on each side
BASELINE = [1024, 1, 1]  # what the generator would use without launchrank


def seven_point_kernel() -> dict:
    """dst[c] = a*src[c] + b*(sum of the six neighbours of c): 7 loads, 1 store."""
    centre = ["x+1", "y+1", "z+1"]
    neighbours = [
        ["x", "y+1", "z+1"], ["x+2", "y+1", "z+1"],
        ["x+1", "y", "z+1"], ["x+1", "y+2", "z+1"],
        ["x+1", "y+1", "z"], ["x+1", "y+1", "z+2"],
    ]
    return {
        "fields": [
            field("src", DIMS, loads=[centre] + neighbours),
            field("dst", DIMS, stores=[centre]),
        ],
        "flops": 8,  # 6 additions, 2 multiplications per lattice update
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].strip())
    ap.add_argument("--url", default=None,
                    help="the launchrank daemon (default: $LAUNCHRANK_URL, else "
                         "http://127.0.0.1:8080)")
    ap.add_argument("--local", nargs="?", const="launchrank", metavar="EXECUTABLE",
                    help="run the launchrank executable instead of asking a daemon "
                         "(default: launchrank on PATH)")
    ap.add_argument("--device", default="A100-SXM4-40GB")
    args = ap.parse_args(argv)

    try:
        backend = Local(args.local) if args.local else Client(args.url)
        ranking = backend.rank_kernel(args.device, seven_point_kernel(), [N, N, N],
                                      foldings=[[1, 1, 1], [1, 1, 2]], top=5,
                                      baseline=BASELINE)
    except LaunchrankError as e:
        print("launchrank: %s" % e, file=sys.stderr)
        return 1

    if ranking.best is None:
        print("no launchable configuration", file=sys.stderr)
        return 1
    print("%d configurations evaluated on %s (model %s)"
          % (ranking.evaluated, ranking.device, ranking.model_version))
    print("%-14s %-10s %16s %-8s %15s" % ("block", "folding", "predicted GLup/s", "limiter",
                                         "dram B/Lup"))
    for r in ranking.results:
        print("%-14s %-10s %16.2f %-8s %15.2f" % (
            "x".join(map(str, r.block)), "x".join(map(str, r.folding)),
            r.predicted, r.performance.limiter, r.estimate.dram_bytes))
    base = ranking.baseline
    print("baseline %s: %.2f GLup/s predicted, the best is %.2fx faster"
          % ("x".join(map(str, base.block)), base.predicted, base.speedup))
    best = ranking.best
    print("chosen block: %s folding: %s" % (list(best.block), list(best.folding)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
