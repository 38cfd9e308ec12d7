import json,subprocess,os,sys,math
dump=[json.loads(l) for l in open(sys.argv[1])]
def key(b,f): return "%dx%dx%d f%d%d%d"%(*b,*f)
ratio={key(d['block'],d['folding']):math.log(d['measured']/d['predicted']) for d in dump}
for M in sys.argv[2:]:
    env=dict(os.environ,SPREAD_DEBUG='1',SPREAD_M=M)
    out=subprocess.run(['build-rel/tests/accuracy/accuracy','--corpus','lab/2026-11-29-ernst/families','--measured','lab/2026-11-29-ernst/h200.jsonl','--device','H200-SXM-141GB'],env=env,capture_output=True,text=True).stderr
    sh={}
    for l in out.splitlines():
        if l.startswith('SPREAD'):
            p=l.split(); sh[p[1]+' '+p[2]]=float(p[3])
    ks=[k for k in ratio if k in sh]
    x=[math.log(sh[k]) for k in ks]; y=[ratio[k] for k in ks]
    n=len(ks); mx=sum(x)/n; my=sum(y)/n
    cov=sum((a-mx)*(b-my) for a,b in zip(x,y)); vx=sum((a-mx)**2 for a in x); vy=sum((b-my)**2 for b in y)
    if vx==0: print("M",M,"constant",x[0]); continue
    print("M",M,"n",n,"corr %.3f slope %.2f"%(cov/math.sqrt(vx*vy), cov/vx), "share range %.3f-%.3f"%(min(sh.values()),max(sh.values())))
