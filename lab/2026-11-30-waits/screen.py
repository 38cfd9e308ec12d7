"""Candidate wavefront rules judged offline like lab/2026-11-29-firsttouch/ft.py, on the
dumps of dumps.sh: per (set, family) the top 1 and median GLup/s error (v2emu with the L1
limit scaled by the wavefronts' ratio) and the median wavefront error, before and after.
mk: a*C_load + b*C_store + k*M_load + d*warps + c*COUNT; mk2: k1 per further minimum cycle,
k0 per load (the rule of model 2026.11-37); mk3: waits of wide loads weighted cd.
python3 screen.py COUNT runs mk's grid; grid2.txt and grid3.txt came from the loops in
README.md."""
import sys, os, itertools, math
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '2026-11-29-firsttouch'))
os.environ.setdefault('FT_DUMPS', '/tmp/ft2')
import ft

RESIDENT = False  # judge_busy's w: resident warps, else the drained active threads
S = ft.sets()
def mk(a, b, k, d, c, var):
    def f(r):
        x = r['x']
        return a * x['load_c'] + b * x['store_c'] + k * x['load_m'] + d * x['warps'] + c * x[var]
    return f
def judge(f):
    res = {}
    base = lambda r: r['l1_wavefronts_predicted']
    for s, fams in S.items():
        for fam, rows in fams.items():
            rows = [r for r in rows if r['measured'] and r['measured'] > 0]
            if not rows: continue
            res[(s, fam)] = (ft.l1_err(rows, base), ft.l1_err(rows, f), ft.top1(rows, s, base), ft.top1(rows, s, f))
    return res
def report(tag, res, detail=False):
    box = ('h200_compute', 'box125_f32')
    t_worse = [(round(100*(t0-t1),1), k) for k,(e0,e1,t0,t1) in res.items() if t0 - t1 > 0.005]
    t_better = sum(1 for k,(e0,e1,t0,t1) in res.items() if t1 - t0 > 0.005)
    e_w = sum(1 for (e0,e1,t0,t1) in res.values() if e0 is not None and e1 - e0 > 0.005)
    e_b = sum(1 for (e0,e1,t0,t1) in res.values() if e0 is not None and e0 - e1 > 0.005)
    n = sum(1 for v in res.values() if v[0] is not None)
    m0 = 100*sum(v[0] for v in res.values() if v[0] is not None)/n; m1 = 100*sum(v[1] for v in res.values() if v[1] is not None)/n
    e0,e1,t0,t1 = res[box]
    print('%-34s box125 L1 %.1f->%.1f top1 %.1f->%.1f | L1 worse/better %d/%d mean %.2f->%.2f | top1 worse %d better %d: %s' % (
        tag, 100*e0, 100*e1, 100*t0, 100*t1, e_w, e_b, m0, m1, len(t_worse), t_better, sorted(t_worse, reverse=True)[:4]), flush=True)
if __name__ == '__main__':
    var = sys.argv[1]
    for a, k, c in itertools.product([1.075, 1.1, 1.125], [0, 0.1, 0.15, 0.2, 0.25], [0, 0.1, 0.2, 0.3]):
        report('a %.3f k %.2f c %.2f' % (a, k, c), judge(mk(a, 1.0, k, 3.0, c, var)))

def perf_fig(rows, setname, f, K=None, keys=('l1',)):
    """(top 1, median |error|) of rows with wavefronts f and, with K, the on-chip limits
    named in keys times 1 - exp(-w / K) (judge_busy says which w)."""
    ft.v2emu.SHARP, ft.v2emu.OVERHEAD_US = ft.dev(setname)
    best = max(r['measured'] for r in rows)
    pred = []
    for r in rows:
        p = dict(r['perf'])
        w0, w1 = r['l1_wavefronts_predicted'], f(r)
        if p['l1'] > 0 and w1 > 0:
            p['l1'] *= w0 / w1
        if K:
            w = (r['blocks_per_sm'] * r['block'][0] * r['block'][1] * r['block'][2] / 128
                 if RESIDENT else r['active_threads'] / 128)
            for key in keys:
                p[key] *= 1 - math.exp(-w / K)
        pred.append(ft.v2emu.rep6(ft.v2emu.predict(r, p)))
    pick = max(range(len(rows)), key=lambda i: pred[i])
    err = ft.median([abs(pred[i] / rows[i]['measured'] - 1) for i in range(len(rows))])
    return rows[pick]['measured'] / best, err


def judge_perf(f, base=None):
    base = base or (lambda r: r['l1_wavefronts_predicted'])
    res = {}
    for s, fams in S.items():
        for fam, rows in fams.items():
            rows = [r for r in rows if r['measured'] and r['measured'] > 0]
            if not rows: continue
            t0, e0 = perf_fig(rows, s, base); t1, e1 = perf_fig(rows, s, f)
            res[(s, fam)] = (t0, t1, e0, e1, ft.l1_err(rows, base), ft.l1_err(rows, f))
    return res
