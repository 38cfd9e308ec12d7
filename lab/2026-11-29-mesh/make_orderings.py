#!/usr/bin/python3
"""Orderings of a mesh made by make_mesh.py, and the compact files carried to the device.

  /usr/bin/python3 make_orderings.py DIR/NAME

Reads NAME.nbr.i32 (given order) and NAME.graph. Computes
  rcm      scipy.sparse.csgraph.reverse_cuthill_mckee (Debian python3-scipy 1.10.1) on the
           symmetric cell adjacency without self entries; perm[i] = position of cell i in it
  metisK   Debian gpmetis 5.1.0 (`gpmetis -seed=1 NAME.graph K`, default k-way options) with
           K = round(n/64), round(n/1024), round(n/16384) parts, named metis64, metis1024,
           metis16384 after the target part size; cells sorted by part, stable in given order
  random   not here: gen_blocks.h's random_perm, computed where it is used
Writes the carried, compressed files (FORMATS.md):
  NAME.rcmup.d32.xz    the neighbour array in rcm order, only each cell's neighbours with a
                       larger index, ascending, as (neighbour - cell), cell after cell
  NAME.rcmnup.u8.xz    how many of those each cell has (0..4)
  NAME.rcmslot.u8.xz   per cell: bits 2j..2j+1 = rank of slot j among the cell's 4 entries
                       sorted ascending (ties, i.e. several boundary faces, in slot order)
  NAME.rcmperm.i32.xz  the rcm permutation (new index of given cell i)
  NAME.metisS.part.u32.xz  the METIS part of each cell, cells in rcm order
decode_mesh.py turns them back into the given array and the permutations.
"""
import sys, lzma, subprocess, time
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

base = sys.argv[1]
nbr = np.fromfile(base + ".nbr.i32", "<i4").astype(np.int64)
n = len(nbr) // 4
cell = np.repeat(np.arange(n), 4)
keep = nbr != cell
A = sp.csr_matrix((np.ones(int(keep.sum()), np.int8), (cell[keep], nbr[keep])), shape=(n, n))
t = time.time()
order = reverse_cuthill_mckee(A, symmetric_mode=True)   # order[k] = old cell at position k
p = np.empty(n, np.int64)
p[order] = np.arange(n)
print(f"{base}: rcm {time.time() - t:.1f}s")


def permute(nbr, p):
    out = np.empty_like(nbr)
    idx = (4 * p[:, None] + np.arange(4)).reshape(-1)
    out[idx] = p[nbr]
    return out


def bandwidth(a):
    return int(np.abs(a - np.repeat(np.arange(n), 4)).max())


nr = permute(nbr, p)
print(f"  bandwidth given {bandwidth(nbr)}, rcm {bandwidth(nr)}")


def xz(path, arr):
    data = lzma.compress(arr.tobytes(), preset=9 | lzma.PRESET_EXTREME)
    open(path, "wb").write(data)
    print(f"  {path}: {len(data) / 1e6:.2f} MB")


# the neighbour relation is symmetric: keep each cell's neighbours above it (rcm order),
# ascending, as deltas, their count, and the rank of each slot j in the cell's sorted
# 4 entries (stable), which gives back the slot order
nr4 = nr.reshape(n, 4)
y = np.arange(n)[:, None]
up = nr4 > y
nup = up.sum(axis=1)
srt = np.sort(np.where(up, nr4 - y, np.iinfo(np.int64).max), axis=1)
ups = srt[srt != np.iinfo(np.int64).max]          # row-major: cell by cell, ascending
o = np.argsort(nr4, axis=1, kind="stable")
rank = np.empty_like(o)
np.put_along_axis(rank, o, np.arange(4)[None, :], axis=1)
code = (rank[:, 0] | rank[:, 1] << 2 | rank[:, 2] << 4 | rank[:, 3] << 6)
xz(base + ".rcmup.d32.xz", ups.astype("<i4"))
xz(base + ".rcmnup.u8.xz", nup.astype(np.uint8))
xz(base + ".rcmslot.u8.xz", code.astype(np.uint8))
xz(base + ".rcmperm.i32.xz", p.astype("<i4"))
for size in (64, 1024, 16384):
    k = max(2, int(round(n / size)))
    t = time.time()
    import os
    if os.path.exists(base + f".graph.part.{k}") and os.path.exists(base + f".metis{size}.log"):
        r = subprocess.CompletedProcess([], 0, open(base + f".metis{size}.log").read().split("\n", 1)[1], "")
    else:
        r = subprocess.run(["gpmetis", "-seed=1", base + ".graph", str(k)], capture_output=True, text=True)
    if r.returncode:
        sys.exit(r.stdout + r.stderr)
    part = np.loadtxt(base + f".graph.part.{k}", dtype=np.int64)
    cnt = np.bincount(part, minlength=k)
    cut = [l for l in r.stdout.splitlines() if "Edgecut" in l or "cut" in l.lower()][:1]
    print(f"  metis{size}: k={k} {time.time() - t:.1f}s parts {cnt.min()}..{cnt.max()} "
          f"empty {(cnt == 0).sum()} {cut}")
    pr = np.empty(n, np.int64)
    pr[p] = part                          # part of the cell at rcm position y
    xz(base + f".metis{size}.part.u32.xz", pr.astype("<u4"))
    with open(base + f".metis{size}.log", "w") as fh:
        fh.write(f"gpmetis -seed=1 {base.split('/')[-1]}.graph {k}\n" + r.stdout)
