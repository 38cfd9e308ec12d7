# Stall samples of ncu's source page (raw/src.csv.gz: (32,2,16)+2y, then (32,4,8)+2z) by the
# load each waiting instruction waits for, with the loads then outstanding (register
# def-use on the SASS text).  python3 stalls_by_load.py raw/src.csv.gz
import csv,re,gzip,sys
lines=gzip.open(sys.argv[1],'rt').read().split('\n')
blocks=[];cur=None
for l in lines:
    if l.startswith('"Kernel Name"'): cur=[];blocks.append(cur)
    elif cur is not None and l.strip(): cur.append(l)
for bi,b in enumerate(blocks):
    rows=list(csv.reader(b)); h=rows[0]; rs=rows[1:]
    iS=h.index('Warp Stall Sampling (All Samples)'); ilsb=h.index('stall_long_sb'); ilg=h.index('stall_lg')
    tot=sum(float(r[iS] or 0) for r in rs)
    pending={}; nld=0; out=[]
    cum=0
    for r in rs:
        s=r[1].strip(); op=s.split()[0]
        regs=[int(x) for x in re.findall(r'\bR(\d+)\b',s)]
        smp=float(r[iS] or 0); cum+=smp
        waited=[]
        if op.startswith('LDG'):
            for q in regs[1:]:
                for k in (q,q-1):
                    if k in pending: waited.append(pending.pop(k))
            nld+=1; off=re.search(r'\[(R\d+)\.64(\+?(-?0x[0-9a-f]+))?\]',s)
            pending[regs[0]]=(nld, off.group(3) if off and off.group(3) else '0')
            out.append((smp,'LDG%02d %s'%(nld, pending[regs[0]][1]), len(pending), float(r[ilg] or 0)))
        else:
            srcs=regs[1:] if not op.startswith('STG') else regs
            for q in srcs:
                for k in (q,q-1):
                    if k in pending: waited.append(pending.pop(k))
            if regs and not op.startswith('STG'):
                pending.pop(regs[0],None); pending.pop(regs[0]-1,None)
            if waited or smp>0.005*tot:
                out.append((smp, op+' waits '+','.join('L%02d(%s)'%w for w in waited), len(pending), float(r[ilsb] or 0)))
    print('kernel',bi,'tot',tot)
    c=0
    for smp,desc,np_,x in out:
        c+=smp
        if smp>0.004*tot: print('  %5.1f%% cum %5.1f%%  outstanding %2d  %s'%(100*smp/tot,100*c/tot,np_,desc))
