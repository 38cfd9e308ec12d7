import json,subprocess,os,sys,math
meas={}
for l in open('lab/2026-11-29-ernst/deepflat/README.md'):
    p=[x.strip() for x in l.split('|')]
    if len(p)>4 and 'x' in p[1] and p[2][:1].isdigit(): meas[p[1]+' f112']=float(p[3])
env=dict(os.environ,SPREAD_DEBUG='1')
out=subprocess.run(['build-rel/tests/accuracy/accuracy','--corpus','lab/2026-11-29-ernst/families','--measured','lab/2026-11-29-ernst/h200.jsonl','--device','H200-SXM-141GB'],env=env,capture_output=True,text=True).stderr
sh={}
for l in out.splitlines():
    if l.startswith('SPREAD'): p=l.split(); sh[p[1]+' '+p[2]]=float(p[3])
ks=[k for k in meas if k in sh]; x=[sh[k] for k in ks]; y=[meas[k] for k in ks]
n=len(ks); mx=sum(x)/n; my=sum(y)/n
cov=sum((a-mx)*(b-my) for a,b in zip(x,y)); vx=sum((a-mx)**2 for a in x); vy=sum((b-my)**2 for b in y)
print("n",n,"corr with warps active %.2f"%(cov/math.sqrt(vx*vy)), " ".join("%s:%.2f/%.0f"%(k.split()[0],sh[k],meas[k]) for k in ks))
