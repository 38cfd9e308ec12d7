import sys,re,glob,os
def parse(d):
    out={}
    for fn in sorted(glob.glob(d+'/*.txt')):
        s=os.path.basename(fn)[:-4]; fam={}
        for line in open(fn):
            m=re.match(r'^(\S+)\s+(\d+)\s+(\d+)\s+\|\s+([\d.]+)\s+\S+\s+\S+\s+\S+\s+\|\s+([-\d.]+)\s+([\d.]+)\s+([\d.]+)',line)
            if m: fam[m.group(1)]=(float(m.group(4)),float(m.group(5)),float(m.group(6)),float(m.group(7)))
            m=re.match(r'^summary.*top1 mean ([\d.]+) % \(min ([\d.]+)\), top3 mean ([\d.]+).*rho mean ([-\d.]+), median GLup/s error mean ([\d.]+)',line)
            if m: fam['_sum']=tuple(float(x) for x in m.groups())
        out[s]=fam
    return out
a=parse(sys.argv[1]); b=parse(sys.argv[2]); verbose=len(sys.argv)>3
worse=[];better=[]
for s in a:
    sa,sb=a[s].get('_sum'),b[s].get('_sum')
    print('%-18s top1 %5.1f->%5.1f min %5.1f->%5.1f top3 %5.1f->%5.1f rho %.2f->%.2f err %4.1f->%4.1f'%(s,sa[0],sb[0],sa[1],sb[1],sa[2],sb[2],sa[3],sb[3],sa[4],sb[4]))
    for f in a[s]:
        if f=='_sum': continue
        x,y=a[s][f],b[s][f]
        d=(y[0]-x[0], y[1]-x[1], y[2]-x[2])
        tag=''
        if d[0]>0.3 or d[1]<-0.015 or d[2]<-0.3: worse.append((s,f,x,y))
        if d[0]<-0.3 or d[1]>0.015 or d[2]>0.3: better.append((s,f,x,y))
print('WORSE (err+0.3 / rho-0.015 / top1-0.3):')
for w in worse: print('  ',w[0],w[1],'err %.1f->%.1f rho %.2f->%.2f top1 %.1f->%.1f top3 %.1f->%.1f'%(w[2][0],w[3][0],w[2][1],w[3][1],w[2][2],w[3][2],w[2][3],w[3][3]))
print('BETTER:')
for w in better: print('  ',w[0],w[1],'err %.1f->%.1f rho %.2f->%.2f top1 %.1f->%.1f top3 %.1f->%.1f'%(w[2][0],w[3][0],w[2][1],w[3][1],w[2][2],w[3][2],w[2][3],w[3][3]))
