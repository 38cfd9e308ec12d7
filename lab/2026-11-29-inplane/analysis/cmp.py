import sys,re,os
def parse(d):
    res={}
    for s in [l.split()[0] for l in open(os.path.join(os.path.dirname(os.path.abspath(__file__)),'sets.txt'))]:
        fams={}
        for l in open(f'{d}/{s}.txt'):
            t=l.split()
            if len(t)>14 and t[3]=='|' and t[8]=='|':
                try: fams[t[0]]=dict(err=float(t[4]),rho=float(t[9]),top1=float(t[10]),top3=float(t[11]))
                except ValueError: pass
        res[s]=fams
    return res
a=parse(sys.argv[1]); b=parse(sys.argv[2]); verbose=len(sys.argv)>3
bad=[];good=[]
for s in a:
    fa,fb=a[s],b[s]
    if not fa: continue
    ea=sum(v['err'] for v in fa.values())/len(fa); eb=sum(v['err'] for v in fb.values())/len(fb)
    ta=sum(v['top1'] for v in fa.values())/len(fa); tb=sum(v['top1'] for v in fb.values())/len(fb)
    flag=''
    if eb-ea>0.3: flag+=' ERR+'
    for f in fa:
        d=fb[f]['top1']-fa[f]['top1']
        if d< -0.5: bad.append((s,f,fa[f]['top1'],fb[f]['top1'])); flag+=' TOP1-'
        if d>0.5: good.append((s,f,fa[f]['top1'],fb[f]['top1']))
    if verbose or abs(eb-ea)>0.05 or abs(tb-ta)>0.05:
        print(f"{s:22s} err {ea:5.2f} -> {eb:5.2f}  top1 {ta:6.2f} -> {tb:6.2f}{flag}")
print('top1 down >0.5:',len(bad)); [print('  ',x) for x in bad]
print('top1 up >0.5:',len(good)); [print('  ',x) for x in good]
