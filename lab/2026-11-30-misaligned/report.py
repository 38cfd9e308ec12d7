"""One -36 variant against -35 on every H200 set (emulated, joint36.py): per-set summaries and
the families that move. python3 report.py 'd=(600,0.07,30),fw=0.8,dq=2' ..."""
import sys
import joint36 as j


def main():
    J = j.load_all36()
    del J['lbmconc']
    before = j.all_figures36(J, {})
    for spec in sys.argv[1:]:
        opt = eval('dict(%s)' % spec)
        after = j.all_figures36(J, opt)
        print('\n==== %s: objective %.4f -> %.4f' % (spec, j.objective(before), j.objective(after)))
        for s in before:
            b, a = j.joint.summary(before[s]), j.joint.summary(after[s])
            print('%-16s top1 %5.1f/%5.1f -> %5.1f/%5.1f  error %5.2f -> %5.2f' % (
                s, 100 * b['top1'], 100 * b['top1_min'], 100 * a['top1'], 100 * a['top1_min'],
                100 * b['err'], 100 * a['err']))
        for sign, rows in (('-', j.joint.worse(before, after)), ('+', j.joint.better(before, after))):
            for s, f, b, a in rows:
                if s != 'streams':
                    print('  %s %-16s %-30s top1 %5.1f -> %5.1f  err %5.2f -> %5.2f' % (
                        sign, s, f, 100 * b['top1'], 100 * a['top1'], 100 * b['err'], 100 * a['err']))


if __name__ == '__main__':
    main()
