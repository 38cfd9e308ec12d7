import json,sys,itertools
def load(d): return [json.loads(l) for l in open(d+'/ernst.jsonl')]
def conc(rows,pa,pb):
    ok=n=0
    for a in rows:
        if not pa(a): continue
        for b in rows:
            if not pb(b): continue
            dm=a['measured']-b['measured']; dp=a['predicted']-b['predicted']
            if abs(dm)/max(a['measured'],b['measured'])<0.02: continue
            n+=1; ok+= (dm>0)==(dp>0)
    return ok/n if n else float('nan'), n
F=lambda r: r['folding']!=[1,1,1]
U=lambda r: r['folding']==[1,1,1]
for d in sys.argv[1:]:
    rows=load(d)
    top=[r for r in rows if r['measured']>=0.85*max(x['measured'] for x in rows)]
    fu=conc(rows,F,U)
    df=conc([r for r in rows if F(r)],lambda r:r['block'][2]>1,lambda r:r['block'][2]==1)
    dft=conc(top,lambda r:r['block'][2]>1,lambda r:r['block'][2]==1)
    zz=conc([r for r in rows if r['folding']==[1,1,2]],lambda r:r['block'][2]>2,lambda r:r['block'][2]<=2)
    print('%-24s folded>unfolded %.3f (%d)  deep-vs-flat(folded) %.3f (%d)  in top15%% %.3f (%d)'%(d,*fu,*df,*dft))
