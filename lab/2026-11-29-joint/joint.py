"""Issue 43: the three measured mechanisms together, emulated offline on every H200 set
from the full-precision dumps (lab/2026-11-29-sass: fulldump.sh, dumps.sh; v2emu.py
reproduces model v2's prediction from them to 1e-15).

 (a) latency from the compiled code: the latency limit divided by 1 + (rt - 1) x TRIP,
     rt = max(1, (1 + (round trips per thread - 1) x m) / F) the round trips per update
     that miss L1, m the predicted L1 miss share (l2_load / l1_load), round trips from
     configs.csv (the SASS walk); TRIP = 1: no new constant ('literal': rt = round trips
     per thread / F, every trip counted).
 (b) resident blocks: where every block has idle warps (one block across a side shorter
     than the block), blocks per SM = max(full blocks, min(32, (regs/SM - block regs) /
     working warps' regs, (2048 - threads) / (32 x working warps), shared-memory blocks)),
     scaling the working threads W: the latency limit, the issue limit's busy share
     1 - exp(-W / 128 / 5), the DRAM bytes and partial sectors in flight.
 (c) the DRAM streams term x g(W) = (max(1, W / W0) / max(1, WREF / W0))^P.

Every other limit as the dump has it. The partial-sector and overload factors of the DRAM
limit are recomputed exactly from the dump's in-flight figures scaled by W'/W (the
partial sectors per thread unchanged); the serial partial-sector time is kept as the
model's (it does not depend on W).
"""
import csv
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'lab', '2026-11-29-sass'))
import v2emu  # noqa: E402

DUMPS = os.environ.get('SASSRT_DUMPS', '/tmp/sassrt_dump')
C = os.path.join(ROOT, 'tests', 'accuracy', 'corpus')
SETS = {s: os.path.join(C, s) for s in
        ['families', 'heldout', 'heldout2', 'heldout3', 'heldout4', 'heldout5', 'heldout6',
         'heldout7', 'heldout8', 'heldout9', 'heldout10', 'depth', 'layers', 'compute',
         'compute_heldout']}
SETS['lbmocc'] = os.path.join(ROOT, 'lab', '2026-11-29-lbmocc', 'families')
SETS['ernst'] = os.path.join(ROOT, 'lab', '2026-11-29-ernst', 'families')
SETS['lbmconc'] = os.path.join(ROOT, 'lab', '2026-11-29-lbmconc', 'families')
SETS['idlewarps'] = os.path.join(ROOT, 'lab', '2026-11-29-idlewarps', 'families')
# sets of the compute corpus's kernels timed again, no SASS walk of their own: one round trip
# per update (the compute kernels' code)
NO_SASS = ('lbmconc', 'idlewarps')
FIT_SETS = ('compute', 'lbmconc')

# H200-SXM-141GB (estimator/devices) and estimator/params.def's rules
REGS_SM, THREADS_SM, BLOCKS_SM = 65536, 2048, 32
SHARED_SM, SHARED_UNIT, SHARED_RESERVED = 233472, 128, 1024
ISSUE_LANES, ISSUE_WARPS = 128, 5.0
OVERLOAD_BYTES, PARTIAL_HALF, PARTIAL_EXP = 981440000000, 61380, 0.8
STREAMS_HALF, STREAMS_MOST = 106.35819540340133, 46


def block_regs(regs, threads):
    return (threads + 31) // 32 * ((32 * max(regs, 32) + 255) // 256 * 256)


def shared_blocks(shared):
    if shared <= 0:
        return None
    taken = (shared + SHARED_UNIT - 1) // SHARED_UNIT * SHARED_UNIT + SHARED_RESERVED
    return SHARED_SM // taken


