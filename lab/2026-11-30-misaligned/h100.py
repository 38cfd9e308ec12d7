"""The -36 terms at the H200's values on the nine H100 sets (emulated on -35's dumps of
lab/2026-11-29-joint/dumps.sh, the H100's parameters): python3 h100.py 'd=(600,0.07,30),dq=2' ..."""
import os, sys; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))); sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '2026-11-29-sass'))
import joint36 as j36, v2emu
joint = j36.joint
D=os.environ.get('JOINT_H100_DUMPS', '/tmp/joint_h100'); C=joint.C
SETS={s: os.path.join(C,s) for s in ['families','heldout','heldout2','heldout3','heldout4','heldout5','depth','layers']}
SETS['align']=os.path.join(joint.ROOT,'lab','2026-11-23-align','families')
v2emu.SHARP, v2emu.OVERHEAD_US = 3.243, 6.2
joint.OVERLOAD_BYTES, joint.PARTIAL_HALF = 9.773e+11, 50500
joint.STREAMS_HALF, joint.STREAMS_MOST = 173.8, 1e6
j36.STREAMS_HALF = joint.STREAMS_HALF
joint.DUMPS, joint.SETS = D, SETS
J={}
for s in SETS:
    rows=joint.load_set(s)
    for r in rows:
        r['rt'], r['miss'] = float(r['F']), 1.0
        r['resident']=r['blocks_per_sm']
        r['streams']=joint.streams_of(r['fam']['kernel'])
        r['misaligned']=j36.misaligned_stores(r['fam'])
        r['has_mix']='instructions' in r['fam']['kernel']
        r['partial_ns'],_=v2emu.serial_ns(r)
    J[s]=rows
worst=max(abs(j36.predict36(r,{})/r['predicted']-1) for s in J for r in J[s] if r['predicted']>0)
print('emulation worst %.1e'%worst)
before=j36.all_figures36(J,{})
for spec in sys.argv[1:]:
    opt=eval('dict(%s)'%spec)
    if 'half' in opt: opt['half']*=joint.STREAMS_HALF
    a=j36.all_figures36(J,opt)
    w=joint.worse(before,a); b=joint.better(before,a)
    print('==',spec,'worse',len(w),'better',len(b))
    for s in before:
        x,y=joint.summary(before[s]),joint.summary(a[s])
        print('  %-10s %5.1f/%5.1f -> %5.1f/%5.1f  %5.2f -> %5.2f'%(s,100*x['top1'],100*x['top1_min'],100*y['top1'],100*y['top1_min'],100*x['err'],100*y['err']))
    for s,f,x,y in w: print('  - %-10s %-28s top1 %5.1f -> %5.1f err %5.2f -> %5.2f'%(s,f,100*x['top1'],100*y['top1'],100*x['err'],100*y['err']))
    for s,f,x,y in b: print('  + %-10s %-28s top1 %5.1f -> %5.1f err %5.2f -> %5.2f'%(s,f,100*x['top1'],100*y['top1'],100*x['err'],100*y['err']))
