#!/usr/bin/env python3
"""Summarises lab/2026-11-27-blockorder's records: which SM ran which thread block.

  analyze.py DIR GPU DRIVER DATE > summary.csv

DIR holds blockorder's order_BXxBYxBZ.bin files (per block, in linear block id order:
uint32 smid, uint32 pad, uint64 start ns, uint64 end ns). One line per block shape and
distance d in block ids, for the distances the model cares about: the neighbours in x,
y and z of the 256^3 grid, and the SM count (132 on the H100) that docs/model.md §4
takes as the distance to the blocks that ran before on the same SM:

  p_same_sm       share of blocks whose block id - d ran on the same SM
  p_same_tpc      ... on the same pair of SMs (smid / 2)
  p_recent_sm     share of blocks whose block id - d is among the 8 blocks that
                  started last before it on its SM (what an L1 could still hold)
"""
import collections
import struct
import sys

N = 256          # the grid blockorder.cu launches: 256^3 points
SMS = 132        # H100 SXM
RECENT = 8


def load(path):
    raw = open(path, "rb").read()
    return [struct.unpack_from("<IIQQ", raw, i * 24) for i in range(len(raw) // 24)]


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    folder, gpu, driver, date = sys.argv[1:]
    shapes = [(32, 1, 1), (64, 1, 1), (128, 1, 1), (256, 1, 1), (32, 8, 1), (128, 2, 1),
              (32, 4, 4), (64, 1, 8)]
    print("block,distance,neighbour,p_same_sm,p_same_tpc,p_recent_sm,gpu,driver,date")
    for bx, by, bz in shapes:
        rec = load("%s/order_%dx%dx%d.bin" % (folder, bx, by, bz))
        n = len(rec)
        gx, gy = N // bx, N // by
        rank = {}
        per_sm = collections.defaultdict(list)
        for i, r in enumerate(rec):
            per_sm[r[0]].append((r[2], i))
        for lst in per_sm.values():
            lst.sort()
            for j, (_, i) in enumerate(lst):
                rank[i] = j
        wanted = [(1, "x")] if gx > 1 else []
        wanted += [(gx, "y"), (gx * gy, "z"), (SMS, "sm_count"), (2 * SMS, "2*sm_count")]
        for d, what in wanted:
            if d >= n:
                continue
            sm = tpc = recent = 0
            for i in range(d, n):
                a, b = rec[i], rec[i - d]
                if a[0] == b[0]:
                    sm += 1
                    if 0 < rank[i] - rank[i - d] <= RECENT:
                        recent += 1
                if a[0] >> 1 == b[0] >> 1:
                    tpc += 1
            m = n - d
            print("%dx%dx%d,%d,%s,%.4f,%.4f,%.4f,%s,%s,%s" % (bx, by, bz, d, what, sm / m,
                                                           tpc / m, recent / m, gpu, driver, date))


if __name__ == "__main__":
    main()
