import sys; sys.path.insert(0, __import__('os').path.dirname(__import__('os').path.abspath(__file__)))
from fit import rows, feats
import numpy as np
fams = {}
for r in rows: fams.setdefault((r['set'], r['family']), []).append(r)
for var in ['waits_l','waits_s','waitg_l','waitg_s','changes_l']:
  for rel in (0,1):
    num = den = 0
    for k, rs in fams.items():
        w = np.array([r['x'][var] for r in rs]); m = np.array([r['l1_wavefronts'] for r in rs])
        p = np.array([r['l1_wavefronts_predicted'] for r in rs])
        if rel: res = m/p - 1; w = w/p
        else: res = m - p
        wd = w - w.mean(); rd = res - res.mean()
        num += wd @ rd / len(rs); den += wd @ wd / len(rs)
    print(var, rel, 'pooled within slope %.3f' % (num/den))
