# Offline check of a y-fold factor c on model v2's latency limit (YFOLD.md): re-takes the
# smooth minimum of the limits in `accuracy --dump` files with perf.latency x c for
# configurations folded in y on 3-D domains, and prints per-set means of top-1, median
# |error| and rho before and after. An approximation: the serial times stay as they were.
#   python3 yfold_factor.py C all|e DUMPDIR   (run from the repository root)
import json,sys,glob,statistics as st
def smin(v,n):
    v=[x for x in v if x>0]; m=min(v); return m*sum((x/m)**-n for x in v)**(-1/n)
def outer(p,lat):
    chip=smin([p[k] for k in ['flops','l1','l2','stores','l2_requests','l1_requests']],6.0)
    o=smin([p['dram']*1.03,lat,chip],3.243)
    return min(o,p['dram'],p['blocks'])
DOM={}
for f in glob.glob('tests/accuracy/corpus/*/*.json')+glob.glob('lab/2026-11-23-align/families/*.json')+glob.glob('lab/2026-11-29-ernst/families/*.json'):
    try: j=json.load(open(f))
    except ValueError: continue
    if isinstance(j,dict) and 'family' in j: DOM[j['family']]=j['domain']
def factor(r,c,cond):
    f=r['folding']; b=r['block']
    d=DOM.get(r["family"].split("@")[0],[1,1,1])
    if f[1]>1 and len(d)>2 and d[2]>1 and cond(b): return c
    return 1
def newpred(r,c,cond):
    p=r['perf']; k=factor(r,c,cond)
    if k!=1: return r['predicted']*outer(p,p['latency']*k)/outer(p,p['latency'])
    return r['predicted']
def rank(a):
    s=sorted(range(len(a)),key=lambda i:a[i]); rk=[0]*len(a)
    for j,i in enumerate(s): rk[i]=j
    return rk
def spearman(a,b):
    ra,rb=rank(a),rank(b); n=len(a); d=sum((x-y)**2 for x,y in zip(ra,rb)); return 1-6*d/(n*(n*n-1))
def fam_metrics(rs,pr):
    me=[r['measured'] for r in rs]; best=max(me)
    order=sorted(range(len(rs)),key=lambda i:-pr[i])
    return (me[order[0]]/best, max(me[i] for i in order[:3])/best, st.median(abs(p/m-1) for p,m in zip(pr,me)), spearman(pr,me))
c=float(sys.argv[1]); mode=sys.argv[2] if len(sys.argv)>2 else 'all'
cond={'all':lambda b:True,'e':lambda b:b[0]>=16 and b[1]>=2,'by2':lambda b:b[1]>=2,'bx16':lambda b:b[0]>=16}[mode]
tot=[]
for fn in sorted(glob.glob(sys.argv[3]+'/*.dump')):
    rows=[json.loads(l) for l in open(fn)]
    fams={}
    for r in rows: fams.setdefault(r['family'],[]).append(r)
    for fam,rs in fams.items():
        if not any(r['folding'][1]>1 for r in rs): continue
        a=fam_metrics(rs,[r['predicted'] for r in rs]); b=fam_metrics(rs,[newpred(r,c,cond) for r in rs])
        tot.append((fn,fam,a,b))
        if any(abs(x-y)>0.003 for x,y in zip(a,b)):
            print('%-16s %-24s top1 %.3f->%.3f top3 %.3f->%.3f err %.3f->%.3f rho %.3f->%.3f'%(fn.split('/')[-1][:-5],fam[:24],a[0],b[0],a[1],b[1],a[2],b[2],a[3],b[3]))
import collections
bys=collections.defaultdict(list)
for fn,fam,a,b in tot: bys[fn.split('/')[-1][:-5]].append((a,b))
print('set: top1 mean before->after, err mean before->after')
for k,v in bys.items():
    n=len(v); print('  %-16s %.4f->%.4f  %.4f->%.4f rho %.4f->%.4f'%(k,sum(a[0] for a,b in v)/n,sum(b[0] for a,b in v)/n,sum(a[2] for a,b in v)/n,sum(b[2] for a,b in v)/n,sum(a[3] for a,b in v)/n,sum(b[3] for a,b in v)/n))
