import sys; sys.path.insert(0, __import__('os').path.dirname(__import__('os').path.abspath(__file__)))
import fit, numpy as np
from fit import rows
def F(r, n):
    x = r['x']; L = r['lockstep']['loads']
    return {'mx': x['load_m'] - L, 'loads': L}.get(n, None) if n in ('mx','loads') else x[n]
fit.feats = lambda r, names: [F(r, n) for n in names]
base = ['load_c','store_c','load_m','warps']
e0 = fit.errs(base, [1.075,1.0,0.25,3.0])
for names in [base, ['load_c','store_c','mx','loads','warps'], ['load_c','store_c','mx','loads','warps','waits_l'], ['load_c','store_c','mx','warps','waits_l'], ['load_c','store_c','mx','warps']]:
    c = fit.fit(names); e = fit.errs(names, c)
    worse = sum(1 for k in e if e[k]-e0[k] > .005); better = sum(1 for k in e if e0[k]-e[k] > .005)
    print(names, np.round(c,3), 'mean %.2f->%.2f worse/better %d/%d box125 %.1f' % (100*np.mean(list(e0.values())), 100*np.mean(list(e.values())), worse, better, 100*e[('h200_compute','box125_f32')]))
