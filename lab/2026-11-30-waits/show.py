import sys; sys.path.insert(0, __import__('os').path.dirname(__import__('os').path.abspath(__file__)))
from fit import rows
s, f = sys.argv[1], sys.argv[2]
for r in rows:
    if r['set'] == s and r['family'] == f:
        x = r['x']
        print('%-12s %-8s meas %.3f pred %.3f | loadc %.3f M %.3f warps %.3f | waits %.3f waitg %.3f chg %.3f | miss %.2f pmiss %.2f | glups %.1f pred %.1f %s' % (
            'x'.join(map(str, r['block'])), 'x'.join(map(str, r['folding'])), r['l1_wavefronts'], r['l1_wavefronts_predicted'],
            x['load_c'], x['load_m'], x['warps'], x['waits_l'], x['waitg_l'], x['changes_l'], (r.get('l2') or 0)/32, r['volumes']['l2_load']/32, r['measured'], r['predicted'], r['limiter']))
