#!/usr/bin/env python3
"""Per block depth: measured / predicted GLup/s of the Rösti set, from `accuracy --dump FILE`.

usage: table.py DUMP   (DUMP from `accuracy --corpus tests/accuracy/corpus/published_v100_rosti
--measured tests/accuracy/corpus/v100_rosti.jsonl --device V100-PCIe-32GB --dump DUMP`)
Prints, per family and bz, the number of blocks, the median and range of measured/predicted,
the best measured GLup/s relative to the best flat (bz = 1) block, and the model's pick.
"""
import json
import statistics
import sys


def main():
    rows = [json.loads(l) for l in open(sys.argv[1])]
    fams = {}
    for r in rows:
        fams.setdefault(r["family"], []).append(r)
    for fam, rs in fams.items():
        best_flat = max(r["measured"] for r in rs if r["block"][2] == 1)
        pick = max(rs, key=lambda r: r["predicted"])
        best = max(rs, key=lambda r: r["measured"])
        print(f"{fam}: best {tuple(best['block'])} {best['measured']:.1f}, model's pick "
              f"{tuple(pick['block'])} {pick['measured']:.1f} (pred {pick['predicted']:.1f})")
        print("  bz   n  meas/pred median [min, max]  best meas / best flat  pred range")
        for bz in sorted({r["block"][2] for r in rs}):
            sub = [r for r in rs if r["block"][2] == bz]
            q = [r["measured"] / r["predicted"] for r in sub]
            p = [r["predicted"] for r in sub]
            print(f"  {bz:2d} {len(sub):3d}  {statistics.median(q):.3f} [{min(q):.3f}, "
                  f"{max(q):.3f}]  {max(r['measured'] for r in sub) / best_flat:.3f}"
                  f"  {min(p):.1f}-{max(p):.1f}")


if __name__ == "__main__":
    main()
