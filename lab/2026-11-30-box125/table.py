"""The L1 counters of raw/ (one device call) per lattice update: python3 table.py [RAW_DIR]"""
import csv, gzip, json, os, sys
D=sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), 'raw')
rows=list(csv.reader(gzip.open(D+'/ncu.csv.gz', 'rt')))
hdr=None; data=[]
for r in rows:
    if r and r[0]=='ID': hdr=r; continue
    if hdr and r and r[0].isdigit(): data.append(dict(zip(hdr,r)))
order=[l.strip().split(',') for l in open(D+'/order.csv') if not (l.startswith('###') or l.startswith('index'))]
U=256**3
meas={}
for l in open(D+'/r1.jsonl'):
    x=json.loads(l); meas[(x['family'],tuple(x['block']),tuple(x['folding']))]=x.get('glups')
def g(d,k): return float(d[k].replace(',',''))
out=[]
for o,d in zip(order,data):
    fam=o[1]; b=tuple(map(int,o[3:6])); f=tuple(map(int,o[6:9]))
    rec=dict(fam=fam,block=b,fold=f,glups=meas.get((fam,b,f)) or 0,
      wf=g(d,'l1tex__data_pipe_lsu_wavefronts.sum')/U, req=g(d,'l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum')/U,
      sect=g(d,'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum')/U, hit=g(d,'l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum')/U,
      miss=g(d,'l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum')/U, tout=g(d,'l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ld.sum')/U,
      fwf=g(d,'l1tex__f_wavefronts.sum')/U, setcf=g(d,'l1tex__t_set_conflicts_pipe_lsu_mem_global_op_ld.sum')/U,
      xbar=g(d,'l1tex__m_xbar2l1tex_read_sectors.sum')/U, lsuin=g(d,'l1tex__lsuin_requests.sum')/U,
      l1pct=g(d,'l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_active'), ctas=g(d,'sm__ctas_active.avg.per_cycle_active'))
    out.append(rec)
if __name__=='__main__':
    print('%-16s %-10s %-6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %5s'%('fam','block','fold','glups','wf','req','sect','hit','miss','tout','fwf','setcf','xbar','l1%'))
    for r in out:
        print('%-16s %-10s %-6s %6.2f %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %5.1f'%(r['fam'][:16],'x'.join(map(str,r['block'])),'x'.join(map(str,r['fold'])),r['glups'],r['wf'],r['req'],r['sect'],r['hit'],r['miss'],r['tout'],r['fwf'],r['setcf'],r['xbar'],r['l1pct']))
