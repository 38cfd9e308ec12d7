from load import *
H200=dict(n=3.83444797551552,sm=132)
def sm(v,n):
    v=[x for x in v if x>0]; l=min(v); return l*sum((x/l)**-n for x in v)**(-1/n)
def decomp(r,n=H200['n']):
    p=r['perf']
    chip=sm([p[k] for k in ['flops','l1','l2','stores','l2_requests','l1_requests']],max(6,n))*r['warp_active_share']**0.5
    body=min(sm([p['dram']*1.03,p['latency'],chip],n),p['dram'],p['blocks'])
    return chip,body
