#!/usr/bin/env python3
"""Where the built-in A100 ranks Ernst et al.'s measured best (64,4,4) folded 2 in z and
their predicted best (16,2,32) folded 2 in z among the 168 configurations (the request of
tests/model/test_published.c). Usage: a100_rank.py BUILD_DIR"""
import json, os, subprocess, sys, tempfile

root = os.path.dirname(os.path.abspath(__file__)) + '/../../..'
req = json.load(open(root + '/tests/data/ref3_3d25pt_a100.json'))
req.pop('model', None)
req.pop('launch', None)
req['device'] = 'A100-SXM4-40GB'
blocks = [[1 << a, 1 << b, 1 << (10 - a - b)]
          for a in range(11) for b in range(11 - a) if 10 - a - b <= 6]
req['search'] = {'blocks': blocks, 'foldings': [[1, 1, 1], [1, 2, 1], [1, 1, 2]]}
with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f:
    json.dump(req, f)
out = subprocess.run([sys.argv[1] + '/clients/cli/launchrank', 'rank', f.name],
                     capture_output=True, text=True, check=True).stdout
os.unlink(f.name)
res = json.loads(out)['results']
for i, c in enumerate(res):
    if c['folding'] == [1, 1, 2] and c['block'] in ([64, 4, 4], [16, 2, 32]):
        print('rank %d of %d: %s folded %s at %.1f GLup/s' % (i + 1, len(res), c['block'],
              c['folding'], c['performance']['predicted']))
