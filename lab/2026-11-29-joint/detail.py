"""One family's rows under the model and a variant: python3 detail.py SET FAMILY 'a=1,b=1,...'"""
import sys
import joint

J = joint.load_all()
s, fam, spec = sys.argv[1], sys.argv[2], sys.argv[3]
opt = eval('dict(%s)' % spec)
rows = [r for r in J[s] if r['family'] == fam]
print('%-10s %-6s %5s %5s %6s %7s %7s %7s | %6s %6s %6s %6s %6s' % (
    'block', 'fold', 'bps', 'res', 'W', 'meas', 'model', 'after', 'lat', 'dram', 'flops', 'rt', 'miss'))
for r in sorted(rows, key=lambda r: -r['measured']):
    a = joint.predict(r, opt)
    print('%-10s %-6s %5d %5.2f %6.0f %7.2f %7.2f %7.2f | %6.1f %6.1f %6.1f %6.1f %6.2f %s' % (
        'x'.join(map(str, r['block'])), 'x'.join(map(str, r['folding'])), r['blocks_per_sm'],
        r['resident'], r['active_threads'], r['measured'], r['predicted'], a, r['perf']['latency'],
        r['perf']['dram'], r['perf']['flops'], r['rt'], r['miss'], r['limiter']))
