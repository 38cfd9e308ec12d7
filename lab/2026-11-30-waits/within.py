import sys; sys.path.insert(0, __import__('os').path.dirname(__import__('os').path.abspath(__file__)))
from fit import rows, feats
import numpy as np
var = sys.argv[1] if len(sys.argv) > 1 else 'waits_l'
fams = {}
for r in rows: fams.setdefault((r['set'], r['family']), []).append(r)
out = []
for k, rs in fams.items():
    w = np.array([r['x'][var] for r in rs]); m = np.array([r['l1_wavefronts'] for r in rs])
    p = np.array([r['l1_wavefronts_predicted'] for r in rs])
    res = m - p
    if np.ptp(w) < 0.05 or len(rs) < 4: continue
    wd = w - w.mean(); rd = res - res.mean()
    slope = (wd @ rd) / (wd @ wd); rr = np.corrcoef(wd, rd)[0, 1]
    out.append((slope, rr, k, w.min(), w.max(), m.mean()))
for o in sorted(out): print('%+.3f r %+.2f %-45s %.2f-%.2f  wf %.2f' % (o[0], o[1], '/'.join(o[2]), o[3], o[4], o[5]))