def report_perf(tag, res, show=0):
    box = ('h200_compute', 'box125_f32')
    tw = sorted(((round(100*(t0-t1),1), '/'.join(k)) for k,(t0,t1,e0,e1,l0,l1) in res.items() if t0 - t1 > 0.005), reverse=True)
    tb = sum(1 for (t0,t1,e0,e1,l0,l1) in res.values() if t1 - t0 > 0.005)
    ew = sorted(((round(100*(e1-e0),1), '/'.join(k)) for k,(t0,t1,e0,e1,l0,l1) in res.items() if e1 - e0 > 0.003), reverse=True)
    eb = sum(1 for (t0,t1,e0,e1,l0,l1) in res.values() if e0 - e1 > 0.003)
    lw = sum(1 for (t0,t1,e0,e1,l0,l1) in res.values() if l0 is not None and l1 - l0 > 0.005)
    lb = sum(1 for (t0,t1,e0,e1,l0,l1) in res.values() if l0 is not None and l0 - l1 > 0.005)
    t0,t1,e0,e1,l0,l1 = res[box]
    print('%-30s box125 top1 %.1f->%.1f err %.1f->%.1f L1 %.1f->%.1f | top1 -%d +%d %s | err +%d -%d %s | L1 +%d -%d' % (
        tag, 100*t0, 100*t1, 100*e0, 100*e1, 100*l0, 100*l1, len(tw), tb, tw[:3], len(ew), eb, ew[:4], lw, lb), flush=True)
    if show:
        for k,(t0,t1,e0,e1,l0,l1) in sorted(res.items()):
            if abs(t1-t0) > 0.005 or abs(e1-e0) > 0.003:
                print('   %-45s top1 %.1f->%.1f err %.1f->%.1f' % ('/'.join(k), 100*t0, 100*t1, 100*e0, 100*e1))

def mk2(a, b, k1, k0, d, c, var='waits_l'):
    def f(r):
        x = r['x']; L = r['lockstep']['loads']
        return a * x['load_c'] + b * x['store_c'] + k1 * (x['load_m'] - L) + k0 * L + d * x['warps'] + c * x[var]
    return f

def mk3(a, b, k1, k0, d, c, cd):
    """waits of wide-element kernels weighted cd instead of c"""
    def f(r):
        x = r['x']; L = r['lockstep']['loads']; M = x['load_m']
        wide = (M - L) / M if M > 0 else 0
        return a * x['load_c'] + b * x['store_c'] + k1 * (M - L) + k0 * L + d * x['warps'] + (c * (1 - wide) + cd * wide) * x['waits_l']
    return f


def judge_busy(f, K, keys=('l1',), base=None, sets=None):
    """judge_perf with the on-chip limits named in keys times 1 - exp(-w / K), w the warps
    per scheduler: resident (RESIDENT) or the latency limit's drained active threads / 128
    (the LSU pipes' share of busy cycles when few warps can issue; K None: no factor)."""
    base = base or (lambda r: r['l1_wavefronts_predicted'])
    res = {}
    for s, fams in S.items():
        if sets and s not in sets:
            continue
        for fam, rows in fams.items():
            rows = [r for r in rows if r['measured'] and r['measured'] > 0]
            if rows:
                (t0, e0), (t1, e1) = perf_fig(rows, s, base), perf_fig(rows, s, f, K, keys)
                res[(s, fam)] = (t0, t1, e0, e1, None, None)
    return res


def report_busy(tag, res, show=()):
    tw = sorted(((round(100 * (t0 - t1), 1), '/'.join(k)) for k, (t0, t1, e0, e1, _, _) in res.items()
                 if t0 - t1 > 0.005), reverse=True)
    tb = sorted(((round(100 * (t1 - t0), 1), '/'.join(k)) for k, (t0, t1, e0, e1, _, _) in res.items()
                 if t1 - t0 > 0.005), reverse=True)
    ew = sorted(((round(100 * (e1 - e0), 1), '/'.join(k)) for k, (t0, t1, e0, e1, _, _) in res.items()
                 if e1 - e0 > 0.003), reverse=True)
    eb = sum(1 for (t0, t1, e0, e1, _, _) in res.values() if e0 - e1 > 0.003)
    m0 = 100 * sum(v[2] for v in res.values()) / len(res)
    m1 = 100 * sum(v[3] for v in res.values()) / len(res)
    print('%-24s top1 -%d %s +%d %s | err +%d -%d mean %.2f->%.2f %s' % (
        tag, len(tw), tw[:4], len(tb), tb[:4], len(ew), eb, m0, m1, ew[:5]), flush=True)
    for k in show:
        t0, t1, e0, e1, _, _ = res[k]
        print('   %-40s top1 %.1f->%.1f err %.1f->%.1f' % ('/'.join(k), 100 * t0, 100 * t1, 100 * e0, 100 * e1))
