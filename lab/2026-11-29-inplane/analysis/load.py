import json,glob,os,statistics as st
HERE=os.path.dirname(os.path.abspath(__file__))
ROOT=os.path.abspath(os.path.join(HERE,'../../..'))+'/'
def load(d,name):
    rows=[json.loads(l) for l in open(f'{d}/{name}.dump') if l.startswith('{')]
    return rows
def meas_map(path):
    m={}
    for l in open(path):
        r=json.loads(l); m[(r['family'],tuple(r['block']),tuple(r['folding']))]=r
    return m
SETS=[l.split() for l in open(HERE+'/sets.txt')]
def measpath(s):
    name,corp,meas,dev=s
    return ROOT+(meas if corp.startswith('@') else 'tests/accuracy/corpus/'+meas)
