import sys,re
def parse(p):
    d={}
    for l in open(p):
        t=l.split()
        if t[1]=='summary': d[(t[0],'SUMMARY')]=l.strip(); continue
        # set fam n spread | glups dram l2 l1 | rho top1 top3 rec | fixed...
        parts=l.split('|')
        a=parts[0].split(); b=parts[1].split(); c=parts[2].split()
        d[(a[0],a[1])]=dict(err=float(b[0]),rho=float(c[0]),top1=float(c[1]),top3=float(c[2]))
    return d
B=parse(sys.argv[1]);A=parse(sys.argv[2])
worse=better=0
for k in B:
    if k[1]=='SUMMARY':
        if B[k]!=A[k]: print('  ',B[k],'\n->',A[k])
        continue
    b,a=B[k],A[k]
    if a==b: continue
    w= a['top1']<b['top1']-0.5 or a['err']>b['err']+0.3 or a['rho']<b['rho']-0.02
    g= a['top1']>b['top1']+0.5 or a['err']<b['err']-0.3 or a['rho']>b['rho']+0.02
    worse+=w; better+=g
    print('%s %-12s %-26s top1 %.1f->%.1f err %.1f->%.1f rho %.2f->%.2f'%('WORSE' if w else ('better' if g else '  same'),k[0],k[1],b['top1'],a['top1'],b['err'],a['err'],b['rho'],a['rho']))
print('worse',worse,'better',better)
