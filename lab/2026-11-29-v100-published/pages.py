#!/usr/bin/env python3
"""The 2 MiB pages one wave of blocks touches at once, for the published V100 set.

Run from the repository root: python3 lab/2026-11-29-v100-published/pages.py [DUMP]
For each block of tests/accuracy/corpus/v100_published.jsonl: the distinct 2 MiB pages
of the source (with its range-4 halo) and of the destination that one wave of 160 blocks
(80 SMs x 2 blocks, blocks issued x fastest) touches, averaged over three waves, next to
the measured GLup/s and DRAM GB/s (measured bytes x GLup/s). With DUMP (the --dump of
tests/accuracy/accuracy on the set) it also prints the set's figures when the DRAM limit of
every block is scaled by min(1, R / pages) for a few reaches R: an emulation on the dumped
limits, not the model (docs/model-history.md, "The V100's DRAM limit from a V100").
"""
import json
import sys

NX, NY, NZ, E, PAGE, R, WAVE = 640, 512, 512, 8, 2 << 20, 4, 160
SET = "tests/accuracy/corpus/v100_published.jsonl"


def box_pages(x0, x1, y0, y1, z0, z1):
    x0, x1, y0, y1, z0, z1 = max(x0, 0), min(x1, NX), max(y0, 0), min(y1, NY), max(z0, 0), min(z1, NZ)
    s = set()
    for z in range(z0, z1):
        for y in range(y0, y1):
            a = ((z * NY + y) * NX + x0) * E
            s.update(range(a // PAGE, (a + (x1 - x0) * E - 1) // PAGE + 1))
    return s


def wave_pages(b, starts=(0, 3, 7)):
    bx, by, bz = b
    gx, gy = NX // bx, NY // by
    counts = []
    for k in starts:
        src, dst = set(), set()
        for i in range(k * WAVE, (k + 1) * WAVE):
            x0, y0, z0 = i % gx * bx, (i // gx) % gy * by, i // (gx * gy) * bz
            src |= box_pages(x0 - R, x0 + bx + R, y0 - R, y0 + by + R, z0 - R, z0 + bz + R)
            dst |= box_pages(x0, x0 + bx, y0, y0 + by, z0, z0 + bz)
        counts.append(len(src) + len(dst))
    return sum(counts) / len(counts)


def spearman(a, b):
    def rank(v):
        r = [0] * len(v)
        for k, i in enumerate(sorted(range(len(v)), key=lambda i: v[i])):
            r[i] = k
        return r
    ra, rb, n = rank(a), rank(b), len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb)) / (n * (n * n - 1))


def figures(meas, pred):
    best = max(meas)
    order = sorted(range(len(pred)), key=lambda i: -pred[i])
    err = sorted(abs(p / m - 1) for p, m in zip(pred, meas))
    n = len(err)
    med = err[n // 2] if n % 2 else (err[n // 2 - 1] + err[n // 2]) / 2
    return (f"top-1 {100 * meas[order[0]] / best:.1f} %, top-3 "
            f"{100 * max(meas[i] for i in order[:3]) / best:.1f} %, rho "
            f"{spearman(pred, meas):.2f}, GLup/s error {100 * med:.1f} %")


def main():
    rows = [json.loads(l) for l in open(SET)]
    pages = {tuple(r["block"]): wave_pages(tuple(r["block"])) for r in rows}
    print("pages  block          GLup/s  DRAM GB/s")
    for r in sorted(rows, key=lambda r: (pages[tuple(r["block"])], -r["glups"])):
        c = r["counters"]
        print(f"{pages[tuple(r['block'])]:5.0f}  {str(tuple(r['block'])):14s} {r['glups']:6.2f}"
              f"  {r['glups'] * (c['dram_load'] + c['dram_store']):6.0f}")
    if len(sys.argv) < 2:
        return
    dump = [json.loads(l.replace(":nan", ":null")) for l in open(sys.argv[1])]
    meas = [d["measured"] for d in dump]
    print("as predicted:", figures(meas, [d["predicted"] for d in dump]))
    for reach in (64, 70, 100, 120):
        pred = []
        for d in dump:
            f = min(1, reach / pages[tuple(d["block"])])
            dram = d["perf"]["dram"] * f
            pred.append(d["predicted"] * f if d["limiter"] == "dram" else min(d["predicted"], dram))
        print(f"DRAM limit x min(1, {reach} / pages):", figures(meas, pred))


if __name__ == "__main__":
    main()
