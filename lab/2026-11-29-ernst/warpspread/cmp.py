import sys,re,os,glob
def parse(d):
    r={}
    for f in sorted(glob.glob(d+'/*.txt')):
        s=os.path.basename(f)[:-4]
        for l in open(f):
            m=re.match(r'^(\S+)\s+(\d+)\s+\d+\s+\|\s+([\d.]+)\s+\S+\s+\S+\s+\S+\s+\|\s+(\S+)\s+([\d.]+)\s+([\d.]+)',l)
            if m: r[(s,m.group(1))]=(float(m.group(3)),float(m.group(4)) if m.group(4)!='nan' else 0,float(m.group(5)),float(m.group(6)))
    return r
a=parse(sys.argv[1]); b=parse(sys.argv[2]); verbose=len(sys.argv)>3
worse=better=0; tot={}
for k in sorted(a):
    if k not in b: continue
    ea,ra,ta,_=a[k]; eb,rb,tb,_=b[k]
    s=k[0]; t=tot.setdefault(s,[0,0,0,0,0,0,0])
    t[0]+=1;t[1]+=ea;t[2]+=eb;t[3]+=ta;t[4]+=tb;t[5]+=ra;t[6]+=rb
    bad = tb<ta-0.05 or eb>ea+0.3 or rb<ra-0.02
    good = tb>ta+0.05 or eb<ea-0.3 or rb>ra+0.02
    if bad: worse+=1
    if good: better+=1
    if (bad or good) and verbose: print(("WORSE " if bad else "better"),k,"err %.1f->%.1f rho %.2f->%.2f top1 %.1f->%.1f"%(ea,eb,ra,rb,ta,tb))
for s,t in tot.items():
    n=t[0]
    if abs(t[1]-t[2])>0.01 or abs(t[3]-t[4])>0.01 or abs(t[5]-t[6])>0.001:
        print("%-16s n=%2d err %.2f->%.2f top1 %.2f->%.2f rho %.3f->%.3f"%(s,n,t[1]/n,t[2]/n,t[3]/n,t[4]/n,t[5]/n,t[6]/n))
print("families better",better,"worse",worse)
