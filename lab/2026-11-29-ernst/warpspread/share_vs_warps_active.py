import json,sys,math
# usage: share_vs_warps_active.py DUMP JSONL [BASE_DUMP]: per family, the correlation of the
# warp_active_share of an accuracy --dump with the measured warps_active_pct, and of its log with
# log(measured / predicted), predicted from BASE_DUMP (the model before the term) when given
dump=[json.loads(l) for l in open(sys.argv[1])]
meas={}
for l in open(sys.argv[2]):
    m=json.loads(l); meas[(m['family'],tuple(m['block']),tuple(m['folding']))]=m
base={}
if len(sys.argv)>3:
    for l in open(sys.argv[3]):
        d=json.loads(l); base[(d['family'],tuple(d['block']),tuple(d['folding']))]=d
def corr(x,y):
    n=len(x); mx=sum(x)/n; my=sum(y)/n
    sxy=sum((a-mx)*(b-my) for a,b in zip(x,y)); sxx=sum((a-mx)**2 for a in x); syy=sum((b-my)**2 for b in y)
    return sxy/math.sqrt(sxx*syy) if sxx>0 and syy>0 else float('nan')
fams=sorted(set(d['family'] for d in dump))
allx=[];ally=[];allz=[];allr=[]
for f in fams+[None]:
    xs=[];ys=[];zs=[];rs=[]
    for d in dump:
        if f is not None and d['family']!=f: continue
        k=(d['family'],tuple(d['block']),tuple(d['folding']))
        m=meas.get(k)
        if not m or 'warps_active_pct' not in m.get('counters',{}): continue
        xs.append(d['warp_active_share']); ys.append(m['counters']['warps_active_pct'])
        b=base.get(k,d); zs.append(math.log(m['glups']/b['predicted']))
    print("%-22s n=%3d share range %.3f-%.3f corr(share, warps_active)=%.3f corr(log share, log meas/pred_base)=%.3f"%(f or 'ALL',len(xs),min(xs),max(xs),corr(xs,ys),corr([math.log(x) for x in xs],zs)))
