import json,subprocess,sys,os
req=json.load(open('tests/data/ref3_3d25pt_a100.json'))
req.pop('model',None); req.pop('launch',None); req['device']='A100-SXM4-40GB'
blocks=[[1<<a,1<<b,1<<(10-a-b)] for a in range(11) for b in range(11-a) if 10-a-b<=6]
req['search']={'blocks':blocks,'foldings':[[1,1,1],[1,2,1],[1,1,2]]}
open(os.environ.get('TMPDIR','/tmp')+'/a100req.json','w').write(json.dumps(req))
out=subprocess.run(['build-rel/clients/cli/launchrank','rank',os.environ.get('TMPDIR','/tmp')+'/a100req.json'],capture_output=True,text=True)
try: r=json.loads(out.stdout)
except Exception: print(out.stdout[:500],out.stderr[:500]); sys.exit()
res=r['results']
for i,x in enumerate(res):
    c=x.get('config',x); 
    if i<3 or (c['launch']['block']==[64,4,4] and c['launch']['folding']==[1,1,2]): print(i+1, c['launch']['block'],c['launch']['folding'], x.get('predicted_glups', x.get('glups')))
