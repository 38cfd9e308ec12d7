#!/usr/bin/env python3
"""GB/s against working threads per SM (blocks per SM x block) of streams.cu's runs, the mean of
two passes: python3 table.py raw/modes1.csv raw/modes2.csv [BLOCK] (raw/sides*.csv: modes 7-9)"""
import collections
import csv
import sys

KEYS = ('shift', 'element_bytes', 'arrays_in', 'block', 'blocks_wanted')
MODES = {0: 'aligned', 1: 'pull xyz', 2: 'x only', 3: 'yz only', 4: 'padded', 5: 'apull', 6: 'apadded',
         7: 'push', 8: 'ld mis', 9: 'st mis'}


def load(a, b):
    second = {tuple(r[k] for k in KEYS): float(r['gbs']) for r in csv.DictReader(open(b))}
    t = collections.defaultdict(dict)
    for r in csv.DictReader(open(a)):
        if r['blocks_wanted'] == '0':
            continue
        key = tuple(int(r[k]) for k in KEYS[:4])
        threads = int(r['blocks_per_sm']) * int(r['block'])
        t[key][threads] = (float(r['gbs']) + second[tuple(r[k] for k in KEYS)]) / 2
    return t


def main():
    t = load(sys.argv[1], sys.argv[2])
    block = int(sys.argv[3]) if len(sys.argv) > 3 else 160
    for key in sorted(t):
        if key[3] != block:
            continue
        row = t[key]
        peak = max(row, key=row.get)
        most = max(row)
        print('%-8s %s B %2d arrays in: peak %4.0f GB/s at %4d threads, %4.0f at %4d (%+5.1f %%) | %s' % (
            MODES[key[0]], key[1], key[2], row[peak], peak, row[most], most,
            100 * (row[most] / row[peak] - 1), ' '.join('%d:%.0f' % kv for kv in sorted(row.items()))))


if __name__ == '__main__':
    main()