def working_warps(bd, c):
    threads, warps = bd[0] * bd[1] * bd[2], 0
    for w in range((threads + 31) // 32):
        for t in range(w * 32, min(w * 32 + 32, threads)):
            if t % bd[0] < c[0] and t // bd[0] % bd[1] < c[1] and t // bd[0] // bd[1] < c[2]:
                warps += 1
                break
    return warps


def resident(r, fam):
    """(b): the blocks an SM holds on average (the lbmconc patch's est_blocks_resident)"""
    bd, fo, dom = r['block'], r['folding'], fam['domain']
    threads, full = bd[0] * bd[1] * bd[2], r['blocks_per_sm']
    covered, cut = [], False
    for d in range(3):
        side = (dom[d] + fo[d] - 1) // fo[d]
        grid = (side + bd[d] - 1) // bd[d]
        covered.append(side if grid == 1 and side < bd[d] else bd[d])
        cut |= covered[d] < bd[d]
    if not cut:
        return full
    w = working_warps(bd, covered)
    if w * 32 >= threads or w == 0:
        return full
    regs = r['registers']
    n = min(BLOCKS_SM, (REGS_SM - block_regs(regs, threads)) / block_regs(regs, w * 32),
            (THREADS_SM - threads) / (w * 32.0))
    sb = shared_blocks(fam['kernel'].get('shared_bytes', 0))
    if sb is not None:
        n = min(n, sb)
    return max(n, full)


def streams_of(kernel):
    s = sum(8.0 / f['element_bytes'] for f in kernel['fields'])
    n = len(kernel['fields'])
    return s * STREAMS_MOST / n if n > STREAMS_MOST else s


def load_set(s):
    fams = {}
    for fn in os.listdir(SETS[s]):
        if fn.endswith('.json'):
            j = json.load(open(os.path.join(SETS[s], fn)))
            fams[j['family']] = j
    rows = [json.loads(l.replace(':nan', ':NaN')) for l in open(os.path.join(DUMPS, s + '.jsonl'))]
    for r in rows:
        r['fam'] = fams[r['family']]
        r['F'] = r['folding'][0] * r['folding'][1] * r['folding'][2]
    return rows


def load_all():
    cfg = {}
    for q in csv.DictReader(open(os.path.join(ROOT, 'lab', '2026-11-29-sass', 'configs.csv'))):
        cfg[(q['set'], q['family'], q['block'], q['folding'])] = q
    J = {}
    for s in SETS:
        rows = load_set(s)
        for r in rows:
            k = (s, r['family'], 'x'.join(map(str, r['block'])), 'x'.join(map(str, r['folding'])))
            q = cfg.get(k)
            r['rt'] = float(q['round_trips']) if q else float(r['F'])
            if q is None and s not in NO_SASS:
                raise SystemExit('no SASS row for %s' % (k,))
            v = r['volumes']
            r['miss'] = min(1.0, v['l2_load'] / r['l1_load']) if r['l1_load'] > 0 else 1.0
            r['resident'] = resident(r, r['fam'])
            r['streams'] = streams_of(r['fam']['kernel'])
            r['has_mix'] = 'instructions' in r['fam']['kernel']
            r['partial_ns'], _ = v2emu.serial_ns(r)
        J[s] = rows
    # lbmconc's families are one level k each (160x1x1 and 256x1x1): the same rows grouped
    # by kernel (k = 1 to 10 blocks per SM) judge the rate against working threads
    J['lbmconc_k'] = [dict(r, family=re.sub(r'_k[0-9]+$', '', r['family'])) for r in J['lbmconc']]
    return J


def busy(w):
    return 1 - math.exp(-w / ISSUE_LANES / ISSUE_WARPS)


def g_streams(w, w0, p, wref):
    return (max(1.0, w / w0) / max(1.0, wref / w0)) ** p


def predict(r, opt):
    """opt: a (1 or 'literal'), trip (TRIP), b (1), ps (0: the partial-sector factor at full
    blocks), c ((W0, P, WREF)), cw ('threads', 'inflight' or 'yz': what W counts for c),
    bytes ((B0, LSCALE): a trip time growing with the DRAM bytes per update)"""
    if r['predicted'] <= 0:
        return r['predicted']
    p = dict(r['perf'])
    w0 = r['active_threads']
    scale = r['resident'] / r['blocks_per_sm'] if opt.get('b') else 1.0
    w = w0 * scale
    lat = p['latency'] * scale
    if opt.get('a'):
        if opt.get('a') == 'literal':
            rt_update = max(1.0, r['rt'] / r['F'])
        else:
            rt_update = max(1.0, (1 + (r['rt'] - 1) * r['miss']) / r['F'])
        lat_rt = 1 + (rt_update - 1) * opt.get('trip', 1.0)
        lat /= lat_rt
    if opt.get('bytes'):
        # (a'), beyond the brief: a trip's time grows with the DRAM bytes an update moves,
        # latency_ns x (round trips + bytes / B0) per update, latency_ns x LSCALE
        b0, lscale = opt['bytes']
        rt_update = lat_rt if opt.get('a') else 1.0
        lat = p['latency'] * scale / (rt_update + r['dram'] / b0) / lscale
    p['latency'] = lat
    if r['has_mix'] and w0 > 0:
        p['flops'] *= busy(w) / busy(w0)
    # DRAM: overload and partial-sector factors at the new threads, streams x g(W)
    if scale != 1.0 and opt.get('ps', 1):
        ov0, ov1 = r['bytes_in_flight'] / OVERLOAD_BYTES, r['bytes_in_flight'] * scale / OVERLOAD_BYTES
        p['dram'] *= (1 + ov0 * ov0) / (1 + ov1 * ov1)
        ps0 = r['partial_sectors_in_flight_per_sm'] / PARTIAL_HALF
        ps1 = ps0 * scale
        p['dram'] *= (1 + ps0 ** PARTIAL_EXP) / (1 + ps1 ** PARTIAL_EXP)
    if opt.get('c'):
        sh = r['streams'] / STREAMS_HALF
        wc = w
        if opt.get('cw') == 'inflight':  # updates in flight: threads x F^fold_overlap
            wc = w * r['F'] ** 0.9669
        elif opt.get('cw') == 'yz':  # only steps in y and z open other DRAM rows
            wc = w * (r['folding'][1] * r['folding'][2]) ** 0.9669
        p['dram'] *= (1 + sh) / (1 + sh * g_streams(wc, *opt['c']))
    pc = v2emu.combine(p, r['warp_active_share'])
    if pc <= 0:
        return 0.0
    over = v2emu.OVERHEAD_US * 1e3 / r['lattice_updates']
    return 1 / (1 / pc + r['partial_ns'] + over)


def figures(rows, pred):
    fams = {}
    for r, q in zip(rows, pred):
        fams.setdefault(r['family'], ([], []))
        fams[r['family']][0].append(r)
        fams[r['family']][1].append(q)
    return {f: v2emu.family_figures(rs, ps) for f, (rs, ps) in fams.items()}


def all_figures(J, opt):
    return {s: figures(J[s], [predict(r, opt) for r in J[s]]) for s in J}


def summary(figs):
    n = len(figs)
    return {'top1': sum(g['top1'] for g in figs.values()) / n,
            'top1_min': min(g['top1'] for g in figs.values()),
            'err': sum(g['err'] for g in figs.values()) / n,
            'err_med': v2emu.median([g['err'] for g in figs.values()])}


def worse(before, after, sets=None):
    out = []
    for s in before:
        if sets and s not in sets:
            continue
        for f in before[s]:
            b, a = before[s][f], after[s][f]
            if a['top1'] < b['top1'] - 0.005 or a['err'] > b['err'] + 0.003:
                out.append((s, f, b, a))
    return out


def better(before, after):
    out = []
    for s in before:
        for f in before[s]:
            b, a = before[s][f], after[s][f]
            if a['top1'] > b['top1'] + 0.005 or a['err'] < b['err'] - 0.003:
                out.append((s, f, b, a))
    return out
