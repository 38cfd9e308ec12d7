#!/usr/bin/python3
"""Makes one tetrahedral mesh with Debian's gmsh (python3-gmsh 4.8.4) and writes its
face-neighbour array in the order gmsh numbers the tetrahedra ("given").

  /usr/bin/python3 make_mesh.py GEOMETRY H OUTDIR/NAME [ALGO3D]

GEOMETRY: cube     the unit cube, uniform size H
          cyl      a cylinder of radius 0.5 and height 2 along z, uniform size H
          refined  the unit cube minus a ball of radius 0.15 at (0.3, 0.4, 0.5); size H/5 on
                   the ball's surface growing linearly to H at distance 0.35 from it
                   (Distance + Threshold fields)
ALGO3D: gmsh's Mesh.Algorithm3D (1 Delaunay, the default here; 10 HXT)
Everything else is gmsh's default (Mesh.Optimize 1, no random factor change), on 2 threads.
gmsh's tetrahedron order is its own; its output is deterministic for the same
version, options and thread count, as far as we know (not checked across machines).

Writes
  NAME.nbr.i32     int32 little-endian, 4*n entries: entry 4*x+j is the cell across the
                   face of tetrahedron x opposite its j-th node (gmsh's node order), or x
                   itself where that face is on the boundary
  NAME.graph       the dual graph in METIS format (1-based, no self loops) for gpmetis
  NAME.info        n, nodes, boundary faces, geometry, H, gmsh version, seconds
"""
import sys, time
import numpy as np
import gmsh

geo, h, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
algo = int(sys.argv[4]) if len(sys.argv) > 4 else 1
t0 = time.time()
gmsh.initialize()
gmsh.option.setNumber("General.Terminal", 1)
gmsh.option.setNumber("General.NumThreads", 2)
gmsh.option.setNumber("Mesh.Algorithm3D", algo)
occ = gmsh.model.occ
if geo == "cube":
    occ.addBox(0, 0, 0, 1, 1, 1)
elif geo == "cyl":
    occ.addCylinder(0, 0, 0, 0, 0, 2, 0.5)
elif geo == "refined":
    box = occ.addBox(0, 0, 0, 1, 1, 1)
    ball = occ.addSphere(0.3, 0.4, 0.5, 0.15)
    occ.cut([(3, box)], [(3, ball)])
else:
    sys.exit("unknown geometry " + geo)
occ.synchronize()
if geo == "refined":
    surfs = [t for (d, t) in gmsh.model.getEntities(2)]
    # the ball's surface: the one whose bounding box is the ball's
    ball_s = [s for s in surfs
              if abs(gmsh.model.getBoundingBox(2, s)[0] - 0.15) < 1e-6]
    f = gmsh.model.mesh.field
    f.add("Distance", 1)
    f.setNumbers(1, "FacesList", ball_s)
    f.add("Threshold", 2)
    f.setNumber(2, "InField", 1)
    f.setNumber(2, "SizeMin", h / 5)
    f.setNumber(2, "SizeMax", h)
    f.setNumber(2, "DistMin", 0.0)
    f.setNumber(2, "DistMax", 0.35)
    f.setAsBackgroundMesh(2)
    gmsh.option.setNumber("Mesh.MeshSizeExtendFromBoundary", 0)
    gmsh.option.setNumber("Mesh.MeshSizeFromPoints", 0)
    gmsh.option.setNumber("Mesh.MeshSizeFromCurvature", 0)
else:
    gmsh.option.setNumber("Mesh.MeshSizeMax", h)
    gmsh.option.setNumber("Mesh.MeshSizeMin", h)
gmsh.model.mesh.generate(3)
tags, nodes = gmsh.model.mesh.getElementsByType(4)   # 4-node tetrahedra
nnodes = len(gmsh.model.mesh.getNodes()[0])
version = gmsh.option.getString("General.Version")
gmsh.finalize()
t_mesh = time.time() - t0

tet = nodes.reshape(-1, 4).astype(np.int64)
n = tet.shape[0]
# compact node ids to 0..m-1
uniq, inv = np.unique(tet, return_inverse=True)
tet = inv.reshape(-1, 4)
m = len(uniq)
# face j = the three nodes other than node j; key = sorted triple packed in an int64
faces = np.empty((n, 4, 3), np.int64)
for j in range(4):
    faces[:, j, :] = tet[:, [k for k in range(4) if k != j]]
faces.sort(axis=2)
bits = int(m - 1).bit_length()
assert 3 * bits <= 63
key = (faces[:, :, 0] << (2 * bits)) | (faces[:, :, 1] << bits) | faces[:, :, 2]
key = key.reshape(-1)
order = np.argsort(key, kind="stable")
ks = key[order]
same = ks[1:] == ks[:-1]
assert not np.any(same[1:] & same[:-1]), "a face shared by three tetrahedra"
a = order[:-1][same]          # face slots (4*cell + j)
b = order[1:][same]
nbr = np.repeat(np.arange(n, dtype=np.int64), 4)    # self by default
nbr[a] = b // 4
nbr[b] = a // 4
nbr = nbr.astype("<i4")
nbr.tofile(out + ".nbr.i32")
nbound = int(np.sum(nbr == np.repeat(np.arange(n), 4)))

# METIS dual graph: 1-based neighbour lists without self entries
nb = nbr.reshape(n, 4).astype(np.int64)
self_ = nb == np.arange(n)[:, None]
edges = int((~self_).sum()) // 2
with open(out + ".graph", "w") as fh:
    fh.write(f"{n} {edges}\n")
    lines = []
    for x in range(0, n, 1 << 18):
        blk = nb[x:x + (1 << 18)] + 1
        sb = self_[x:x + (1 << 18)]
        for row, s in zip(blk.tolist(), sb.tolist()):
            lines.append(" ".join(str(v) for v, z in zip(row, s) if not z))
        fh.write("\n".join(lines) + "\n")
        lines = []
with open(out + ".info", "w") as fh:
    fh.write(f"n {n}\nnodes {m}\nboundary_faces {nbound}\ngeometry {geo}\nh {h}\n"
             f"algorithm3d {algo}\ngmsh {version}\nmesh_seconds {t_mesh:.1f}\n")
print(f"{out}: n={n} nodes={m} boundary_faces={nbound} gmsh {version} {t_mesh:.1f}s")
