"""Per-kernel and per-configuration tables from the SASS (sasswalk.py's walk).

    python3 tables.py SASSDIR MAP.tsv OUTDIR

SASSDIR: the unpacked sass.txz of the device call (KEY.sass, KEY.res per cudagen cubin);
MAP.tsv: emit_cubins's map; the compute sets' SASS is lab/2026-11-29-compute/raw/
run3_sass.txt.gz and run4_sass.txt.gz (the binary that was timed), its kernels named by
each measured line's ptxas.kernel. Writes OUTDIR/kernels.csv and OUTDIR/configs.csv.
"""
import csv
import gzip
import json
import os
import re
import sys
import tempfile

import sasswalk

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
C = os.path.join(ROOT, 'tests/accuracy/corpus')
# set -> measured file (the H200's)
MEASURED = {s: os.path.join(C, 'h200.jsonl' if s == 'families' else 'h200_%s.jsonl' % s)
            for s in ['families', 'heldout', 'heldout2', 'heldout3', 'heldout4', 'heldout5',
                      'heldout6', 'heldout7', 'heldout8', 'heldout9', 'heldout10', 'depth',
                      'layers', 'compute', 'compute_heldout']}
MEASURED['lbmocc'] = os.path.join(ROOT, 'lab/2026-11-29-lbmocc/h200.jsonl')
MEASURED['ernst'] = os.path.join(ROOT, 'lab/2026-11-29-ernst/h200.jsonl')
KCOLS = ['kernel', 'source', 'registers', 'path_instructions', 'loads', 'first_wait_loads',
         'mean_outstanding', 'round_trips', 'T300', 'T600', 'T1000']


def kernel_row(key, source, ins, registers):
    r = sasswalk.analyse(ins)
    return {'kernel': key, 'source': source, 'registers': registers,
            'path_instructions': r['instructions'], 'loads': r['loads'],
            'first_wait_loads': r['first_wait_loads'],
            'mean_outstanding': round(r['mean_outstanding'], 3),
            'round_trips': round(r['rt_slope'], 3), 'T300': r['T300'], 'T600': r['T600'],
            'T1000': r['T1000']}


def cudagen_kernels(sassdir):
    out = {}
    for fn in sorted(os.listdir(sassdir)):
        if not fn.endswith('.sass'):
            continue
        key = fn[:-5]
        funcs = sasswalk.parse(os.path.join(sassdir, fn))
        res = open(os.path.join(sassdir, key + '.res')).read()
        m = re.search(r'REG:(\d+)', res)
        out[key] = kernel_row(key, 'cudagen/NVRTC', funcs['lr_kernel'], int(m.group(1)))
    return out


def compute_kernels():
    out = {}
    regs = {}
    for f in ('raw/ptxas.txt', 'raw/ptxas_heldout.txt'):
        name = None
        for line in open(os.path.join(ROOT, 'lab/2026-11-29-compute', f)):
            m = re.search(r"Compiling entry function '(\w+)'", line)
            if m:
                name = m.group(1)
            m = re.search(r'Used (\d+) registers', line)
            if m and name:
                regs[name] = int(m.group(1))
    for run in ('run3', 'run4'):
        path = os.path.join(ROOT, 'lab/2026-11-29-compute/raw/%s_sass.txt.gz' % run)
        with tempfile.NamedTemporaryFile('w', suffix='.sass', delete=False) as t:
            t.write(gzip.open(path, 'rt').read())
        for name, ins in sasswalk.parse(t.name).items():
            if name.startswith('ck_'):
                out[name] = kernel_row(name, 'compute/nvcc %s' % run, ins, regs.get(name, ''))
        os.unlink(t.name)
    return out


def measured_lines(s):
    out = {}
    for line in open(MEASURED[s]):
        m = json.loads(line)
        out[(m['family'], tuple(m['block']), tuple(m['folding']))] = m
    return out


def main(sassdir, mapfile, outdir):
    kern = cudagen_kernels(sassdir)
    kern.update(compute_kernels())
    with open(os.path.join(outdir, 'kernels.csv'), 'w', newline='') as f:
        w = csv.DictWriter(f, KCOLS)
        w.writeheader()
        for k in sorted(kern):
            w.writerow(kern[k])
    rows = []
    for line in open(mapfile):
        s, fam, i, bx, by, bz, fx, fy, fz, key = line.split()
        rows.append((s, fam, (int(bx), int(by), int(bz)), (int(fx), int(fy), int(fz)), key))
    for s in ('compute', 'compute_heldout'):
        for (fam, b, fo), m in measured_lines(s).items():
            rows.append((s, fam, b, fo, m['ptxas']['kernel']))
    meas = {s: measured_lines(s) for s in MEASURED}
    cols = ['set', 'family', 'block', 'folding', 'kernel', 'registers', 'registers_measured',
            'loads', 'round_trips', 'round_trips_per_update', 'T600_per_update',
            'first_wait_loads', 'mean_outstanding', 'ldg_measured_per_thread']
    with open(os.path.join(outdir, 'configs.csv'), 'w', newline='') as f:
        w = csv.DictWriter(f, cols)
        w.writeheader()
        for s, fam, b, fo, key in rows:
            k = kern.get(key)
            m = meas[s].get((fam, b, fo), {})
            c = m.get('counters', {})
            F = fo[0] * fo[1] * fo[2]
            w.writerow({
                'set': s, 'family': fam, 'block': 'x'.join(map(str, b)),
                'folding': 'x'.join(map(str, fo)), 'kernel': key,
                'registers': k['registers'] if k else '',
                'registers_measured': c.get('registers', ''),
                'loads': k['loads'] if k else '',
                'round_trips': k['round_trips'] if k else '',
                'round_trips_per_update': round(k['round_trips'] / F, 4) if k else '',
                'T600_per_update': round(k['T600'] / F, 1) if k else '',
                'first_wait_loads': k['first_wait_loads'] if k else '',
                'mean_outstanding': k['mean_outstanding'] if k else '',
                'ldg_measured_per_thread': round(32 * F * c['l1_load_requests'], 2)
                if c.get('l1_load_requests') else ''})


if __name__ == '__main__':
    main(*sys.argv[1:4])
