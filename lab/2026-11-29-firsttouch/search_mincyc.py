"""The open lead of README.md: the 0.25 wavefront per load's fewest cycles
(L1_WF_PER_LOAD_MIN_CYCLE) charged, in part or whole, to the loads that touch new (or
partly new) granules instead: `wf - d x min_cycles + c x m:count`. Per count: the rule with
the least worst rise of a family's median L1 error among those whose box125_f32 top 1 is
100 %, and over all. python3 search_mincyc.py > search_mincyc.txt"""
import ft

S = ft.sets()
box = ('h200_compute', 'box125_f32')
boxrows = [r for r in S['h200_compute']['box125_f32'] if r['measured'] > 0]
base = {}
for s, fams in S.items():
    for fam, rows in fams.items():
        rows = [r for r in rows if r['measured'] and r['measured'] > 0]
        e0 = ft.l1_err(rows, lambda r: r['l1_wavefronts_predicted'])
        if e0 is not None:
            base[(s, fam)] = (rows, e0)
for var in ['m:lines', 'm:sectors', 'm:p:lines', 'm:p:sectors']:
    best_any = best_box = None
    for di in range(1, 6):
        d = 0.05 * di
        for ci in range(1, 31):
            c = 0.05 * ci
            f = lambda r: ft.wf_new(r, c, d, var, 'mincyc')
            worst, wk = -1e9, None
            for k, (rows, e0) in base.items():
                e1 = ft.l1_err(rows, f)
                if (e1 - e0) * 100 > worst:
                    worst, wk = (e1 - e0) * 100, k
            t1 = ft.top1(boxrows, 'h200_compute', f)
            if best_any is None or worst < best_any[0]:
                best_any = (worst, c, d, wk, t1)
            if t1 > 0.9999 and (best_box is None or worst < best_box[0]):
                best_box = (worst, c, d, wk, t1)
    for tag, b in (('least worst rise', best_any), ('box125 top1 100%', best_box)):
        if b is None:
            print('%-12s %-17s none' % (var, tag))
            continue
        worst, c, d, wk, t1 = b
        res = ft.judge(S, c, d, var, 'mincyc')
        wl, wt, nw, nb, m0, m1 = ft.summary(res)
        e0, e1, a0, a1 = res[box]
        print('%-12s %-17s c %.2f d %.2f | worst L1 rise %+.1f (%s) | worst top1 fall %+.1f '
              '(%s) | %d worse/%d better | mean L1 %.2f -> %.2f | box125 L1 %.1f -> %.1f top1 '
              '%.1f -> %.1f' % (var, tag, c, d, wl[0], '/'.join(wl[1]), wt[0], '/'.join(wt[1]),
                                nw, nb, m0, m1, 100 * e0, 100 * e1, 100 * a0, 100 * a1),
              flush=True)
