#!/usr/bin/env python3
"""Turns the carried files of a mesh (make_orderings.py writes them; FORMATS.md) back into
what mesh_bench reads. numpy and lzma only, so it runs on the device machine too.

  python3 decode_mesh.py SRC/NAME DST/NAME

Writes DST/NAME.given.i32 (the neighbour array in gmsh's order, int32-le, 4n) and one
permutation per ordering, DST/NAME.perm.ORDER.i32 (int32-le, n: new index of given cell i)
for ORDER = rcm, metis64, metis1024, metis16384 (cells sorted by part, stable in given
order); prints each file's FNV-1a 64 (the hash mesh_bench and gen_blocks print).
"""
import sys, lzma
import numpy as np


def load(path, dt):
    return np.frombuffer(lzma.decompress(open(path, "rb").read()), dt).astype(np.int64)


src, dst = sys.argv[1], sys.argv[2]
nup = load(src + ".rcmnup.u8.xz", np.uint8)
n = len(nup)
owner = np.repeat(np.arange(n), nup)
val = owner + load(src + ".rcmup.d32.xz", "<i4")     # upper neighbours of owner
nlow = np.bincount(val, minlength=n)
nself = 4 - nup - nlow
assert nself.min() >= 0
selfc = np.repeat(np.arange(n), nself)
c = np.concatenate([owner, val, selfc])               # cell
v = np.concatenate([val, owner, selfc])               # one of its 4 entries
S = v[np.argsort(c * n + v, kind="stable")].reshape(n, 4)   # each cell's entries, ascending
code = load(src + ".rcmslot.u8.xz", np.uint8)
rank = np.stack([(code >> (2 * j)) & 3 for j in range(4)], axis=1)
nr = np.take_along_axis(S, rank, axis=1).reshape(-1)  # rcm-order array, slot order restored
p = load(src + ".rcmperm.i32.xz", "<i4")
assert len(p) == n and np.array_equal(np.sort(p), np.arange(n))
q = np.empty(n, np.int64)
q[p] = np.arange(n)                              # given cell at rcm position y
# given nbr[4i+j] = q[nr[4p[i]+j]]
idx = (4 * p[:, None] + np.arange(4)).reshape(-1)
g = q[nr[idx]]
out = {"given": g.astype("<i4")}
out["perm.rcm"] = p.astype("<i4")
for size in (64, 1024, 16384):
    pr = load(src + f".metis{size}.part.u32.xz", "<u4")
    part = pr[p]                                 # part of given cell i
    order = np.argsort(part, kind="stable")      # given cells sorted by part
    pm = np.empty(n, np.int64)
    pm[order] = np.arange(n)
    out[f"perm.metis{size}"] = pm.astype("<i4")
for k, a in out.items():
    path = f"{dst}.{k}.i32"
    a.tofile(path)
    print(path, len(a))
