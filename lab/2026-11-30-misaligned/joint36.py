"""Model 2026.11-36's DRAM terms emulated offline on model 2026.11-35's full-precision dumps
(lab/2026-11-29-joint's loader and lab/2026-11-29-sass's v2emu, which reproduce -35 to 7e-16).

Options of predict36(r, opt), each acting on the dump's DRAM limit before the limits are combined:
 fw, half   the streams term with an array of e-byte elements counting (8/e)^fw streams and
            dram_streams_half `half` (default: -35's, 1 and the H200's 106.36)
 c          (W0, P, WREF): lab/2026-11-29-joint's (c), the streams term x g(W); with mis=1 only
            for kernels whose stores leave row ends partly written
 d          (W0, P, A): the kept form, DRAM / max(1, Wc / W0)^(P x n^q / (n^q + A^q)), n the
            kernel's arrays, q = dq (default 1), Wc the updates in flight (threads x F^0.9669;
            dw='threads': threads), capped at dcap; only where stores leave row ends partly written
The resident blocks are the dump's (they are in -35), the serial times the dump's.
"""
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '2026-11-29-joint'))
sys.path.insert(0, os.path.join(HERE, '..', '2026-11-29-sass'))
import joint  # noqa: E402
import v2emu  # noqa: E402

joint.SETS['streams'] = os.path.join(joint.ROOT, 'lab', '2026-11-29-streams', 'families')
joint.NO_SASS = joint.NO_SASS + ('streams',)
STREAMS_HALF = joint.STREAMS_HALF


def _offset(e, var):
    m = re.fullmatch(r'\s*%s\s*([+-]\s*\d+)?\s*' % var, e)
    if not m:
        return None
    return int(m.group(1).replace(' ', '')) if m.group(1) else 0


def misaligned_stores(fam):
    """stores whose rows begin or end inside a 32-B sector (x + c stores only; others count as
    misaligned); the C code also checks the plane pitch and the base offset"""
    nx = fam['domain'][0]
    for f in fam['kernel']['fields']:
        eb = f['element_bytes'] if 'element_bytes' in f else 8
        for st in f.get('stores', []):
            c = _offset(st[0], 'x')
            if c is None:
                return True
            rows = len(f['dims']) > 1 and fam['domain'][1] > 1
            if (c * eb) % 32 or ((nx + c) * eb) % 32 or (rows and (f['dims'][0] * eb) % 32):
                return True
    return False


def streams_w(kernel, fw):
    s = sum((8.0 / f['element_bytes']) ** fw for f in kernel['fields'])
    n = len(kernel['fields'])
    return s * joint.STREAMS_MOST / n if n > joint.STREAMS_MOST else s


def load_all36():
    J = joint.load_all()
    for rows in J.values():
        for r in rows:
            r['misaligned'] = misaligned_stores(r['fam'])
    return J


def predict36(r, opt):
    if r['predicted'] <= 0:
        return r['predicted']
    p = dict(r['perf'])
    w = r['active_threads']
    fw, half = opt.get('fw', 1.0), opt.get('half', STREAMS_HALF)
    sh = streams_w(r['fam']['kernel'], fw) / half
    if 'fw' in opt or 'half' in opt:
        p['dram'] *= (1 + r['streams'] / STREAMS_HALF) / (1 + sh)
    if opt.get('c') and (not opt.get('mis') or r['misaligned']):
        wc = w * r['F'] ** 0.9669 if opt.get('cw') == 'inflight' else w
        p['dram'] *= (1 + sh) / (1 + sh * joint.g_streams(wc, *opt['c']))
    if opt.get('d') and r['misaligned']:
        w0, pd, ahalf = opt['d']
        wc = w * r['F'] ** 0.9669 if opt.get('dw', 'inflight') == 'inflight' else w
        wc = min(wc, opt.get('dcap', 1e9))
        n, q = len(r['fam']['kernel']['fields']), opt.get('dq', 1.0)
        gate = n ** q / (n ** q + ahalf ** q) if ahalf > 0 else 1.0
        p['dram'] /= max(1.0, wc / w0) ** (pd * gate)
    pc = v2emu.combine(p, r['warp_active_share'])
    if pc <= 0:
        return 0.0
    return 1 / (1 / pc + r['partial_ns'] + v2emu.OVERHEAD_US * 1e3 / r['lattice_updates'])


def all_figures36(J, opt):
    return {s: joint.figures(J[s], [predict36(r, opt) for r in J[s]]) for s in J}


def objective(fig, fit=('compute', 'lbmconc_k')):
    """mean over the fit sets' families (box125_f32 left out) of median |error| + top-1 shortfall"""
    v = [g['err'] + (1 - g['top1']) for s in fit for f, g in fig[s].items() if f != 'box125_f32']
    return sum(v) / len(v)


def held_worse(before, after, fit=('compute', 'lbmconc_k')):
    return [x for x in joint.worse(before, after) if x[0] not in ('streams',) + fit]
