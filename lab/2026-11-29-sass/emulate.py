"""Step 3 and 4 of the brief: do the compiled code's dependent round trips explain the
residuals, and what a latency limit from them would do, on every H200 set with SASS.

    python3 emulate.py [--tables]     # needs configs.csv and the dumps (join.py)

Latency limit of model v2 (estimator/v2.c v2_concurrency):
    SMs x threads x F^fold_overlap / latency_ns
replaced by one from the walk (sasswalk.py) of the code that ran:
    SMs x threads x F / (round_trips_per_thread x t_trip)
(a thread does its F updates in round_trips_per_thread dependent memory round trips),
threads the model's working threads per SM. Everything else of the prediction as the
model has it (v2emu.py reproduces `predicted` to 1e-15 before the change).
"""
import math
import sys

import join
import v2emu

J = join.joined()
MISSES = [('compute', 'box125_f32'), ('compute', 'd3q19_bgk_fold_f64'),
          ('compute', 'd3q27_trt_f32'), ('compute', 'd3q27_cum_f32')]


MEASURES = {
    'slope': 'dependent round trips of the walk (dT/dL)',
    'T600': 'T(600)/600: the walk\'s time at L = 600 cycles, issue and arithmetic included',
    'literal': 'the brief\'s literal formula, SMs x threads x F / (round trips per update x t_trip)',
    'slope_miss': 'round trips after the first weighted by the share of loads L1 misses '
                  '(predicted l2_load / l1_load)',
}


def rt_thread(r, measure):
    q = r['sass']
    if measure in ('slope', 'literal'):
        rt = float(q['round_trips'])
        return rt / r['F'] if measure == 'literal' else rt
    if measure == 'slope_miss':
        v = r['volumes']
        m = min(1.0, v['l2_load'] / r['l1_load']) if r['l1_load'] > 0 else 1.0
        return 1 + (float(q['round_trips']) - 1) * m
    return float(q['T600_per_update']) * r['F'] / 600.0  # T(600)/600: issue time included


def new_latency(r, t_trip, measure):
    return (v2emu.SM * r['active_threads'] * r['F'] / (rt_thread(r, measure) * t_trip))


def predictions(rows, t_trip=None, measure='slope'):
    out = []
    for r in rows:
        if r['predicted'] <= 0:
            out.append(r['predicted'])
            continue
        if t_trip is None:
            out.append(v2emu.predict(r))
            continue
        p = dict(r['perf'])
        p['latency'] = new_latency(r, t_trip, measure)
        out.append(v2emu.predict(r, p))
    return out


def figures(rows, pred):
    fams = {}
    for r, p in zip(rows, pred):
        fams.setdefault(r['family'], ([], []))
        fams[r['family']][0].append(r)
        fams[r['family']][1].append(p)
    return {f: v2emu.family_figures(rs, ps) for f, (rs, ps) in fams.items()}


def summary(figs):
    n = len(figs)
    return {'top1': sum(g['top1'] for g in figs.values()) / n,
            'top1_min': min(g['top1'] for g in figs.values()),
            'rho': sum(g['rho'] for g in figs.values()) / n,
            'err': sum(g['err'] for g in figs.values()) / n}


def all_figures(t_trip=None, measure='slope'):
    return {s: figures(J[s], predictions(J[s], t_trip, measure)) for s in J}


def log_error(t_trip, measure):
    """median over every row of every set of |log(predicted / measured)|"""
    e = []
    for s in J:
        for r, p in zip(J[s], predictions(J[s], t_trip, measure)):
            if r['measured'] > 0 and p > 0:
                e.append(abs(math.log(p / r['measured'])))
    return v2emu.median(e)


def mean_family_error(t_trip, measure):
    figs = all_figures(t_trip, measure)
    v = [g['err'] for s in figs for g in figs[s].values()]
    return sum(v) / len(v)


def correlation():
    """within each family (rows demeaned by family): residual log(measured/predicted)
    against x = log(round trips per update x latency / working threads); pooled per set"""
    print('\nStep 3: within-family correlation of log(measured/predicted) with '
          'log(round trips per update x latency_ns / working threads)')
    print('%-16s %5s %7s %7s   %s' % ('set', 'rows', 'r(all)', 'r(near)', 'near: rows whose latency limit is < 2x the prediction'))
    for s in J:
        xs, ys, xn, yn = [], [], [], []
        for f, rs in v2emu.by_family([r for r in J[s] if r['predicted'] > 0 and r['measured'] > 0]).items():
            x = [math.log(float(r['sass']['round_trips_per_update']) * v2emu.LAT_NS / r['active_threads']) for r in rs]
            y = [math.log(r['measured'] / r['predicted']) for r in rs]
            mx, my = sum(x) / len(x), sum(y) / len(y)
            for r, a, b in zip(rs, x, y):
                xs.append(a - mx)
                ys.append(b - my)
                if r['perf']['latency'] < 2 * r['predicted']:
                    xn.append(a - mx)
                    yn.append(b - my)
        print('%-16s %5d %7.3f %7s   (%d near)' % (s, len(xs), pearson(xs, ys),
                                                  '%.3f' % pearson(xn, yn) if len(xn) > 2 else '-', len(xn)))


