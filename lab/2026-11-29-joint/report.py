"""results.txt and families.csv of lab/2026-11-29-joint: every H200 set under the model
and under (a), (b), (c) alone and together (joint.py). python3 report.py"""
import csv
import joint

J = joint.load_all()
FIT = ('compute', 'lbmconc', 'lbmconc_k')
C_FIT = (600, 0.15, 1500)
VARIANTS = [
    ('a', 'a alone (round trips missing L1, t_trip = latency_ns)', {'a': 1}),
    ('b', 'b alone (resident blocks)', {'b': 1}),
    ('b_ps0', 'b alone, partial sectors in flight at full blocks', {'b': 1, 'ps': 0}),
    ('c', 'c alone (streams x g(threads x F^0.967), W0 600, P 0.15)', {'c': C_FIT, 'cw': 'inflight'}),
    ('bc_prior', 'b + c as lab/2026-11-29-lbmconc tried it (W = threads, W0 300, P 0.15)',
     {'b': 1, 'c': (300, 0.15, 1500)}),
    ('bc', 'b + c, fitted (W = threads x F^0.967, W0 600, P 0.15, partial sectors at full blocks)',
     {'b': 1, 'c': C_FIT, 'cw': 'inflight', 'ps': 0}),
    ('bc_ps', 'b + c fitted, partial sectors in flight scaled with the resident blocks',
     {'b': 1, 'c': C_FIT, 'cw': 'inflight', 'ps': 1}),
    ('abc', 'a + b + c (t_trip = latency_ns)', {'a': 1, 'b': 1, 'c': C_FIT, 'cw': 'inflight', 'ps': 0}),
    ('abc_half', 'a + b + c, extra round trips at half latency_ns (best fit objective)',
     {'a': 1, 'trip': 0.5, 'b': 1, 'c': C_FIT, 'cw': 'inflight', 'ps': 0}),
]
TARGETS = [('compute', 'd3q19_bgk_fold_f64'), ('compute', 'd3q27_trt_f32'),
           ('compute', 'd3q27_cum_f32'), ('compute', 'box125_f32')]


def line(f):
    print(f.rstrip())


def main():
    worst = max(abs(joint.predict(r, {}) / r['predicted'] - 1)
                for s in J for r in J[s] if r['predicted'] > 0)
    line('emulation against the model (every row of %d sets): largest relative difference %.1e'
         % (len(J) - 1, worst))
    before = joint.all_figures(J, {})
    after = {k: joint.all_figures(J, o) for k, _, o in VARIANTS}
    line('\nPer set: top-1 mean / min %, mean of the families\' median |error| %')
    line('%-16s %-18s' % ('set', 'model') + ''.join('%-18s' % k for k, _, _ in VARIANTS))
    for s in before:
        cells = [joint.summary(before[s])] + [joint.summary(after[k][s]) for k, _, _ in VARIANTS]
        line('%-16s ' % s + ''.join('%5.1f/%5.1f %5.2f  ' % (100 * c['top1'], 100 * c['top1_min'],
                                                             100 * c['err']) for c in cells))
    line('\nTargets (top-1 %, error %):')
    for s, f in TARGETS:
        g = [before[s][f]] + [after[k][s][f] for k, _, _ in VARIANTS]
        line('%-22s ' % f + ''.join('%5.1f %5.2f   ' % (100 * x['top1'], 100 * x['err']) for x in g))
    for k, label, _ in VARIANTS:
        w = joint.worse(before, after[k])
        b = joint.better(before, after[k])
        wh = [x for x in w if x[0] not in FIT]
        line('\n==== %s: %s\nfamilies losing > 0.5 point of top-1 or > 0.3 of error: %d (%d outside '
             'the fit sets); better: %d' % (k, label, len(w), len(wh), len(b)))
        for s, f, x, y in sorted(w, key=lambda t: (t[0] in FIT, t[3]['top1'] - t[2]['top1'])):
            line('  - %-16s %-30s top1 %5.1f -> %5.1f  err %5.2f -> %5.2f' % (
                s, f, 100 * x['top1'], 100 * y['top1'], 100 * x['err'], 100 * y['err']))
        for s, f, x, y in sorted(b, key=lambda t: (t[0] in FIT, t[2]['top1'] - t[3]['top1'])):
            line('  + %-16s %-30s top1 %5.1f -> %5.1f  err %5.2f -> %5.2f' % (
                s, f, 100 * x['top1'], 100 * y['top1'], 100 * x['err'], 100 * y['err']))
    line('\nlbmconc, GLup/s against blocks per SM k (160x1x1): measured / model / b + c fitted')
    for fam in sorted(before['lbmconc_k']):
        rows = sorted([r for r in J['lbmconc'] if r['family'].startswith(fam + '_k')
                       and r['block'][0] == 160], key=lambda r: r['blocks_per_sm'])
        o = dict(VARIANTS[5][2])
        line('%-20s ' % fam + ' '.join('k%d %5.2f/%5.2f/%5.2f' % (
            r['blocks_per_sm'], r['measured'], r['predicted'], joint.predict(r, o)) for r in rows))
    with open('families.csv', 'w', newline='') as fh:
        w = csv.writer(fh, lineterminator='\n')
        w.writerow(['set', 'family', 'variant', 'top1', 'top3', 'rho', 'median_error'])
        for s in before:
            for f in before[s]:
                for k, g in [('model', before[s][f])] + [(k, after[k][s][f]) for k, _, _ in VARIANTS]:
                    w.writerow([s, f, k, '%.4f' % g['top1'], '%.4f' % g['top3'], '%.4f' % g['rho'],
                                '%.4f' % g['err']])


if __name__ == '__main__':
    main()
