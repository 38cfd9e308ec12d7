from load import *; from decomp import *
import json
def fields(s,fam):
    name,corp,meas,dev=s
    d=ROOT+(corp[1:] if corp.startswith('@') else 'tests/accuracy/corpus/'+corp)
    import glob
    for f in glob.glob(d+'/*.json'):
        j=json.load(open(f))
        if j.get('family')==fam: return j['kernel']['fields']
def cls(r):
    f=r['folding']
    if f==[1,1,1]: return 'unf'
    if f[2]>1: return f'fz{f[2]}'
    if f[1]>1: return 'fy'
    return 'fx'
def table(d, sets=None, only_db=True, stencil=True):
    out={}
    for s in SETS:
        if sets and s[0] not in sets: continue
        rows=load(d,s[0])
        for r in rows:
            p=r['perf']
            if only_db and r['predicted']<0.75*p['dram']: continue
            out.setdefault((s[0],r['family']),{}).setdefault(cls(r),[]).append(r['measured']/r['predicted'])
    return out
