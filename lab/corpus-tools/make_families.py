#!/usr/bin/env python3
"""Writes the kernel families of the measured corpus (tests/accuracy/corpus/families/*.json).

Each family is one kernel on one domain and a list of launch configurations
[bx, by, bz, fx, fy, fz]: block shapes from 32 to 1024 threads (flat, square, cubic,
narrow in x, wider than the domain) and foldings in x, y and z. The files are the
single description of the corpus: lab/corpus-tools/corpus_measure times and profiles them on a
GPU, tests/accuracy/accuracy predicts them and compares. Run it again after editing this
script; the output is deterministic (sorted keys, fixed order). With --heldout it
writes tests/accuracy/corpus/heldout/*.json instead: kernels kept out of every fit; with
--layers tests/accuracy/corpus/layers/*.json: 3-D stencils on domains whose z layers straddle
the L2, the data of the layer-condition miss curve; with --heldout2
tests/accuracy/corpus/heldout2/*.json: kernels measured after model 2026.11-20 was fixed; with
--depth tests/accuracy/corpus/depth/*.json: blocks of one thread count and growing depth in z;
with --heldout3 tests/accuracy/corpus/heldout3/*.json: kernels measured after model 2026.11-21;
with --heldout4 tests/accuracy/corpus/heldout4/*.json: kernels measured after model 2026.11-22;
with --heldout5 tests/accuracy/corpus/heldout5/*.json: kernels measured after model 2026.11-24;
with --heldout6 tests/accuracy/corpus/heldout6/*.json: kernels measured after model 2026.11-28;
with --heldout7 tests/accuracy/corpus/heldout7/*.json: kernels written before the changes to
model 2026.11-28 of 2026-11-29's second session were chosen; with --heldout8
tests/accuracy/corpus/heldout8/*.json: Ernst et al.'s 1024-thread blocks on other 3-D kernels,
written before a term for the spread of the warps within deep blocks was chosen; with
--heldout9 tests/accuracy/corpus/heldout9/*.json: deep and flat blocks on large and small z
planes, written after model 2026.11-31; with --heldout10 tests/accuracy/corpus/heldout10/*.json:
in-plane stencils in deep blocks (the access of Rösti's V100 timings), written after model
2026.11-34; with --heldout11 tests/accuracy/corpus/heldout11/*.json: boxes and an x-line whose
loads wait on their own warp's lines, written after model 2026.11-37.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEVICE = "H100-SXM5-80GB"

BLOCKS_3D = [
    [32, 1, 1], [64, 1, 1], [128, 1, 1], [256, 1, 1], [512, 1, 1], [1024, 1, 1],
    [32, 2, 1], [32, 4, 1], [32, 8, 1], [64, 4, 1], [128, 2, 1], [32, 32, 1],
    [16, 16, 1], [64, 16, 1], [32, 4, 4], [16, 4, 4], [8, 8, 8], [8, 16, 4],
    [4, 32, 2], [2, 64, 4],
]
FOLDED_3D = [[32, 4, 1], [64, 4, 1], [32, 8, 1], [128, 2, 1], [16, 8, 2]]
FOLDINGS_3D = [[1, 1, 2], [1, 1, 4], [1, 2, 1], [2, 1, 1]]

BLOCKS_2D = [
    [32, 1, 1], [64, 1, 1], [128, 1, 1], [256, 1, 1], [512, 1, 1], [1024, 1, 1],
    [32, 2, 1], [32, 4, 1], [32, 8, 1], [32, 16, 1], [32, 32, 1], [64, 4, 1],
    [64, 8, 1], [128, 4, 1], [16, 16, 1], [8, 32, 1], [4, 64, 1], [8, 8, 1],
    [256, 4, 1], [16, 32, 1],
]
FOLDED_2D = [[32, 4, 1], [64, 4, 1], [128, 2, 1], [32, 16, 1], [16, 16, 1]]
FOLDINGS_2D = [[1, 2, 1], [1, 4, 1], [2, 1, 1], [4, 1, 1]]

BLOCKS_1D = [[32, 1, 1], [64, 1, 1], [128, 1, 1], [256, 1, 1], [512, 1, 1], [1024, 1, 1]]
FOLDINGS_1D = [[1, 1, 1], [2, 1, 1], [4, 1, 1], [8, 1, 1]]


def configs(blocks, folded, foldings):
    out = [b + [1, 1, 1] for b in blocks]
    out += [b + f for b in folded for f in foldings]
    return out


def cfg1d():
    return [b + f for b in BLOCKS_1D for f in FOLDINGS_1D]


def shift(expr_var, d):
    return expr_var if d == 0 else f"{expr_var}{d:+d}"


def star(nd, r):
    """Offsets of a star stencil of range r in len(dims) dimensions (centre first)."""
    pts = [[0] * nd]
    for axis in range(nd):
        for d in range(1, r + 1):
            for s in (-d, d):
                p = [0] * nd
                p[axis] = s
                pts.append(p)
    return pts


def box(nd, r):
    rng = range(-r, r + 1)
    if nd == 2:
        return [[i, j] for j in rng for i in rng]
    return [[i, j, k] for k in rng for j in rng for i in rng]


VARS = ["x", "y", "z"]


def stencil_kernel(nd, offsets, r, elem, domain):
    dims = [n + 2 * r for n in domain]
    loads = [[shift(VARS[a], o[a] + r) for a in range(nd)] for o in offsets]
    return {
        "fields": [
            {"name": "u", "element_bytes": elem, "dims": dims, "loads": loads},
            {"name": "v", "element_bytes": elem, "dims": dims,
             "stores": [[shift(VARS[a], r) for a in range(nd)]]},
        ],
        "flops": 2 * len(offsets),
    }


def varcoef_kernel(domain):
    """7-point operator with a coefficient per face: u (7 loads), kx, ky, kz (2 each)."""
    k = stencil_kernel(3, star(3, 1), 1, 8, domain)
    dims = [n + 2 for n in domain]
    for a, name in enumerate(["kx", "ky", "kz"]):
        loads = []
        for d in (1, 2):
            e = ["x+1", "y+1", "z+1"]
            e[a] = shift(VARS[a], d)
            loads.append(e)
        k["fields"].insert(1 + a, {"name": name, "element_bytes": 8, "dims": dims,
                                   "loads": loads})
    k["flops"] = 20
    return k


D3Q19 = [[0, 0, 0], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1],
         [1, 1, 0], [-1, 1, 0], [1, -1, 0], [-1, -1, 0], [1, 0, 1], [-1, 0, 1], [1, 0, -1],
         [-1, 0, -1], [0, 1, 1], [0, -1, 1], [0, 1, -1], [0, -1, -1]]
D3Q27 = [[i, j, k] for k in (-1, 0, 1) for j in (-1, 0, 1) for i in (-1, 0, 1)]


def lbm_kernel(stencil, domain, pull, elem=8):
    """One field per population (structure of arrays) of elem-byte values, ghost layer
    of 1."""
    dims = [n + 2 for n in domain]
    fields = []
    for q, c in enumerate(stencil):
        at = ["x+1", "y+1", "z+1"]
        moved = [shift(VARS[a], 1 - c[a]) if pull else shift(VARS[a], 1 + c[a])
                 for a in range(3)]
        fields.append({"name": f"f{q}", "element_bytes": elem, "dims": dims,
                       "loads": [moved if pull else at]})
    for q, c in enumerate(stencil):
        at = ["x+1", "y+1", "z+1"]
        moved = [shift(VARS[a], 1 + c[a]) for a in range(3)]
        fields.append({"name": f"g{q}", "element_bytes": elem, "dims": dims,
                       "stores": [at if pull else moved]})
    return {"fields": fields, "flops": 10 * len(stencil),
            "precision": "fp64" if elem == 8 else "fp32"}


def strided_copy(n, stride, elem, flops=0):
    """b[x] = a[stride x] (a plain copy for stride 1), n elements of elem bytes."""
    return {"fields": [
        {"name": "a", "element_bytes": elem, "dims": [stride * n],
         "loads": [[f"{stride}*x" if stride > 1 else "x"]]},
        {"name": "b", "element_bytes": elem, "dims": [n], "stores": [["x"]]}], "flops": flops}


def copy_kernels():
    n = 1 << 25
    strided = strided_copy(n, 2, 8)
    m = 1 << 24
    aos = {"fields": [
        {"name": "a", "element_bytes": 4, "dims": [4 * m],
         "loads": [[f"4*x+{i}" if i else "4*x"] for i in range(4)]},
        {"name": "b", "element_bytes": 4, "dims": [4 * m],
         "stores": [[f"4*x+{i}" if i else "4*x"] for i in range(4)]}], "flops": 0}
    return (strided, [n, 1, 1]), (aos, [m, 1, 1])


def transpose_kernel(n):
    return {"fields": [
        {"name": "a", "element_bytes": 4, "dims": [n, n], "loads": [["x", "y"]]},
        {"name": "b", "element_bytes": 4, "dims": [n, n], "stores": [["y", "x"]]}],
        "flops": 0}


def builtin_kernel(domain):
    """2-D 5-point stencil written with CUDA built-ins instead of x and y."""
    gx = "blockIdx.x*blockDim.x+threadIdx.x"
    gy = "blockIdx.y*blockDim.y+threadIdx.y"
    dims = [n + 2 for n in domain]
    loads = [[f"{gx}+{1 + i}" if 1 + i else gx, f"{gy}+{1 + j}" if 1 + j else gy]
             for i, j in star(2, 1)]
    return {"fields": [
        {"name": "u", "element_bytes": 4, "dims": dims, "loads": loads},
        {"name": "v", "element_bytes": 4, "dims": dims, "stores": [[f"{gx}+1", f"{gy}+1"]]}],
        "flops": 10}


# The configurations and domains the 2-D and 3-D families share.
C3 = configs(BLOCKS_3D, FOLDED_3D, FOLDINGS_3D)
C2 = configs(BLOCKS_2D, FOLDED_2D, FOLDINGS_2D)
D3 = [256, 256, 256]
D2 = [8192, 4096, 1]


def collector():
    """A list of families and the function that appends one to it."""
    fam = []

    def add(name, what, kernel, domain, cfgs):
        fam.append({"family": name, "description": what, "device": DEVICE,
                    "kernel": kernel, "domain": domain, "configs": cfgs})
    return fam, add


def families():
    fam, add = collector()

    add("star3d_r1_f64", "3-D 7-point star, double, 256^3",
        stencil_kernel(3, star(3, 1), 1, 8, D3), D3, C3)
    add("star3d_r1_f32", "3-D 7-point star, float, 256^3",
        stencil_kernel(3, star(3, 1), 1, 4, D3), D3, C3)
    add("star3d_r4_f64", "3-D 25-point star (range 4), double, 256^3",
        stencil_kernel(3, star(3, 4), 4, 8, D3), D3, C3)
    add("box3d_r1_f64", "3-D 27-point box, double, 256^3",
        stencil_kernel(3, box(3, 1), 1, 8, D3), D3, C3)
    add("varcoef3d_f64", "3-D 7-point variable-coefficient operator, double, 256^3",
        varcoef_kernel(D3), D3, C3)
    add("star2d_r1_f32", "2-D 5-point star, float, 8192x4096",
        stencil_kernel(2, star(2, 1), 1, 4, D2[:2]), D2, C2)
    add("box2d_r1_f32", "2-D 9-point box, float, 8192x4096",
        stencil_kernel(2, box(2, 1), 1, 4, D2[:2]), D2, C2)
    add("star2d_r4_f64", "2-D 17-point star (range 4), double, 8192x4096",
        stencil_kernel(2, star(2, 4), 4, 8, D2[:2]), D2, C2)
    dl = [160, 160, 160]
    add("d3q19_pull_f64", "D3Q19 LBM stream, pull, structure of arrays, double, 160^3",
        lbm_kernel(D3Q19, dl, True), dl, C3)
    add("d3q19_push_f64", "D3Q19 LBM stream, push, structure of arrays, double, 160^3",
        lbm_kernel(D3Q19, dl, False), dl, C3)
    d27 = [128, 128, 128]
    add("d3q27_pull_f64", "D3Q27 LBM stream, pull, structure of arrays, double, 128^3",
        lbm_kernel(D3Q27, d27, True), d27, C3)
    add("transpose2d_f32", "2-D transposed copy b[y][x] = a[x][y], float, 8192x8192",
        transpose_kernel(8192), [8192, 8192, 1], C2)
    (strided, ds), (aos, da) = copy_kernels()
    add("copy_strided_f64", "1-D strided copy b[x] = a[2x], double, 2^25", strided, ds,
        cfg1d())
    add("copy_aos_f32", "1-D array-of-structs copy (4 floats per element), 2^24", aos, da,
        cfg1d())
    add("builtin2d_f32", "2-D 5-point star written with CUDA built-ins, float, 8192x4096",
        builtin_kernel(D2[:2]), D2, [b + [1, 1, 1] for b in BLOCKS_2D])
    # float LBM (added 2026-11-27, after the held-out D3Q19 pull in float showed float
    # LBM moving 15 % less DRAM bandwidth than double; docs/accuracy.md)
    add("d3q19_push_f32", "D3Q19 LBM stream, push, structure of arrays, float, 160^3",
        lbm_kernel(D3Q19, dl, False, 4), dl, C3)
    add("d3q27_pull_f32", "D3Q27 LBM stream, pull, structure of arrays, float, 128^3",
        lbm_kernel(D3Q27, d27, True, 4), d27, C3)
    # float stencils with many loads per update (added 2026-11-27, after the held-out
    # 27-point float box ran 11-25 % below its prediction at about 0.48 warp load/store
    # instructions per cycle and SM: the L1 request rate, docs/model.md)
    add("box2d_r2_f32", "2-D 25-point box (range 2), float, 8192x4096",
        stencil_kernel(2, box(2, 2), 2, 4, D2[:2]), D2, C2)
    add("star2d_r4_f32", "2-D 17-point star (range 4), float, 8192x4096",
        stencil_kernel(2, star(2, 4), 4, 4, D2[:2]), D2, C2)
    do = [300, 150, 120]
    add("star3d_r1_f64_odd", "3-D 7-point star, double, odd domain 300x150x120",
        stencil_kernel(3, star(3, 1), 1, 8, do), do, C3)
    do2 = [1000, 3001, 1]
    add("star2d_r1_f64_odd", "2-D 5-point star, double, odd domain 1000x3001",
        stencil_kernel(2, star(2, 1), 1, 8, do2[:2]), do2, C2)
    return fam


def triad_kernel(n):
    return {"fields": [
        {"name": "b", "element_bytes": 8, "dims": [n], "loads": [["x"]]},
        {"name": "c", "element_bytes": 8, "dims": [n], "loads": [["x"]]},
        {"name": "a", "element_bytes": 8, "dims": [n], "stores": [["x"]]}], "flops": 2}


def heldout_families():
    """Kernels no parameter was ever fitted on (tests/accuracy/corpus/heldout/): measured after
    model 2026.11-19 was fixed, to say how the model does on kernels it has not seen
    (docs/accuracy.md, "Held-out kernels")."""
    fam, add = collector()

    add("star3d_r2_f32", "3-D 13-point star (range 2), float, 256^3",
        stencil_kernel(3, star(3, 2), 2, 4, D3), D3, C3)
    add("box3d_r1_f32", "3-D 27-point box, float, 256^3",
        stencil_kernel(3, box(3, 1), 1, 4, D3), D3, C3)
    add("star2d_r2_f64", "2-D 9-point star (range 2), double, 8192x4096",
        stencil_kernel(2, star(2, 2), 2, 8, D2[:2]), D2, C2)
    add("box2d_r2_f64", "2-D 25-point box (range 2), double, 8192x4096",
        stencil_kernel(2, box(2, 2), 2, 8, D2[:2]), D2, C2)
    n = 1 << 25
    add("triad_f64", "1-D triad a[x] = b[x] + s*c[x], double, 2^25", triad_kernel(n),
        [n, 1, 1], cfg1d())
    df = [1024, 1024, 32]
    add("star3d_r1_f64_flat", "3-D 7-point star, double, flat domain 1024x1024x32",
        stencil_kernel(3, star(3, 1), 1, 8, df), df, C3)
    dl = [160, 160, 160]
    add("d3q19_pull_f32", "D3Q19 LBM stream, pull, structure of arrays, float, 160^3",
        lbm_kernel(D3Q19, dl, True, 4), dl, C3)
    return fam


def heldout2_families():
    """Kernels measured after model 2026.11-20 was fixed (tests/accuracy/corpus/heldout2/): its
    L1 request limit and its layer condition never saw them (docs/accuracy.md,
    "Held-out kernels, second set")."""
    fam, add = collector()
    add("box2d_r3_f32", "2-D 49-point box (range 3), float, 8192x4096",
        stencil_kernel(2, box(2, 3), 3, 4, D2[:2]), D2, C2)
    dbl = [1024, 1024, 24]
    add("box3d_r1_f32_layers", "3-D 27-point box, float, 1024x1024x24",
        stencil_kernel(3, box(3, 1), 1, 4, dbl), dbl, C3)
    dsl = [1280, 1280, 20]
    add("star3d_r2_f64_layers", "3-D 13-point star (range 2), double, 1280x1280x20",
        stencil_kernel(3, star(3, 2), 2, 8, dsl), dsl, C3)
    return fam


# The layer scan's configurations: unfolded blocks from flat to cubic, and the foldings
# whose reuse of z layers differs most (in z 2 and 4, in y, in x).
L3 = ([b + [1, 1, 1] for b in [[256, 1, 1], [1024, 1, 1], [128, 2, 1], [64, 4, 1],
                               [32, 8, 1], [32, 4, 4], [16, 8, 2]]]
      + [[128, 2, 1] + f for f in FOLDINGS_3D]
      + [[32, 8, 1, 1, 1, 2], [32, 8, 1, 1, 1, 4], [16, 8, 2, 1, 1, 2]])


def layer_families():
    """3-D stencils on domains whose z layers straddle the L2 (tests/accuracy/corpus/layers/):
    what the reuse of a layer between the passes of its neighbours costs when a few of
    them no longer fit, the range the corpus' 256^3 domains never reach (the L2's
    capacity-miss curve of z layers, docs/model.md "Layer conditions on Hopper"). The
    held-out flat domain 1024x1024x32 is not among them."""
    fam, add = collector()
    for nx, nz in [(512, 128), (640, 96), (768, 64), (896, 48), (1152, 24), (1280, 20),
                   (1536, 16), (2048, 12)]:
        d = [nx, nx, nz]
        add(f"star3d_r1_f64_l{nx}", f"3-D 7-point star, double, {nx}x{nx}x{nz}",
            stencil_kernel(3, star(3, 1), 1, 8, d), d, L3)
    for nx, nz in [(1280, 20), (1536, 16), (2048, 12)]:
        d = [nx, nx, nz]
        add(f"star3d_r1_f32_l{nx}", f"3-D 7-point star, float, {nx}x{nx}x{nz}",
            stencil_kernel(3, star(3, 1), 1, 4, d), d, L3)
    for nx, nz in [(768, 64), (1152, 24)]:
        d = [nx, nx, nz]
        add(f"box3d_r1_f64_l{nx}", f"3-D 27-point box, double, {nx}x{nx}x{nz}",
            stencil_kernel(3, box(3, 1), 1, 8, d), d, L3)
    return fam


# The block-depth scan's configurations: blocks of 128, 256 and 512 threads whose depth
# in z (bz) goes from 1 to 16 at a fixed width in x, and the z-folded flat blocks that
# reach the same reuse of z layers by stepping instead.
DEPTH = ([b + [1, 1, 1] for b in [
    [32, 16, 1], [32, 8, 2], [32, 4, 4], [32, 2, 8], [32, 1, 16],
    [64, 8, 1], [64, 4, 2], [64, 2, 4], [64, 1, 8],
    [128, 4, 1], [128, 2, 2], [128, 1, 4], [256, 2, 1], [256, 1, 2],
    [32, 8, 1], [32, 4, 2], [32, 2, 4], [32, 1, 8],
    [64, 4, 1], [64, 2, 2], [64, 1, 4], [128, 2, 1], [128, 1, 2], [256, 1, 1],
    [32, 4, 1], [32, 2, 2], [32, 1, 4], [64, 2, 1], [64, 1, 2], [128, 1, 1],
    [16, 4, 4], [8, 8, 8]]]
    + [b + [1, 1, 4] for b in [[128, 2, 1], [64, 4, 1], [32, 8, 1], [32, 4, 1]]])


def depth_families():
    """3-D stencils over blocks of the same thread count and growing depth in z
    (tests/accuracy/corpus/depth/): the corpus' cubic blocks (32x4x4, 16x4x4, 8x8x8) of 3-D
    stars run 5-18 % below their prediction at the DRAM volume the model predicts,
    while those of the variable-coefficient operator do not (docs/accuracy.md)."""
    fam, add = collector()
    add("star3d_r1_f64_depth", "3-D 7-point star, double, 256^3",
        stencil_kernel(3, star(3, 1), 1, 8, D3), D3, DEPTH)
    dsl = [1280, 1280, 20]
    add("star3d_r2_f64_flat_depth", "3-D 13-point star (range 2), double, 1280x1280x20",
        stencil_kernel(3, star(3, 2), 2, 8, dsl), dsl, DEPTH)
    add("varcoef3d_f64_depth", "3-D 7-point variable-coefficient operator, double, 256^3",
        varcoef_kernel(D3), D3, DEPTH)
    add("star3d_r1_f32_depth", "3-D 7-point star, float, 256^3",
        stencil_kernel(3, star(3, 1), 1, 4, D3), D3, DEPTH)
    return fam


def heldout3_families():
    """Kernels measured after model 2026.11-21 was fixed (tests/accuracy/corpus/heldout3/): its
    deep-block term over the depth scan's configurations, on kernels and domains it was
    not fitted on (docs/accuracy.md, "Held-out kernels, third set")."""
    fam, add = collector()
    d3 = [1536, 1536, 16]
    add("star3d_r3_f64_flat", "3-D 19-point star (range 3), double, 1536x1536x16",
        stencil_kernel(3, star(3, 3), 3, 8, d3), d3, DEPTH)
    add("star3d_r2_f32_flat", "3-D 13-point star (range 2), float, 1536x1536x16",
        stencil_kernel(3, star(3, 2), 2, 4, d3), d3, DEPTH)
    dv = [1024, 1024, 32]
    add("varcoef3d_f64_flat", "3-D 7-point variable-coefficient operator, double, 1024x1024x32",
        varcoef_kernel(dv), dv, DEPTH)
    return fam


D3Q15 = [[0, 0, 0], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1],
         [1, 1, 1], [-1, 1, 1], [1, -1, 1], [-1, -1, 1], [1, 1, -1], [-1, 1, -1],
         [1, -1, -1], [-1, -1, -1]]


def heldout4_families():
    """Kernels measured after model 2026.11-22 was fixed (tests/accuracy/corpus/heldout4/): the
    combination of its on-chip limits on kernels where several of them lie close (many
    loads per update in double and float, 2-D and 3-D), an LBM stencil it has not seen,
    and two 1-D copies for the comparison with a fixed block (docs/accuracy.md,
    "Held-out kernels, fourth set")."""
    fam, add = collector()
    add("star3d_r3_f64", "3-D 19-point star (range 3), double, 256^3",
        stencil_kernel(3, star(3, 3), 3, 8, D3), D3, C3)
    add("box2d_r1_f64", "2-D 9-point box, double, 8192x4096",
        stencil_kernel(2, box(2, 1), 1, 8, D2[:2]), D2, C2)
    add("star2d_r3_f32", "2-D 13-point star (range 3), float, 8192x4096",
        stencil_kernel(2, star(2, 3), 3, 4, D2[:2]), D2, C2)
    dl = [160, 160, 160]
    add("d3q15_pull_f64", "D3Q15 LBM stream, pull, structure of arrays, double, 160^3",
        lbm_kernel(D3Q15, dl, True), dl, C3)
    n = 1 << 25
    add("copy_strided3_f32", "1-D strided copy b[x] = a[3x], float, 2^25",
        strided_copy(n, 3, 4), [n, 1, 1], cfg1d())
    add("scale_f64", "1-D scaled copy b[x] = s*a[x], double, 2^25",
        strided_copy(n, 1, 8, flops=1), [n, 1, 1], cfg1d())
    return fam


def streams(loaded, stored, elem, domain, flops=0):
    """Every loaded array read and every stored array written at the lattice point:
    a copy, a sum or a triad over the domain (1-D, 2-D or 3-D)."""
    point = ["x", "y", "z"][:sum(1 for d in domain if d > 1) or 1]
    dims = [d for d in domain if d > 1] or [domain[0]]
    return {"fields": [{"name": n, "element_bytes": elem, "dims": dims, "loads": [point]}
                       for n in loaded] +
            [{"name": n, "element_bytes": elem, "dims": dims, "stores": [point]}
             for n in stored], "flops": flops}


def heldout5_families():
    """Kernels measured after model 2026.11-24 was fixed (tests/accuracy/corpus/heldout5/): streams
    whose best configurations run at the DRAM cap that model introduced (1-D, 2-D and
    3-D, float and double, two to four arrays, an array of structs of three doubles), to
    say whether the cap ranks kernels it has not seen (docs/accuracy.md, "Held-out
    kernels, fifth set")."""
    fam, add = collector()
    n = 1 << 26
    add("triad_f32", "1-D triad a[x] = b[x] + s*c[x], float, 2^26",
        streams(["b", "c"], ["a"], 4, [n, 1, 1], flops=2), [n, 1, 1], cfg1d())
    n = 1 << 25
    add("sum3_f64", "1-D sum d[x] = a[x] + b[x] + c[x], double, 2^25",
        streams(["a", "b", "c"], ["d"], 8, [n, 1, 1], flops=2), [n, 1, 1], cfg1d())
    m = 1 << 23
    add("copy_aos3_f64", "1-D copy of an array of structs of three doubles, 2^23 structs",
        {"fields": [
            {"name": "a", "element_bytes": 8, "dims": [3 * m],
             "loads": [[f"3*x+{i}" if i else "3*x"] for i in range(3)]},
            {"name": "b", "element_bytes": 8, "dims": [3 * m],
             "stores": [[f"3*x+{i}" if i else "3*x"] for i in range(3)]}], "flops": 0},
        [m, 1, 1], cfg1d())
    add("copy2d_f64", "2-D copy b[x][y] = a[x][y], double, 8192x4096",
        streams(["a"], ["b"], 8, D2), D2, C2)
    add("copy3d_f32", "3-D copy b = a, float, 256^3", streams(["a"], ["b"], 4, D3), D3, C3)
    return fam


def heldout6_families():
    """Kernels written and measured after model 2026.11-28 was fixed
    (tests/accuracy/corpus/heldout6/): D3Q27 on the compute corpus's 160^3 through cudagen, pull
    in double and push in float (the cap of the DRAM streams term at dram_streams_most arrays,
    chosen on the compute corpus and the 128^3 pull), and two float stencils with more loads per
    warp step than the L1 request burst (a 2-D 81-point box, a 3-D range-6 star: 82 and 38)
    (docs/accuracy.md, "Held-out kernels, sixth set")."""
    fam, add = collector()
    d = [160, 160, 160]
    add("d3q27_pull_f64_160", "D3Q27 LBM stream, pull, structure of arrays, double, 160^3",
        lbm_kernel(D3Q27, d, True), d, C3)
    add("d3q27_push_f32_160", "D3Q27 LBM stream, push, structure of arrays, float, 160^3",
        lbm_kernel(D3Q27, d, False, 4), d, C3)
    add("box2d_r4_f32", "2-D 81-point box (range 4), float, 8192x4096",
        stencil_kernel(2, box(2, 4), 4, 4, D2[:2]), D2, C2)
    add("star3d_r6_f32", "3-D 37-point star (range 6), float, 256^3",
        stencil_kernel(3, star(3, 6), 6, 4, D3), D3, C3)
    return fam


def heldout7_families():
    """Kernels written before the second session of 2026-11-29 chose its model changes
    (tests/accuracy/corpus/heldout7/): float and double 2-D boxes beyond the corpus' ranges
    (121 and 49 points: L1-bound, the L1 wavefronts of a block's shape), and 3-D stars of
    range 4 in float and range 5 in double folded in y and z (Ernst et al.'s kind of kernel
    on the corpus' blocks) (docs/accuracy.md, "Held-out kernels")."""
    fam, add = collector()
    add("box2d_r5_f32", "2-D 121-point box (range 5), float, 8192x4096",
        stencil_kernel(2, box(2, 5), 5, 4, D2[:2]), D2, C2)
    add("box2d_r3_f64", "2-D 49-point box (range 3), double, 8192x4096",
        stencil_kernel(2, box(2, 3), 3, 8, D2[:2]), D2, C2)
    add("star3d_r4_f32", "3-D 25-point star (range 4), float, 256^3",
        stencil_kernel(3, star(3, 4), 4, 4, D3), D3, C3)
    add("star3d_r5_f64", "3-D 31-point star (range 5), double, 256^3",
        stencil_kernel(3, star(3, 5), 5, 8, D3), D3, C3)
    return fam


# Ernst et al.'s search space (1024 threads, bx and by powers of two, bz <= 64), 20 of its 56
# shapes from 16 to 1024 wide and 1 to 32 deep, each unfolded and folded 2 in y and in z.
ERNST_SHAPES = [[16, 2, 32], [16, 4, 16], [16, 8, 8], [16, 16, 4], [16, 64, 1], [32, 1, 32],
                [32, 2, 16], [32, 4, 8], [32, 8, 4], [32, 32, 1], [64, 1, 16], [64, 2, 8],
                [64, 4, 4], [64, 16, 1], [128, 1, 8], [128, 2, 4], [128, 8, 1], [256, 1, 4],
                [256, 4, 1], [1024, 1, 1]]
C_ERNST = [b + f for b in ERNST_SHAPES for f in [[1, 1, 1], [1, 2, 1], [1, 1, 2]]]


def heldout8_families():
    """Kernels written before a term for the spread of the warps' work within deep blocks was
    chosen (tests/accuracy/corpus/heldout8/): Ernst et al.'s 1024-thread blocks, deep and flat,
    unfolded and folded 2 in y and z, on a 7-point double star, a range-2 float star and a
    27-point float box (lab/2026-11-29-ernst/deepflat measured the shortfall of deep blocks
    on their range-4 star only)."""
    fam, add = collector()
    d = [512, 512, 512]
    add("star3d_r1_f64_1024", "3-D 7-point star, double, 512^3, 1024-thread blocks",
        stencil_kernel(3, star(3, 1), 1, 8, d), d, C_ERNST)
    add("star3d_r2_f32_1024", "3-D 13-point star (range 2), float, 512^3, 1024-thread blocks",
        stencil_kernel(3, star(3, 2), 2, 4, d), d, C_ERNST)
    add("box3d_r1_f32_1024", "3-D 27-point box, float, 512^3, 1024-thread blocks",
        stencil_kernel(3, box(3, 1), 1, 4, d), d, C_ERNST)
    return fam


PLANES_R4 = [[64, 16, 1], [32, 32, 1], [64, 4, 4], [32, 4, 8], [16, 8, 8], [32, 2, 16],
             [16, 4, 16], [32, 1, 32], [16, 2, 32], [16, 1, 64]]
PLANES_R1 = [[256, 1, 1], [64, 4, 1], [32, 8, 1], [32, 4, 2], [32, 2, 4], [32, 1, 8],
             [16, 2, 8], [16, 1, 16], [8, 2, 16], [8, 1, 32]]


def heldout9_families():
    """Blocks flat to 64 deep on large and small z planes (tests/accuracy/corpus/heldout9/),
    written after model 2026.11-31: a 25-point range-4 and a 7-point double star on
    640x512x512 (planes of 2.6 MB, more than a 2 MiB page) and on 256x128x5120 (the same
    points, planes of 0.29 MB), to see whether deep blocks lose to the pages they touch at
    once (lab/2026-11-29-planes)."""
    fam, add = collector()
    for tag, d in (("big", [640, 512, 512]), ("small", [256, 128, 5120])):
        where = f"{d[0]}x{d[1]}x{d[2]}"
        add(f"star3d_r4_f64_{tag}", f"3-D 25-point star (range 4), double, {where}, "
            "1024-thread blocks 1-64 deep, unfolded and folded 2 in z",
            stencil_kernel(3, star(3, 4), 4, 8, d), d,
            [b + f for b in PLANES_R4 for f in ([1, 1, 1], [1, 1, 2])])
        add(f"star3d_r1_f64_{tag}", f"3-D 7-point star, double, {where}, "
            "256-thread blocks 1-32 deep",
            stencil_kernel(3, star(3, 1), 1, 8, d), d, [b + [1, 1, 1] for b in PLANES_R1])
    return fam


# Rösti's 34 V100 block shapes (lab/2026-11-29-v100-rosti: every block >= 32 wide of 32-512
# threads and at most 16 deep), 1024-thread blocks up to 32 deep, and four folded in z.
INPLANE_BLOCKS = ([[bx, by, bz] for bx in (32, 64, 128, 256) for by in (1, 2, 4, 8, 16)
                   for bz in (1, 2, 4, 8, 16) if 32 <= bx * by * bz <= 512] +
                  [[1024, 1, 1], [256, 4, 1], [64, 1, 16], [32, 1, 32], [32, 2, 16]])
INPLANE_FOLDED = [[32, 4, 1], [128, 2, 1], [64, 1, 4], [32, 1, 8]]


def inplane_kernel(elem, domain, coeff):
    """Rösti's horizontal diffusion access (andrej/stencil-performance, regular grid): 13
    points of the x-y plane ((0,0), (+-1,0), (0,+-1), (+-2,0), (0,+-2), (+-1,+-1)) of a field
    with a halo of 2 in x and y, a coefficient field at the centre when coeff, one store."""
    dims = [domain[0] + 4, domain[1] + 4, domain[2]]
    pts = [[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1], [2, 0], [-2, 0], [0, 2], [0, -2],
           [1, 1], [1, -1], [-1, 1], [-1, -1]]
    centre = ["x+2", "y+2", "z"]
    fields = [{"name": "in", "element_bytes": elem, "dims": dims,
               "loads": [[shift("x", dx + 2), shift("y", dy + 2), "z"] for dx, dy in pts]}]
    if coeff:
        fields.append({"name": "coeff", "element_bytes": elem, "dims": dims, "loads": [centre]})
    fields.append({"name": "out", "element_bytes": elem, "dims": dims, "stores": [centre]})
    return {"fields": fields, "flops": 2 * len(pts) + (2 if coeff else 0)}


def heldout10_families():
    """In-plane stencils in deep blocks (tests/accuracy/corpus/heldout10/), written after
    model 2026.11-34: the access pattern of Rösti's V100 timings (13 points of the x-y plane,
    no reuse in z; lab/2026-11-29-v100-rosti) on an H200, whose V100 counterpart loses
    with block depth, on 508x508x64 (Rösti's) and 2044x2044x16 (planes of 33 MB)."""
    fam, add = collector()
    cfgs = [b + [1, 1, 1] for b in INPLANE_BLOCKS] + \
        [b + f for b in INPLANE_FOLDED for f in ([1, 1, 2], [1, 1, 4])]
    for d in ([508, 508, 64], [2044, 2044, 16]):
        where = f"{d[0]}x{d[1]}x{d[2]}"
        add(f"hdiff13_f64_{where}", f"13-point in-plane stencil with a coefficient field "
            f"(Rösti's horizontal diffusion access), double, {where}, blocks up to 32 deep",
            inplane_kernel(8, d, True), d, cfgs)
    d = [1020, 1020, 64]
    add("inplane13_f32_1020x1020x64", "13-point in-plane stencil (Rösti's Laplace-of-Laplace "
        "access), float, 1020x1020x64, blocks up to 32 deep", inplane_kernel(4, d, False), d, cfgs)
    return fam


def xline_kernel(r, elem, domain):
    """2r+1 points along x only of a 3-D field (a star of range r in x, none in y or z): every
    load after the first reads the row the warp's first load missed."""
    return stencil_kernel(3, [[d, 0, 0] for d in range(-r, r + 1)], r, elem, domain)


def heldout11_families():
    """Kernels whose loads wait on their own warp's lines (tests/accuracy/corpus/heldout11/),
    written after model 2026.11-37 chose its wait factor on box125_f32 alone: a 125-point
    double box and a 343-point float box on 256^3, an 81-point double 2-D box, and a 17-point
    x-line (range 8 in x only) in float on 256^3, which waits like a box with no y or z rows
    (docs/model.md "Predicted wavefronts")."""
    fam, add = collector()
    add("box125_f64", "3-D 125-point box (range 2), double, 256^3",
        stencil_kernel(3, box(3, 2), 2, 8, D3), D3, C3)
    add("box343_f32", "3-D 343-point box (range 3), float, 256^3",
        stencil_kernel(3, box(3, 3), 3, 4, D3), D3, C3)
    add("box2d_r4_f64", "2-D 81-point box (range 4), double, 8192x4096",
        stencil_kernel(2, box(2, 4), 4, 8, D2[:2]), D2, C2)
    add("xline17_f32", "17 points along x (range 8), float, 256^3",
        xline_kernel(8, 4, D3), D3, C3)
    return fam


# Each option's family list and the directory (under tests/accuracy/corpus/) it writes.
SETS = {"--heldout": ("heldout", heldout_families),
        "--heldout2": ("heldout2", heldout2_families),
        "--layers": ("layers", layer_families),
        "--depth": ("depth", depth_families),
        "--heldout3": ("heldout3", heldout3_families),
        "--heldout4": ("heldout4", heldout4_families),
        "--heldout5": ("heldout5", heldout5_families),
        "--heldout6": ("heldout6", heldout6_families),
        "--heldout7": ("heldout7", heldout7_families),
        "--heldout8": ("heldout8", heldout8_families),
        "--heldout9": ("heldout9", heldout9_families),
        "--heldout10": ("heldout10", heldout10_families),
        "--heldout11": ("heldout11", heldout11_families)}


def main():
    chosen = [a for a in sys.argv[1:] if a in SETS]
    name, make = SETS[chosen[0]] if chosen else ("families", families)
    out = os.path.join(HERE, "..", "..", "tests", "accuracy", "corpus", name)
    os.makedirs(out, exist_ok=True)
    fams = make()
    for f in fams:
        with open(os.path.join(out, f["family"] + ".json"), "w") as fh:
            json.dump(f, fh, indent=1, sort_keys=True)
            fh.write("\n")
    n = sum(len(f["configs"]) for f in fams)
    print(f"{len(fams)} families, {n} configurations -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
