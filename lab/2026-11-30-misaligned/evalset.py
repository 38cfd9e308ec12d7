import os
import sys
sys.argv=[sys.argv[0]]+sys.argv[1:]
exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '2026-11-29-dramfit', 'cmp.py')).read().split('B=parse')[0])
B=parse(sys.argv[1]); A=parse(sys.argv[2])
FIT=('h200_compute','lbmconc')
def obj(D):
    v=[D[k]['err']/100+(1-D[k]['top1']/100) for k in D if k[1]!='SUMMARY' and k[0] in FIT and k[1]!='box125_f32']
    return sum(v)/len(v)
worse=[];better=0
for k in B:
    if k[1]=='SUMMARY' or k[0]=='streams' or k[0] in FIT or k not in A: continue
    b,a=B[k],A[k]
    if a['top1']<b['top1']-0.5 or a['err']>b['err']+0.3 or a['rho']<b['rho']-0.02: worse.append((k,b['err'],a['err'],b['top1'],a['top1']))
    elif a['top1']>b['top1']+0.5 or a['err']<b['err']-0.3 or a['rho']>b['rho']+0.02: better+=1
import statistics
def seterr(D,s): 
    v=[D[k]['err'] for k in D if k[0]==s and k[1]!='SUMMARY']; return sum(v)/len(v)
print('obj %.4f -> %.4f  worse %d better %d  fold64 %.1f  h200 %.2f compute %.2f cheld %.2f streams %.2f'%(obj(B),obj(A),len(worse),better,A[('h200_compute','d3q19_bgk_fold_f64')]['top1'],seterr(A,'h200'),seterr(A,'h200_compute'),seterr(A,'h200_compute_heldout'),seterr(A,'streams')))
if len(sys.argv)>3:
    for w in worse: print('  ',w)
