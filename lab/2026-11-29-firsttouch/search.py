"""A finer grid of ft.py's rule `wf + c x count - d x other`: per (count, other) the rules
whose box125_f32 top 1 reaches 100 %, the one with the least worst rise of a family's
median L1 error, and the least worst rise over all rules of the grid (L1 only, then top 1
for the best). python3 search.py [COUNT...] > search.txt (COUNT: ft.py's count names)"""
import sys

import ft

S = ft.sets()
box = ('h200_compute', 'box125_f32')
boxrows = [r for r in S['h200_compute']['box125_f32'] if r['measured'] > 0]
for var in sys.argv[1:] or ft.VARS:
    for oth in ['inst', 'wf', 'l2req']:
        best_any, best_box = None, None
        for ci in range(1, 21):
            c = 0.05 * ci
            for di in range(0, 31):
                d = 0.01 * di
                f = lambda r: ft.wf_new(r, c, d, var, oth)
                worst = -1e9
                for s, fams in S.items():
                    for fam, rows in fams.items():
                        rows = [r for r in rows if r['measured'] and r['measured'] > 0]
                        e0 = ft.l1_err(rows, lambda r: r['l1_wavefronts_predicted'])
                        if e0 is None:
                            continue
                        e1 = ft.l1_err(rows, f)
                        if (e1 - e0) * 100 > worst:
                            worst, wk = (e1 - e0) * 100, (s, fam)
                t1 = ft.top1(boxrows, 'h200_compute', f)
                if best_any is None or worst < best_any[0]:
                    best_any = (worst, c, d, wk, t1)
                if t1 > 0.9999 and (best_box is None or worst < best_box[0]):
                    best_box = (worst, c, d, wk, t1)
        for tag, b in (('least worst rise', best_any), ('box125 top1 100%', best_box)):
            if b is None:
                print('%-18s %-5s %-17s none' % (var, oth, tag))
                continue
            worst, c, d, wk, t1 = b
            res = ft.judge(S, c, d, var, oth)
            wl, wt, nw, nb, m0, m1 = ft.summary(res)
            e0, e1, a0, a1 = res[box]
            print('%-18s %-5s %-17s c %.2f d %.2f | worst L1 rise %+.1f (%s) | worst top1 '
                  'fall %+.1f (%s) | %d worse/%d better | box125 L1 %.1f -> %.1f top1 %.1f -> '
                  '%.1f' % (var, oth, tag, c, d, wl[0], '/'.join(wl[1]), wt[0],
                            '/'.join(wt[1]), nw, nb, 100 * e0, 100 * e1, 100 * a0, 100 * a1),
                  flush=True)
