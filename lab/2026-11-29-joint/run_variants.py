"""Per-set summaries and moving families for the variants of joint.py."""
import sys
import joint

TARGETS = [('compute', 'd3q19_bgk_fold_f64'), ('compute', 'd3q27_trt_f32'),
           ('compute', 'box125_f32'), ('compute', 'd3q27_cum_f32')]


def report(J, before, opt, label, nlist=40):
    after = joint.all_figures(J, opt)
    print('\n==== %s  %s' % (label, opt))
    print('%-16s %-26s %-26s' % ('set', 'top1 mean / min %', 'mean (median) family err %'))
    for s in before:
        b, a = joint.summary(before[s]), joint.summary(after[s])
        print('%-16s %5.1f/%5.1f -> %5.1f/%5.1f   %5.2f (%5.2f) -> %5.2f (%5.2f)' % (
            s, 100 * b['top1'], 100 * b['top1_min'], 100 * a['top1'], 100 * a['top1_min'],
            100 * b['err'], 100 * b['err_med'], 100 * a['err'], 100 * a['err_med']))
    w = joint.worse(before, after)
    bt = joint.better(before, after)
    print('families worse (> 0.5 top-1 or > 0.3 err): %d; better: %d' % (len(w), len(bt)))
    for s, f, b, a in sorted(w, key=lambda x: x[3]['top1'] - x[2]['top1'])[:nlist]:
        print('  - %-16s %-30s top1 %5.1f -> %5.1f  err %5.2f -> %5.2f' % (
            s, f, 100 * b['top1'], 100 * a['top1'], 100 * b['err'], 100 * a['err']))
    for s, f, b, a in sorted(bt, key=lambda x: x[2]['top1'] - x[3]['top1'])[:nlist]:
        print('  + %-16s %-30s top1 %5.1f -> %5.1f  err %5.2f -> %5.2f' % (
            s, f, 100 * b['top1'], 100 * a['top1'], 100 * b['err'], 100 * a['err']))
    for s, f in TARGETS:
        b, a = before[s][f], after[s][f]
        print('  T %-16s %-30s top1 %5.1f -> %5.1f  err %5.2f -> %5.2f' % (
            s, f, 100 * b['top1'], 100 * a['top1'], 100 * b['err'], 100 * a['err']))
    return after


if __name__ == '__main__':
    J = joint.load_all()
    before = joint.all_figures(J, {})
    for spec in sys.argv[1:]:
        opt = eval('dict(%s)' % spec)
        report(J, before, opt, spec)