def implied():
    """the round-trip time a row would need if it were held by its round trips alone:
    SMs x threads x F / (round trips per thread x measured), ns (an upper bound where
    another limit holds it)"""
    print('\nImplied time per round trip (ns) = SMs x threads x F / (round trips x measured GLup/s)')
    pick = [('lbmocc', f) for f in ('copy3d_f32_occ1', 'd3q27_push_f32_160_occ1',
                                    'd3q27_pull_f64_160_occ1', 'd3q27_push_f32_160_occ2',
                                    'd3q27_pull_f64_160_occ2')]
    pick += [('compute', 'd3q27_trt_f32'), ('compute', 'd3q27_cum_f32')]
    for s, fam in pick:
        for r in J[s]:
            if r['family'] != fam or (s == 'compute' and r['block'][0] < 256):
                continue
            rt = float(r['sass']['round_trips'])
            print('  %-8s %-26s %-9s threads %5.0f  round trips %2.0f  measured %5.2f  predicted %5.2f'
                  '  -> %5.0f ns' % (s, fam, 'x'.join(map(str, r['block'])), r['active_threads'], rt,
                                     r['measured'], r['predicted'],
                                     v2emu.SM * r['active_threads'] * r['F'] / (rt * r['measured'])))


def pearson(x, y):
    n = len(x)
    if n < 2:
        return float('nan')
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float('nan')


def table(before, after, label):
    print('\n%s: per set, before -> after (top-1 mean %%, min %%, rho mean, median |error| mean %%)' % label)
    for s in before:
        b, a = summary(before[s]), summary(after[s])
        print('%-16s top1 %5.1f -> %5.1f  min %5.1f -> %5.1f  rho %.3f -> %.3f  err %5.2f -> %5.2f'
              % (s, 100 * b['top1'], 100 * a['top1'], 100 * b['top1_min'], 100 * a['top1_min'],
                 b['rho'], a['rho'], 100 * b['err'], 100 * a['err']))
    worse = []
    for s in before:
        for f in before[s]:
            b, a = before[s][f], after[s][f]
            if a['top1'] < b['top1'] - 0.005 or a['err'] > b['err'] + 0.003:
                worse.append((s, f, b, a))
    print('families that lose > 0.5 point of top-1 or > 0.3 point of error: %d' % len(worse))
    for s, f, b, a in sorted(worse, key=lambda w: w[3]['top1'] - w[2]['top1'])[:40]:
        print('  %-16s %-28s top1 %5.1f -> %5.1f  err %5.2f -> %5.2f  rho %.2f -> %.2f'
              % (s, f, 100 * b['top1'], 100 * a['top1'], 100 * b['err'], 100 * a['err'], b['rho'], a['rho']))
    print('targets:')
    for s, f in MISSES:
        b, a = before[s][f], after[s][f]
        print('  %-16s %-28s top1 %5.1f -> %5.1f  err %5.2f -> %5.2f' % (s, f, 100 * b['top1'], 100 * a['top1'], 100 * b['err'], 100 * a['err']))
    for f in sorted(before['lbmocc']):
        if f.endswith('occ1'):
            b, a = before['lbmocc'][f], after['lbmocc'][f]
            print('  %-16s %-28s top1 %5.1f -> %5.1f  err %5.2f -> %5.2f' % ('lbmocc', f, 100 * b['top1'], 100 * a['top1'], 100 * b['err'], 100 * a['err']))
    b, a = before['ernst']['ernst_3d25pt_r4_f64'], after['ernst']['ernst_3d25pt_r4_f64']
    print('  %-16s %-28s top1 %5.1f -> %5.1f  err %5.2f -> %5.2f  rho %.3f -> %.3f' % ('ernst', 'ernst_3d25pt_r4_f64', 100 * b['top1'], 100 * a['top1'], 100 * b['err'], 100 * a['err'], b['rho'], a['rho']))


def main():
    # the emulation must reproduce the model before anything is changed
    worst = max(abs(v2emu.predict(r) / r['predicted'] - 1) for s in J for r in J[s] if r['predicted'] > 0)
    print('emulation against the model: largest relative difference %.1e' % worst)
    correlation()
    implied()
    before = all_figures()
    measures = sys.argv[1:] or list(MEASURES)
    for measure in measures:
        print('\n==== %s: %s' % (measure, MEASURES[measure]))
        grid = [50 * k for k in range(4, 41)]
        scores = [(mean_family_error(t, measure), t) for t in grid]
        print('mean of the families\' median |error| against t_trip (ns): %s' % (
            ', '.join('%d: %.2f%%' % (t, 100 * e) for e, t in scores[::2])))
        best = min(scores)[1]
        base = log_error(None, measure)
        logs = [(abs(log_error(t, measure) - base), t) for t in grid]
        same = min(logs)[1]
        print('median |log(predicted/measured)| over all rows: model %.4f; at t_trip %d: %.4f' % (
            base, same, log_error(same, measure)))
        for t, label in ((best, 'fitted (least mean family error)'),
                         (same, 'median |log error| as the model\'s'),
                         (v2emu.LAT_NS, 'latency_ns itself')):
            table(before, all_figures(t, measure), '%s, t_trip %.0f ns, %s' % (measure, t, label))


if __name__ == '__main__':
    main()


def write_family_csv(path, variants):
    """per set and family: the model's figures and each variant's (measure, t_trip)"""
    import csv
    before = all_figures()
    after = {v: all_figures(v[1], v[0]) for v in variants}
    with open(path, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['set', 'family', 'variant', 't_trip_ns', 'top1', 'top3', 'rho', 'median_error',
                    'rt_per_update_min', 'rt_per_update_max'])
        for s in before:
            for fam in before[s]:
                rts = [float(r['sass']['round_trips_per_update']) for r in J[s] if r['family'] == fam]
                for name, t, g in [('model', '', before[s][fam])] + [
                        (v[0], v[1], after[v][s][fam]) for v in variants]:
                    w.writerow([s, fam, name, t, '%.4f' % g['top1'], '%.4f' % g['top3'],
                                '%.4f' % g['rho'], '%.4f' % g['err'], '%.3f' % min(rts),
                                '%.3f' % max(rts)])
