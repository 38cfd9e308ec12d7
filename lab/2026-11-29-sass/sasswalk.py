"""Dependent memory round trips of one thread of a compiled kernel: an in-order walk of
its SASS (cuobjdump -sass text), lab/2026-11-29-ernst/yfold/rounds.py's walk made to
follow control flow and register widths.

The walk issues one instruction per cycle; an instruction waits until its source
registers are ready; a global load's result is ready L cycles after it issues, any
other instruction's 4 (local, shared and constant loads: 30). The path is the one an
interior thread takes (main_path, choose): a predicated EXIT is not taken; of a
predicated forward branch the side with every lattice point's stores, then the fewest
loads, then the fewest instructions (cudagen's deferred form of a folded thread rather
than its guarded one; the fast path of a division or sin); CALLs are not followed; a
backward branch closes a loop that runs its trip count when the counter's pattern is
found (cudagen's fma chains), else once. The walk ends at the first unpredicated EXIT.

Per kernel: loads (LDG on the path), T(L) the cycles to the EXIT, round trips dT/dL
(the depth of the chain of dependent loads), the loads issued before the first wait on a
load, and the mean loads outstanding when the thread waits on one.

    python3 sasswalk.py FILE.sass ...   # a table per function
"""
import re
import sys

INS = re.compile(r'/\*([0-9a-f]{4,5})\*/\s+(.*?)\s*;')
FUNC = re.compile(r'Function : (\S+)')
REG = re.compile(r'(?<![\w.])R(\d+)\b')
NOREG_DST = ('ST', 'BRA', 'EXIT', 'BSSY', 'BSYNC', 'CALL', 'RET', 'NOP', 'BAR', 'MEMBAR',
             'ERRBAR', 'CCTL', 'RED', 'WARPSYNC', 'DEPBAR', 'YIELD', 'BPT', 'FENCE')
SHORT_LOADS = ('LDL', 'LDS', 'LDC', 'S2R', 'ULDC', 'LD.')


