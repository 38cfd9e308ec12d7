import sys; sys.path.insert(0, __import__('os').path.dirname(__import__('os').path.abspath(__file__)))
import screen as s
def flip(setn, fam, f, n=4):
    rows=[r for r in s.S[setn][fam] if r['measured']]
    for g,tag in [(lambda r: r['l1_wavefronts_predicted'],'base'),(f,'new')]:
        s.ft.v2emu.SHARP, s.ft.v2emu.OVERHEAD_US = s.ft.dev(setn)
        out=[]
        for r in rows:
            p=dict(r['perf']); w0,w1=r['l1_wavefronts_predicted'],g(r); p['l1']*=w0/w1
            out.append((round(s.ft.v2emu.predict(r,p),3), r['measured'], 'x'.join(map(str,r['block'])), 'x'.join(map(str,r['folding'])), r['limiter'], round(w1,3), r['l1_wavefronts'], round(r['x']['waits_l'],3)))
        out.sort(reverse=True); print(tag, 'best', max(r['measured'] for r in rows)); [print('  ',o) for o in out[:n]]
