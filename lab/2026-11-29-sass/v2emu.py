"""Model v2's combination of its limits (estimator/v2.c v2_combine, v2_serial_times) in
python, from a full-precision `accuracy --dump` (fulldump.sh), so that the latency limit
can be replaced offline. H200-SXM-141GB's parameters and estimator/params.def's rules."""
import json, math

SM, LAT_NS, FOLD_OVERLAP = 132, 764.141653, 0.9669
SHARP, OVERHEAD_US = 3.83444797551552, 5.1
CHIP_SHARPNESS, DRAM_SOFT_HEADROOM, SPREAD_EXPONENT = 6.0, 1.03, 0.5
ORDER = ['flops', 'l1', 'l2', 'dram', 'latency', 'blocks', 'stores', 'l2_requests',
         'l1_requests']


def smooth_min(v, n):
    v = [x for x in v if x > 0]
    if not v:
        return 0.0
    least = min(v)
    return least * sum((x / least) ** -n for x in v) ** (-1 / n)


def combine(p, share):
    """v2_combine: the body's rate from the limits p (dict) and the warp-active share."""
    on_chip = [p[k] for k in ORDER if k not in ('blocks', 'dram', 'latency')]
    spread = share ** SPREAD_EXPONENT
    outer = [p['dram'] * DRAM_SOFT_HEADROOM, p['latency'],
             smooth_min(on_chip, max(CHIP_SHARPNESS, SHARP)) * spread]
    pred = smooth_min(outer, SHARP)
    if 0 < p['dram'] < pred:
        pred = p['dram']
    if 0 < p['blocks'] < pred:
        pred = p['blocks']
    return pred


def serial_ns(row):
    """v2_serial_times' added time per update (ns of the whole GPU): the partly written
    sectors' time, backed out of the dump's partial_sector_share (= t * rate after it),
    and the launch overhead over the launch's updates."""
    pc = combine(row['perf'], row['warp_active_share'])
    s = row['partial_sector_share']
    partial = s / (pc * (1 - s)) if pc > 0 and s < 1 else 0.0
    return partial, OVERHEAD_US * 1e3 / row['lattice_updates']


def predict(row, perf=None):
    p = dict(row['perf']) if perf is None else perf
    pc = combine(p, row['warp_active_share'])
    if pc <= 0:
        return 0.0
    partial, over = serial_ns(row)
    return 1 / (1 / pc + partial + over)


def load(path):
    return [json.loads(l) for l in open(path)]


def rep6(v):
    return float('%.6g' % v) if math.isfinite(v) else 0.0


def ranks(v):
    return [sum(x < y for x in v) + (sum(x == y for x in v) + 1) / 2 for y in v]


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    sab = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    saa = sum((x - ma) ** 2 for x in ra)
    sbb = sum((y - mb) ** 2 for y in rb)
    return sab / math.sqrt(saa * sbb) if saa > 0 and sbb > 0 else 0.0


def median(v):
    v = sorted(v)
    n = len(v)
    return float('nan') if not n else v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def family_figures(rows, pred):
    """top 1, top 3, rho, median |error| of one family's rows (usable: predicted and
    measured > 0) under predictions pred (a list beside rows), as acc_stats.c."""
    idx = [i for i, r in enumerate(rows) if r['measured'] > 0 and r['predicted'] > 0]
    best = max(rows[i]['measured'] for i in idx)
    order = sorted(idx, key=lambda i: (-rep6(pred[i]), rows[i]['dram'], rows[i]['l2'], i))
    top = lambda k: max(rows[i]['measured'] for i in order[:k]) / best
    return {'n': len(idx), 'top1': top(1), 'top3': top(3),
            'rho': spearman([pred[i] for i in idx], [rows[i]['measured'] for i in idx]),
            'err': median([abs(pred[i] / rows[i]['measured'] - 1) for i in idx])}


def by_family(rows):
    fams = {}
    for r in rows:
        fams.setdefault(r['family'], []).append(r)
    return fams