def parse(path):
    """{function: [(address, predicate or '', opcode, operand text)]}"""
    funcs, cur = {}, None
    for line in open(path, errors='replace'):
        m = FUNC.search(line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = INS.search(line)
        if m and cur is not None:
            text = m.group(2).strip()
            pred = ''
            if text.startswith('@'):
                pred, text = text.split(None, 1)
            op, _, rest = text.partition(' ')
            cur.append((int(m.group(1), 16), pred, op, rest))
    return funcs


def width(op):
    """registers a load or a 64-bit result writes"""
    if op.startswith('LDG') or op.startswith('LD'):
        for w, n in (('.128', 4), ('.64', 2)):
            if w in op:
                return n
        return 1
    if op.startswith(('DADD', 'DMUL', 'DFMA', 'DMNMX', 'F2F.F64', 'I2F.F64', 'IMAD.WIDE',
                      'MOV.64')):
        return 2
    if op.startswith('F2F') and '.F64' in op.split('.')[1:2]:
        return 2
    return 1


def regs_of(op, rest):
    """(destination registers, source registers) of one instruction"""
    regs = [int(x) for x in REG.findall(rest)]
    base = op.split('.')[0]
    if base.startswith(NOREG_DST) or base.endswith('SETP') or base in ('FCHK', 'PLOP3', 'R2P'):
        return [], regs
    if not regs:
        return [], []
    first = rest.split(',')[0].strip()
    if not REG.fullmatch(first.split('.')[0]):
        return [], regs  # first operand a predicate or RZ: no register result
    n = width(op) or 1
    return [regs[0] + i for i in range(n)], regs[1:]


def target_of(rest):
    m = re.search(r'0x([0-9a-f]+)', rest)
    return int(m.group(1), 16) if m else None


def trip_count(ins, i, at):
    """iterations of the loop closed by the backward branch ins[i]: its counter runs from
    0 (a register zeroed before the loop) by the immediate added in the body up to the
    immediate it is compared with; 1 when the pattern is not found"""
    t = at.get(target_of(ins[i][3]))
    pred = ins[i][1].lstrip('@!')
    if t is None or not pred:
        return 1
    body = ins[t:i]
    for a, p, op, rest in reversed(body):
        if op.startswith('ISETP.NE') and rest.startswith(pred + ','):
            m = re.match(r'P\d, PT, R(\d+), (0x[0-9a-f]+|\d+), PT', rest)
            if not m:
                return 1
            reg, limit = m.group(1), int(m.group(2), 0)
            for a2, p2, op2, rest2 in body:
                m2 = re.match(r'R%s, R%s, (0x[0-9a-f]+|\d+)(, RZ)?$' % (reg, reg), rest2)
                if op2.split('.')[0] in ('IADD3', 'VIADD') and m2:
                    step = int(m2.group(1), 0)
                    if step > 0 and limit % step == 0:
                        return limit // step
            return 1
    return 1


def choose(ins, at):
    """For each predicated forward branch (index -> taken?), the choice on the path an
    interior thread takes: every lattice point's stores (the most STG to the EXIT), then
    the fewest loads (a slow path's table loads, the guarded form of a folded thread),
    then the fewest instructions. Dynamic programming over the code with back edges not
    taken."""
    n = len(ins)
    best = [None] * (n + 1)
    best[n] = (0, 0, 0)
    choice = {}
    key = lambda c: (-c[0], c[1], c[2])
    for i in range(n - 1, -1, -1):
        a, pred, op, rest = ins[i]
        base = op.split('.')[0]
        here = (1 if op.startswith('STG') else 0, 1 if op.startswith('LDG') else 0, 1)
        add = lambda c: (c[0] + here[0], c[1] + here[1], c[2] + here[2])
        if base == 'EXIT' and not pred:
            best[i] = here
            continue
        nxt = best[i + 1] if i + 1 <= n else None
        if base == 'BRA':
            t = target_of(rest)
            j = at.get(t) if t is not None and t > a else None
            if not pred:
                best[i] = add(best[j]) if j is not None else (add(nxt) if t is None or t <= a else here)
                continue
            if j is not None:
                options = [(False, nxt), (True, best[j])]
                take, c = min(options, key=lambda o: key(o[1]))
                choice[i] = take
                best[i] = add(c)
                continue
        best[i] = add(nxt)
    return choice


def main_path(ins, loops=True):
    """the instructions an interior thread executes, in order (loops run their trip
    count when loops is true)"""
    at = {a: i for i, (a, _, _, _) in enumerate(ins)}
    choice = choose(ins, at)
    left = {}
    path, i, seen = [], 0, 0
    while 0 <= i < len(ins) and seen < 200000:
        seen += 1
        a, pred, op, rest = ins[i]
        base = op.split('.')[0]
        path.append(ins[i])
        if base == 'EXIT' and not pred:
            break
        if base == 'BRA':
            t = target_of(rest)
            if t is not None and t > a and (not pred or choice.get(i)):
                i = at.get(t, len(ins))
                continue
            if t is not None and t <= a and pred and loops:
                if i not in left:
                    left[i] = trip_count(ins, i, at) - 1
                if left[i] > 0:
                    left[i] -= 1
                    i = at[t]
                    continue
                del left[i]
        i += 1
    return path


def walk(path, L):
    t, ready, issued = 0, {}, []
    first_wait_loads = None
    nld, waits = 0, []
    for a, pred, op, rest in path:
        dst, src = regs_of(op, rest)
        start = max([t] + [ready.get(q, (0, 0))[0] for q in src])
        if start > t and any(ready.get(q, (0, 0))[1] for q in src if ready.get(q, (0, 0))[0] > t):
            # waiting on a global load: how many are still out
            out = sum(1 for s in issued if s + L > t)
            waits.append(out)
            if first_wait_loads is None:
                first_wait_loads = nld
        t = start + 1
        is_ldg = op.startswith('LDG')
        lat = L if is_ldg else 30 if op.startswith(SHORT_LOADS) else 4
        for d in dst:
            ready[d] = (t + lat - 1, is_ldg)
        if is_ldg:
            nld += 1
            issued.append(t)
    return {'loads': nld, 'cycles': t, 'first_wait_loads': first_wait_loads if first_wait_loads is not None else nld,
            'mean_outstanding': sum(waits) / len(waits) if waits else 0.0, 'waits': len(waits)}


def analyse(ins, Ls=(300, 600, 1000)):
    path = main_path(ins)
    out = {'instructions': len(path)}
    for L in Ls:
        w = walk(path, L)
        out['T%d' % L] = w['cycles']
        out['rt%d' % L] = w['cycles'] / L
        if L == 600:
            out.update({k: w[k] for k in ('loads', 'first_wait_loads', 'mean_outstanding')})
    # the dependent round trips alone: T(L) grows by rt per cycle of L
    out['rt_slope'] = (out['T1000'] - out['T300']) / 700
    return out


if __name__ == '__main__':
    for fn in sys.argv[1:]:
        for name, ins in parse(fn).items():
            r = analyse(ins)
            print('%-40s loads %3d  first %3d  out %5.1f  rt300 %.2f rt600 %.2f rt1000 %.2f '
                  'slope %.2f' % (name[:40], r['loads'], r['first_wait_loads'],
                                  r['mean_outstanding'], r['rt300'], r['rt600'], r['rt1000'],
                                  r['rt_slope']))
