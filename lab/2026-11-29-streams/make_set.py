#!/usr/bin/env python3
"""Writes this probe's blocks of 160 threads (one row) as a measured set for tests/accuracy:
families/ (one file per layout, element size, arrays and blocks per SM of LEVELS:
kernel.shared_bytes as streams.cu reserved it) and h200.jsonl (both passes of raw/layout*.csv; GLup/s of 160^3 cells).
The layouts as address expressions: streams.cu's modes 0 (aligned), 6 (apadded), 5 (apull),
4 (padded) and 1 (pull). Deterministic; run from anywhere."""
import csv
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
VEL = [(0, 0, 0), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1), (1, 1, 0),
       (-1, -1, 0), (1, -1, 0), (-1, 1, 0), (1, 0, 1), (-1, 0, -1), (1, 0, -1), (-1, 0, 1),
       (0, 1, 1), (0, -1, -1), (0, 1, -1), (0, -1, 1), (1, 1, 1), (-1, -1, -1), (1, 1, -1),
       (-1, -1, 1), (1, -1, 1), (-1, 1, -1), (1, -1, -1), (-1, 1, 1)]
# mode: (name, dims, origin of the interior, loads shifted by the velocities)
LAYOUTS = {0: ('aligned', (160, 160, 160), (0, 0, 0), False),
           6: ('apadded', (192, 162, 162), (32, 1, 1), False),
           5: ('apull', (192, 162, 162), (32, 1, 1), True),
           4: ('padded', (162, 162, 162), (1, 1, 1), False),
           1: ('pull', (162, 162, 162), (1, 1, 1), True)}
SIDE = 160
LEVELS = (1, 2, 3, 4, 6, 8, 12)   # blocks per SM kept of the 1-12 measured


def at(origin, shift):
    return ['%s%+d' % (v, o - s) if o - s else v for v, o, s in zip('xyz', origin, shift)]


def family(mode, elem, n, k, shared):
    name, dims, origin, shifted = LAYOUTS[mode]
    fields = []
    for a in range(n):
        fields.append({'name': 'in%d' % a, 'dims': list(dims), 'element_bytes': elem,
                       'loads': [at(origin, VEL[a] if shifted else (0, 0, 0))]})
    for a in range(n):
        fields.append({'name': 'out%d' % a, 'dims': list(dims), 'element_bytes': elem,
                       'stores': [at(origin, (0, 0, 0))]})
    return {'family': '%s_%s%d_n%d_k%d' % (name, 'f' if elem == 4 else 'd', elem * 8, n, k),
            'description': 'lab/2026-11-29-streams: %d arrays in and %d out, %s layout, %d-byte '
                           'elements, %d blocks of 160 per SM (shared memory)' % (n, n, name, elem, k),
            'device': 'H200-SXM-141GB', 'domain': [SIDE, SIDE, SIDE],
            'configs': [[160, 1, 1, 1, 1, 1]],
            'kernel': {'fields': fields, 'flops': float(n),
                       'precision': 'fp32' if elem == 4 else 'fp64', 'shared_bytes': shared}}


def main():
    keys = ('shift', 'element_bytes', 'arrays_in', 'block', 'blocks_wanted')
    second = {tuple(r[c] for c in keys): r for r in csv.DictReader(open(os.path.join(HERE, 'raw', 'layout2.csv')))}
    os.makedirs(os.path.join(HERE, 'families'), exist_ok=True)
    lines = []
    for r in csv.DictReader(open(os.path.join(HERE, 'raw', 'layout1.csv'))):
        if r['block'] != '160' or int(r['blocks_wanted']) not in LEVELS:
            continue
        mode, elem, n, k = (int(r[c]) for c in ('shift', 'element_bytes', 'arrays_in', 'blocks_per_sm'))
        fam = family(mode, elem, n, k, int(r['shared_bytes']))
        with open(os.path.join(HERE, 'families', fam['family'] + '.json'), 'w') as fh:
            json.dump(fam, fh, sort_keys=True, separators=(',', ':'))
            fh.write('\n')
        r2 = second[tuple(r[c] for c in keys)]
        lines.append({'family': fam['family'], 'block': [160, 1, 1], 'folding': [1, 1, 1],
                      'gpu': 'NVIDIA H200', 'driver': '580.159.04', 'cuda': 13.0,
                      'date': '2026-11-29', 'ms': float(r['ms']),
                      'glups': round(SIDE ** 3 / float(r['ms']) / 1e6, 4),
                      'glups_repeat': round(SIDE ** 3 / float(r2['ms']) / 1e6, 4),
                      'counters': {'registers': int(r['registers'])}})
    with open(os.path.join(HERE, 'h200.jsonl'), 'w') as fh:
        for line in lines:
            fh.write(json.dumps(line, sort_keys=True) + '\n')
    print('%d configurations -> h200.jsonl' % len(lines))


if __name__ == '__main__':
    main()
