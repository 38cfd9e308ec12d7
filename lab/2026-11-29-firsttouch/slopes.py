"""Per family, over its unfolded blocks >= 32 wide (whose predicted wavefronts are nearly
one value), the least-squares slope of the measured L1 wavefronts per update against each
count (ft.py's names) and the range of the count. python3 slopes.py > slopes.txt"""
import ft

COUNTS = ['lines', 'sectors', 'p:lines', 'p:sectors']


def fit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None, None
    return sxy / sxx, sxy / (sxx * syy) ** 0.5


S = ft.sets()
print('set family n | per count: slope (r) [count min..max] | measured wf min..max')
for s, fams in S.items():
    for fam, rows in sorted(fams.items()):
        rows = [r for r in rows if r['block'][0] >= 32 and r['folding'] == [1, 1, 1] and
                r['l1_wavefronts'] and r['measured'] > 0]
        if len(rows) < 4:
            continue
        ys = [r['l1_wavefronts'] for r in rows]
        cells = []
        for c in COUNTS:
            xs = [ft.count(r, c) for r in rows]
            k, rr = fit(xs, ys)
            cells.append('%s %s [%.3f..%.3f]' % (c, '-' if k is None else '%+.2f (%.2f)' %
                                                  (k, rr), min(xs), max(xs)))
        print('%-20s %-28s %2d | %s | %.2f..%.2f' % (s, fam, len(rows), ' | '.join(cells),
                                                    min(ys), max(ys)))
