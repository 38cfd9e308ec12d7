"""Grids over the -36 DRAM terms, emulated on -35's dumps (joint36.py), without recalibrating the
H200: python3 search.py GRID, GRID one of c, d, dq, threads, cap, fine (the forms and ranges tried
in that order; results in search.txt). Objective: joint36.objective (the compute corpus and
lab/2026-11-29-lbmconc by kernel); worse: families of every other H200 set (the streams probe
left out) by joint.worse's bar."""
import itertools
import sys
import joint36 as j

GRIDS = {
    'c': [dict(c=(w0, p, wr), cw=cw, ps=0, mis=1) for w0 in (450, 600, 750, 900)
          for p in (0.1, 0.15, 0.2, 0.3) for wr in (1200, 1500, 2000) for cw in ('inflight', 'threads')],
    'd': [dict(d=(w0, p, a), fw=fw, half=j.STREAMS_HALF * hs) for fw in (1.0, 0.75, 0.5)
          for hs in (1.0, 1.4, 2.0) for w0 in (300, 450, 600) for p in (0.05, 0.08, 0.12)
          for a in (0, 10, 30)],
    'dq': [dict(d=(w0, p, a), fw=fw, dq=q, dw=dw) for fw in (0.75, 0.6, 0.9) for w0 in (450, 600, 750)
           for p in (0.06, 0.08, 0.1, 0.12) for a in (20, 30, 40) for q in (2, 3)
           for dw in ('inflight', 'threads')],
    'threads': [dict(d=(w0, p, a), fw=fw, dq=2, dw='threads') for fw in (0.75, 0.85, 1.0)
                for w0 in (300, 400, 500, 600) for p in (0.04, 0.06, 0.08, 0.1, 0.14) for a in (10, 20, 30)],
    'cap': [dict(d=(w0, p, a), fw=fw, dq=2, dcap=cap) for fw in (0.75, 0.85) for w0 in (450, 600, 750)
            for p in (0.04, 0.06, 0.08, 0.1) for a in (20, 30) for cap in (1500, 2048, 3000, 1e9)],
    'fine': [dict(d=(w0, p, a), fw=fw, dq=2) for fw in (0.7, 0.75, 0.8) for w0 in (500, 600, 700)
             for p in (0.06, 0.07, 0.08, 0.09, 0.1) for a in (25, 30, 35)],
}


def main():
    J = j.load_all36()
    del J['lbmconc']
    before = j.all_figures36(J, {})
    print('model 2026.11-35: objective %.4f' % j.objective(before))
    res = []
    for opt in GRIDS[sys.argv[1]]:
        a = j.all_figures36(J, opt)
        w = j.held_worse(before, a)
        res.append((j.objective(a), len(w), sum(x[3]['top1'] < x[2]['top1'] - 0.005 for x in w),
                    a['compute']['d3q19_bgk_fold_f64']['top1'], j.joint.summary(a['streams'])['err'], opt))
    res.sort(key=lambda x: x[0])
    for r in res[:25]:
        print('objective %.4f  worse %3d (top 1: %d)  d3q19_bgk_fold_f64 %.3f  streams %.4f  %s' % r)


if __name__ == '__main__':
    main()
