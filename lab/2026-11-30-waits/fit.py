"""Least squares of the measured L1 wavefronts on the dumps' terms (the x group of
waits_dump.patch), families weighted alike; per-family median errors before and after.
/usr/bin/python3 fit.py"""
import glob, json, os, sys
import numpy as np
D = os.environ.get('FT_DUMPS', '/tmp/ft2')  # dumps.sh's output
rows = []
for p in sorted(glob.glob(D + '/*.jsonl')):
    s = os.path.basename(p)[:-6]
    for l in open(p):
        r = json.loads(l)
        if r.get('l1_wavefronts') and r['l1_wavefronts'] > 0 and r.get('measured'):
            r['set'] = s
            rows.append(r)
def feats(r, names):
    x = r['x']
    out = []
    for n in names:
        if n == 'one': out.append(1.0)
        elif n == 'mchg':   # M scaled by share of loads that change line
            ls = r['lockstep']['loads']
            out.append(x['load_m'] * (x['changes_l'] / ls if ls else 0))
        elif n == 'mnochg':
            ls = r['lockstep']['loads']
            out.append(x['load_m'] * (1 - (x['changes_l'] / ls if ls else 0)))
        else: out.append(x[n])
    return out
def fit(names, fixed=None):
    fams = {}
    for r in rows: fams.setdefault((r['set'], r['family']), []).append(r)
    A, y, w = [], [], []
    for k, rs in fams.items():
        for r in rs:
            m = r['l1_wavefronts']
            A.append([f / m for f in feats(r, names)]); y.append(1.0); w.append(1 / len(rs) ** .5)
    A, y, w = np.array(A), np.array(y), np.array(w)
    coef, *_ = np.linalg.lstsq(A * w[:, None], y * w, rcond=None)
    return coef
def errs(names, coef):
    fams = {}
    for r in rows:
        pred = sum(c * f for c, f in zip(coef, feats(r, names)))
        fams.setdefault((r['set'], r['family']), []).append(abs(pred / r['l1_wavefronts'] - 1))
    return {k: float(np.median(v)) for k, v in fams.items()}
if __name__ == '__main__':
    base = ['load_c', 'store_c', 'load_m', 'warps']
    e0 = errs(base, [1.075, 1.0, 0.25, 3.0])
    for names in [base, base + ['waits_l'], base + ['waits_s'], base + ['waitg_l'], base+['waitg_s'],
                  ['load_c','store_c','mchg','mnochg','warps'], ['load_c','store_c','mchg','mnochg','warps','waits_l'],
                  ['load_c','store_c','mchg','warps','waits_l'], ['load_c','store_c','mchg','warps','waitg_s']]:
        c = fit(names)
        e = errs(names, c)
        worse = sum(1 for k in e if e[k] - e0[k] > 0.005); better = sum(1 for k in e if e0[k] - e[k] > 0.005)
        wk = max(e, key=lambda k: e[k] - e0[k])
        print(' '.join(names), np.round(c, 3), 'mean %.2f -> %.2f' % (100*np.mean(list(e0.values())), 100*np.mean(list(e.values()))),
              'box125 %.1f -> %.1f' % (100*e0[('h200_compute','box125_f32')], 100*e[('h200_compute','box125_f32')]),
              'worse/better %d/%d' % (worse, better), 'worst %+.1f %s' % (100*(e[wk]-e0[wk]), wk))
