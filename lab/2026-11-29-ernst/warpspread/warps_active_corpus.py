import json,subprocess,os,sys,math,collections
C='tests/accuracy/corpus'
rows=[json.loads(l) for l in open(C+'/h200.jsonl')]
res=collections.defaultdict(list)
for fam in sorted(set(r['family'] for r in rows)):
    env=dict(os.environ,SPREAD_DEBUG='1',SPREAD_PRIV='1',SPREAD_M='8')
    out=subprocess.run(['build-rel/tests/accuracy/accuracy','--corpus',C+'/families','--measured',C+'/h200.jsonl','--device','H200-SXM-141GB','--family',fam],env=env,capture_output=True,text=True).stderr
    sh={}
    for l in out.splitlines():
        if l.startswith('SPREAD'): p=l.split(); sh[p[1]+' '+p[2]]=float(p[3])
    xs=[];ys=[]
    for r in rows:
        if r['family']!=fam: continue
        b=r['block']; t=b[0]*b[1]*b[2]
        if t!=1024 or 'warps_active_pct' not in r.get('counters',{}): continue
        k="%dx%dx%d f%d%d%d"%(*b,*r['folding'])
        if k in sh: xs.append(sh[k]); ys.append(r['counters']['warps_active_pct'])
    if len(xs)>2:
        n=len(xs);mx=sum(xs)/n;my=sum(ys)/n;vx=sum((a-mx)**2 for a in xs);vy=sum((b-my)**2 for b in ys)
        c=sum((a-mx)*(b-my) for a,b in zip(xs,ys))/math.sqrt(vx*vy) if vx>0 and vy>0 else float('nan')
        print("%-18s n=%2d share %.2f-%.2f warps active %.0f-%.0f corr %.2f"%(fam,n,min(xs),max(xs),min(ys),max(ys),c))
