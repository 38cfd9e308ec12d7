#!/usr/bin/env python3
"""Where model v2's DRAM store volume exceeds the counters (issue 43), from accuracy --dump.

usage: stores.py FAMILY_DIR DUMP.jsonl [FAMILY ...]

DUMP.jsonl is `tests/accuracy/accuracy --corpus FAMILY_DIR --measured M.jsonl [--device D]
--dump DUMP.jsonl`. Per family (medians over its configurations with counters, B per
lattice update):
  store, left, meas   model dram_store, stores_left_in_l2, ncu dram_store
  excess              store - left - meas
  xlin                the excess were the stores counted along linear addresses (store - nd + lin)
  E                   the partly written sectors' evictions the model adds to dram_store
                      and to dram_load alike (dram_load - dram_load_warm)
  nd, lin             the compulsory store bytes in 64-B fetch units counted per row (the
                      model's N-D count, docs/model.md §5) and along the linear addresses
                      (rows contiguous), for fields whose stores are x+c over the domain
  wS, cS, wL, cL, r   least squares over the configurations: extra writes
                      (meas + left - (store - E)) = wS E + cS and extra reads
                      (ncu dram_load - dram_load_warm) = wL E + cL; r the writes' correlation
"""
import collections
import json
import re
import statistics as st
import sys


def units_nd(off, n, eb, u):
    """fetch units of one row's bytes [off*eb, (off+n)*eb), the row starting a unit"""
    return ((off + n) * eb - 1) // u - (off * eb) // u + 1


def units_linear(off, n, eb, row, u, rows=64):
    """fetch units per row of `rows` consecutive rows of `row` elements, rows contiguous"""
    total, last = 0, -1
    for r in range(rows):
        a = (r * row + off) * eb
        lo, hi = max(a // u, last + 1), (a + n * eb - 1) // u
        if hi >= lo:
            total, last = total + hi - lo + 1, hi
    return total / rows


def store_counts(path):
    """(nd, lin) compulsory store bytes per update, or None where a store is not x+c"""
    d = json.load(open(path))
    n = d['domain'][0]
    nd = lin = 0.0
    for f in d['kernel']['fields']:
        for s in f.get('stores', []):
            m = re.fullmatch(r'\s*x\s*(?:\+\s*(\d+))?\s*', s[0])
            if not m or len(f['dims']) < 2:
                return None
            off, eb = int(m.group(1) or 0), f['element_bytes']
            nd += units_nd(off, n, eb, 64) * 64 / n
            lin += units_linear(off, n, eb, f['dims'][0], 64) * 64 / n
    return nd, lin


def fit(x, y):
    mx, my = st.mean(x), st.mean(y)
    sxx = sum((a - mx) ** 2 for a in x)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    syy = sum((b - my) ** 2 for b in y)
    k = sxy / sxx if sxx else 0.0
    return k, my - k * mx, (sxy / (sxx * syy) ** 0.5 if sxx * syy else 0.0)


def main():
    fam_dir, dump, only = sys.argv[1], sys.argv[2], sys.argv[3:]
    fams = collections.OrderedDict()
    for line in open(dump):
        r = json.loads(line)
        if r.get('dram_m', 0) > 0 and (not only or r['family'] in only):
            fams.setdefault(r['family'], []).append(r)
    print('family                   store   left   meas excess |     E |     nd    lin   xlin |'
          '    wS     cS     wL     cL     r')
    for name, rs in fams.items():
        store = [r['volumes']['dram_store'] for r in rs]
        left = [r['stores_left_in_l2'] for r in rs]
        meas = [r['dram_store_m'] for r in rs]
        evict = [r['volumes']['dram_load'] - r['dram_load_warm'] for r in rs]
        x_store = [m + l - (s - e) for m, l, s, e in zip(meas, left, store, evict)]
        x_load = [r['dram_load_m'] - r['dram_load_warm'] for r in rs]
        excess = [s - l - m for s, l, m in zip(store, left, meas)]
        counts = store_counts(f'{fam_dir}/{name}.json')
        nd, lin = counts if counts else (float('nan'), float('nan'))
        xlin = st.median([x - nd + lin for x in excess])
        ws, cs, rs_ = fit(evict, x_store)
        wl, cl, _ = fit(evict, x_load)
        print(f'{name:24s}{st.median(store):7.2f}{st.median(left):7.2f}{st.median(meas):7.2f}'
              f'{st.median(excess):+7.2f} |{st.median(evict):6.2f} |{nd:7.2f}{lin:7.2f}{xlin:+7.2f} |'
              f'{ws:6.2f}{cs:+7.2f}{wl:6.2f}{cl:+7.2f}{rs_:6.2f}')


if __name__ == '__main__':
    main()
