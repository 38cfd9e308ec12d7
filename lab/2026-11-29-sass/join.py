"""configs.csv joined with the full-precision dumps (fulldump.sh) of every H200 set."""
import csv
import os

import v2emu

DUMPS = os.environ.get('SASSRT_DUMPS', '/tmp/sassrt_dump')
SETS = ['families', 'heldout', 'heldout2', 'heldout3', 'heldout4', 'heldout5', 'heldout6',
        'heldout7', 'heldout8', 'heldout9', 'heldout10', 'depth', 'layers', 'compute',
        'compute_heldout', 'lbmocc', 'ernst']


def joined(here=os.path.dirname(os.path.abspath(__file__))):
    """{set: [dump row + 'sass': configs.csv row]}"""
    cfg = {}
    for r in csv.DictReader(open(os.path.join(here, 'configs.csv'))):
        cfg[(r['set'], r['family'], r['block'], r['folding'])] = r
    out = {}
    for s in SETS:
        rows = v2emu.load(os.path.join(DUMPS, s + '.jsonl'))
        for r in rows:
            k = (s, r['family'], 'x'.join(map(str, r['block'])), 'x'.join(map(str, r['folding'])))
            r['sass'] = cfg.get(k)
            r['F'] = r['folding'][0] * r['folding'][1] * r['folding'][2]
        out[s] = rows
    return out
