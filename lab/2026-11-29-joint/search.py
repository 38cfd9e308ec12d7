"""Grid over the joint variant's constants: fitted on the compute corpus and lbmconc (by
kernel), judged on every other set as held out. Prints one line per combination, sorted
by the fit objective: python3 search.py > search.txt"""
import itertools
import sys
import joint

J = joint.load_all()
BEFORE = joint.all_figures(J, {})
FIT = ('compute', 'lbmconc_k')
HELD = [s for s in J if s not in FIT + ('lbmconc',)]
TARGETS = [('compute', 'd3q19_bgk_fold_f64'), ('compute', 'd3q27_trt_f32')]


def objective(figs):
    v = [g['err'] + (1 - g['top1']) for s in FIT for f, g in figs[s].items()
         if not (s == 'compute' and f == 'box125_f32')]
    return sum(v) / len(v)


def evaluate(opt):
    after = joint.all_figures(J, opt)
    w_all = joint.worse(BEFORE, after)
    w_held = joint.worse(BEFORE, after, HELD)
    b_all = joint.better(BEFORE, after)
    return {'obj': objective(after), 'targets': [after[s][f]['top1'] for s, f in TARGETS],
            'worse': len(w_all), 'worse_held': len(w_held), 'better': len(b_all),
            'fit_err': sum(joint.summary(after[s])['err'] for s in FIT) / len(FIT),
            'min_top1': min(g['top1'] for s in after if s != 'lbmconc' for f, g in after[s].items()
                            if not (s == 'compute' and f == 'box125_f32'))}


def grid():
    if len(sys.argv) > 1 and sys.argv[1] == 'fine':
        yield from fine()
        return
    for a, trip, b, c, cw, ps in itertools.product(
            [0, 1, 'literal'], [0.5, 1.0, 1.5], [0, 1],
            [None] + [(w0, p, 1500) for w0 in (200, 300, 450, 600, 900) for p in (0.05, 0.1, 0.15, 0.2, 0.3)],
            ['threads', 'inflight'], [1, 0]):
        if (not a and trip != 1.0) or (c is None and cw != 'threads') or (not b and not ps):
            continue
        yield {'a': a, 'trip': trip, 'b': b, 'c': c, 'cw': cw, 'ps': ps}


def fine():
    for a, trip, c, cw, ps in itertools.product(
            [0, 1, 'literal'], [0.5, 1.0], [(w0, p, wref) for w0 in (450, 600, 750, 900)
                                             for p in (0.1, 0.15, 0.2, 0.25) for wref in (1000, 1500, 2048)],
            ['threads', 'inflight'], [1, 0]):
        if not a and trip != 1.0:
            continue
        yield {'a': a, 'trip': trip, 'b': 1, 'c': c, 'cw': cw, 'ps': ps}


if __name__ == '__main__':
    base = evaluate({})
    print('model: objective %.4f fit err %.4f' % (base['obj'], base['fit_err']))
    res = [(evaluate(o), o) for o in grid()]
    if len(sys.argv) > 1 and sys.argv[1] == 'fine':
        res.sort(key=lambda x: (min(x[0]['targets']) < 0.97, x[0]['worse'], x[0]['obj']))
    else:
        res.sort(key=lambda x: x[0]['obj'])
    print('%8s %6s %6s  %5s %5s %5s %6s  %s' % ('obj', 'fold64', 'trt32', 'worse', 'held', 'bett', 'min1', 'option'))
    for e, o in res:
        print('%8.4f %6.1f %6.1f  %5d %5d %5d %6.1f  %s' % (e['obj'], 100 * e['targets'][0], 100 * e['targets'][1],
                                                        e['worse'], e['worse_held'], e['better'], 100 * e['min_top1'], o))
