"""Rules `wf' = wf_model + c x first_touch - d x other` against the measured L1 wavefronts,
offline on the dumps of dumps.sh (${FT_DUMPS:-/tmp/ft_dumps}). Per family: the median
|wf / measured - 1| before and after; per family the top 1 (GLup/s re-combined by
lab/2026-11-29-sass/v2emu.py with the L1 limit scaled by wf_model / wf').
python3 ft.py [screen|detail C D VARIANT OTHER]"""
import glob, json, math, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '2026-11-29-sass'))
import v2emu

D = os.environ.get('FT_DUMPS', '/tmp/ft_dumps')
H200 = (3.83444797551552, 5.1)
H100 = (3.243, 6.2)


def sets():
    out = {}
    for p in sorted(glob.glob(D + '/*.jsonl')):
        name = os.path.basename(p)[:-6]
        fams = {}
        for l in open(p):
            r = json.loads(l)
            fams.setdefault(r['family'], []).append(r)
        out[name] = fams
    return out


def dev(name):
    return H100 if name.startswith('h100') else H200


def other(r, what):
    if what == 'none':
        return 0.0
    if what == 'inst':
        return r['l1_requests_per_update']
    if what == 'wf':
        return r['l1_wavefronts_predicted']
    if what == 'mincyc':  # the loads' fewest cycles, which L1_WF_PER_LOAD_MIN_CYCLE charges
        return r['lockstep']['min_cycles']
    if what == 'l2req':
        return r['volumes']['l2_load_requests']
    raise ValueError(what)


def count(r, var):
    """var: a key of the dump's first_touch, or p:KEY, the same of partial_touch; m:VAR,
    VAR weighted by the block's mean fewest cycles per load (lockstep min_cycles / loads)"""
    if var.startswith('m:'):
        ls = r['lockstep']
        return count(r, var[2:]) * (ls['min_cycles'] / ls['loads'] if ls['loads'] else 0)
    if var.startswith('p:'):
        return r['partial_touch'][var[2:]]
    return r['first_touch'][var]


def wf_new(r, c, d, var, oth):
    return r['l1_wavefronts_predicted'] + c * count(r, var) - d * other(r, oth)


def median(v):
    v = sorted(v)
    n = len(v)
    return 0.0 if not n else (v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2)


def l1_err(rows, f):
    e = [abs(f(r) / r['l1_wavefronts'] - 1) for r in rows
         if r['l1_wavefronts'] is not None and r['l1_wavefronts'] > 0]
    return median(e) if e else None


def top1(rows, setname, f):
    v2emu.SHARP, v2emu.OVERHEAD_US = dev(setname)
    best = max(r['measured'] for r in rows)
    pred = []
    for r in rows:
        p = dict(r['perf'])
        w0, w1 = r['l1_wavefronts_predicted'], f(r)
        if p['l1'] > 0 and w1 > 0:
            p['l1'] *= w0 / w1
        pred.append((v2emu.rep6(v2emu.predict(r, p)), r['measured']))
    pick = max(pred, key=lambda t: t[0])
    return pick[1] / best if best > 0 else 0


def judge(S, c, d, var, oth, with_top1=True):
    """per (set, family): (l1 before, after, top1 before, after)"""
    res = {}
    base = lambda r: r['l1_wavefronts_predicted']
    new = lambda r: wf_new(r, c, d, var, oth)
    for s, fams in S.items():
        for fam, rows in fams.items():
            rows = [r for r in rows if r['measured'] and r['measured'] > 0]
            if not rows:
                continue
            e0, e1 = l1_err(rows, base), l1_err(rows, new)
            t0 = t1 = None
            if with_top1:
                t0, t1 = top1(rows, s, base), top1(rows, s, new)
            res[(s, fam)] = (e0, e1, t0, t1)
    return res


def summary(res):
    worst_l1 = max(((e1 - e0) * 100, k) for k, (e0, e1, t0, t1) in res.items()
                   if e0 is not None)
    worst_t1 = max(((t0 - t1) * 100, k) for k, (e0, e1, t0, t1) in res.items()
                   if t0 is not None)
    nworse = sum(1 for (e0, e1, t0, t1) in res.values()
                 if e0 is not None and e1 - e0 > 0.005)
    nbetter = sum(1 for (e0, e1, t0, t1) in res.values()
                  if e0 is not None and e0 - e1 > 0.005)
    mean0 = sum(v[0] for v in res.values() if v[0] is not None)
    mean1 = sum(v[1] for v in res.values() if v[1] is not None)
    n = sum(1 for v in res.values() if v[0] is not None)
    return worst_l1, worst_t1, nworse, nbetter, 100 * mean0 / n, 100 * mean1 / n


VARS = ['lines', 'sectors', 'lines_inst_major', 'sectors_inst_major']
VARS += ['p:' + v for v in VARS]
OTHERS = ['none', 'inst', 'wf', 'l2req']


def screen(S, vars_):
    box = ('h200_compute', 'box125_f32')
    print('variant other c d | box125 L1 before after, top1 before after | worst L1 rise '
          '(points, family) | worst top1 fall | families L1 worse/better by >0.5 | mean L1')
    for var in vars_:
        for oth in OTHERS:
            cs = [0.25, 0.5, 0.7, 1.0]
            ds = {'none': [0], 'inst': [0.05, 0.1, 0.15, 0.2], 'wf': [0.05, 0.1, 0.15, 0.2],
                  'l2req': [0.1, 0.2, 0.3, 0.45]}[oth]
            for c in cs:
                for d in ds:
                    res = judge(S, c, d, var, oth)
                    e0, e1, t0, t1 = res[box]
                    wl, wt, nw, nb, m0, m1 = summary(res)
                    print('%-18s %-5s %.2f %.2f | %5.1f %5.1f %5.1f %5.1f | %+5.1f %-32s | '
                          '%+5.1f %-32s | %3d/%3d | %.2f -> %.2f' %
                          (var, oth, c, d, 100 * e0, 100 * e1, 100 * t0, 100 * t1, wl[0],
                           '/'.join(wl[1]), wt[0], '/'.join(wt[1]), nw, nb, m0, m1),
                          flush=True)


def detail(S, c, d, var, oth):
    res = judge(S, c, d, var, oth)
    print('set family | L1 median error before -> after (%) | top1 before -> after (%)')
    for (s, fam), (e0, e1, t0, t1) in sorted(res.items()):
        print('%-20s %-28s %6s -> %6s | %5.1f -> %5.1f' %
              (s, fam, '-' if e0 is None else '%.1f' % (100 * e0),
               '-' if e1 is None else '%.1f' % (100 * e1), 100 * t0, 100 * t1))


if __name__ == '__main__':
    S = sets()
    if len(sys.argv) > 1 and sys.argv[1] == 'detail':
        detail(S, float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5])
    else:
        screen(S, sys.argv[2:] if len(sys.argv) > 2 else VARS)
