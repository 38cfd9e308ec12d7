# Dependent memory round trips of one thread: an in-order walk of the SASS (cuobjdump
# -sass text) where each instruction waits for its source registers, a load's result
# is ready L cycles after issue, anything else's 4.  python3 rounds.py FILE.sass...
import re,sys
def parse(fn):
    ins=[]
    for l in open(fn):
        m=re.search(r'/\*[0-9a-f]{4}\*/\s+(.*?);',l)
        if m: ins.append(m.group(1).strip())
    return ins
def sim(ins,L,hit=None):
    t=0; ready={}; nld=0
    for s in ins:
        toks=s.split(); op=toks[1] if toks[0].startswith('@') else toks[0]
        regs=[int(x) for x in re.findall(r'\bR(\d+)\b',s)]
        if op.startswith('LDG'):
            srcs=regs[1:]; dst=[regs[0],regs[0]+1]
        elif op.startswith('STG'):
            srcs=regs; dst=[]
        else:
            srcs=regs[1:]; dst=regs[:1]+([regs[0]+1] if op.startswith('D') and regs else [])
        for q in srcs:
            t=max(t,ready.get(q,0))
        t+=1
        for d in dst: ready[d]=t+(L if op.startswith('LDG') else 4)
        if op.startswith('LDG'): nld+=1
    return t,nld
for fn in sys.argv[1:]:
    ins=parse(fn)
    r=[sim(ins,L)[0] for L in (300,600,1000)]
    n=sim(ins,600)[1]
    print('%-22s loads %d  warp time at L=300/600/1000: %s  rounds %.2f  loads per round %.2f'%(fn,n,r,r[2]/1000,n/(r[2]/1000)))
