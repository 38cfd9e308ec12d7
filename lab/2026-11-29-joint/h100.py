"""(b) and (c) on the H100 sets (no SASS there, so no (a)): the emulation of joint.py with
the H100-SXM5-80GB's parameters (estimator/params.def's defaults: it gives none of its own
model-v2 parameters). Dumps: ${JOINT_H100_DUMPS:-/tmp/joint_h100} (lab/2026-11-29-sass's
fulldump.sh program, --device H100-SXM5-80GB). python3 h100.py > h100.txt"""
import os
import joint
import v2emu
import report

D = os.environ.get('JOINT_H100_DUMPS', '/tmp/joint_h100')
C = joint.C
SETS = {s: os.path.join(C, s) for s in ['families', 'heldout', 'heldout2', 'heldout3', 'heldout4',
                                        'heldout5', 'depth', 'layers']}
SETS['align'] = os.path.join(joint.ROOT, 'lab', '2026-11-23-align', 'families')
# H100-SXM5-80GB: limit_sharpness, launch_overhead_us, dram_overload_bytes_per_sm,
# partial_sectors_half, dram_streams_half, dram_streams_most (params.def defaults)
v2emu.SHARP, v2emu.OVERHEAD_US = 3.243, 6.2
joint.OVERLOAD_BYTES, joint.PARTIAL_HALF = 9.773e+11, 50500
joint.STREAMS_HALF, joint.STREAMS_MOST = 173.8, 1e6
joint.DUMPS, joint.SETS = D, SETS

VARIANTS = [('b', {'b': 1}), ('b_ps0', {'b': 1, 'ps': 0}),
            ('bc', {'b': 1, 'c': report.C_FIT, 'cw': 'inflight', 'ps': 0})]


def main():
    J = {}
    for s in SETS:
        rows = joint.load_set(s)
        for r in rows:
            r['rt'], r['miss'] = float(r['F']), 1.0
            r['resident'] = joint.resident(r, r['fam'])
            r['streams'] = joint.streams_of(r['fam']['kernel'])
            r['has_mix'] = 'instructions' in r['fam']['kernel']
            r['partial_ns'], _ = v2emu.serial_ns(r)
        J[s] = rows
    worst = max(abs(joint.predict(r, {}) / r['predicted'] - 1)
                for s in J for r in J[s] if r['predicted'] > 0)
    print('H100: emulation against the model (%d rows of %d sets): largest relative difference %.1e'
          % (sum(len(v) for v in J.values()), len(J), worst))
    before = joint.all_figures(J, {})
    for k, o in VARIANTS:
        after = joint.all_figures(J, o)
        w, b = joint.worse(before, after), joint.better(before, after)
        print('\n==== %s %s: %d families worse, %d better' % (k, o, len(w), len(b)))
        for s in before:
            x, y = joint.summary(before[s]), joint.summary(after[s])
            print('%-10s top1 %5.1f/%5.1f -> %5.1f/%5.1f  err %5.2f -> %5.2f' % (
                s, 100 * x['top1'], 100 * x['top1_min'], 100 * y['top1'], 100 * y['top1_min'],
                100 * x['err'], 100 * y['err']))
        for sign, lst in (('-', w), ('+', b)):
            for s, f, x, y in lst:
                print('  %s %-10s %-28s top1 %5.1f -> %5.1f  err %5.2f -> %5.2f' % (
                    sign, s, f, 100 * x['top1'], 100 * y['top1'], 100 * x['err'], 100 * y['err']))


if __name__ == '__main__':
    main()
