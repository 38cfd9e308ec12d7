#!/bin/bash
# variant.sh F E H TAG [fit extra args]: set rules, fit H100 (params.def), calibrate H200 (json), allsets -> after_TAG.txt
set -e
cd /work/wt-dram
F=$1; E=$2; H=$3; T=$4; shift 4
git checkout estimator/params.def estimator/devices/H200-SXM-141GB.json 2>/dev/null || true
cp /tmp/dram/params.def.work estimator/params.def; cp /tmp/dram/h200.json.work estimator/devices/H200-SXM-141GB.json
sed -i "s/^EST_RULE(FLOAT_DRAM_COST, [0-9.]*,/EST_RULE(FLOAT_DRAM_COST, $F,/; s/^EST_RULE(PARTIAL_EXPONENT, [0-9.]*,/EST_RULE(PARTIAL_EXPONENT, $E,/; s/^EST_PARAM(partial_sectors_half, EST_HELD, [0-9.e+]*,/EST_PARAM(partial_sectors_half, EST_HELD, $H,/" estimator/params.def
sed -i "s/\"partial_sectors_half\": [0-9.e+]*,/\"partial_sectors_half\": $H,/" estimator/devices/H200-SXM-141GB.json
ninja -C build-rel >/dev/null
build-rel/tests/accuracy/accuracy --corpus tests/accuracy/corpus/families,tests/accuracy/corpus/layers,tests/accuracy/corpus/depth --measured tests/accuracy/corpus/h100.jsonl,tests/accuracy/corpus/h100_layers.jsonl,tests/accuracy/corpus/h100_depth.jsonl --fit --starts 4 --save /tmp/dram/v_$T.h100.json "$@" > /tmp/dram/v_$T.fit.log 2>&1
grep "parameters fitted" /tmp/dram/v_$T.fit.log
python3 - $T <<'PY'
import json,re,sys
T=sys.argv[1]
d=json.load(open('/tmp/dram/v_%s.h100.json'%T))
s=open('estimator/params.def').read()
for n in "block_rate_per_sm latency_ns block_granularity limit_sharpness dram_efficiency l2_efficiency store_requests_per_ns store_sectors_per_ns dram_overload_bytes_per_sm partial_sectors_half partial_sector_ns".split():
    s,c=re.subn(r'(EST_PARAM\(%s, EST_\w+, )([^,]+),'%n, lambda m: m.group(1)+('%.4g'%d[n])+',', s); assert c==1,n
open('estimator/params.def','w').write(s)
j=open('estimator/devices/H200-SXM-141GB.json').read()
j=re.sub(r'("partial_sectors_half": )[^,\n]+,', lambda m: m.group(1)+('%g'%d['partial_sectors_half'])+',', j)
open('estimator/devices/H200-SXM-141GB.json','w').write(j)
PY
ninja -C build-rel >/dev/null
build-rel/clients/cli/launchrank calibrate --from-raw tests/data/calibration/h200_raw.json --name H200-SXM-141GB --base H200-SXM-141GB --out /tmp/dram/v_$T.h200.json > /tmp/dram/v_$T.cal.log 2>&1
grep "^objective" /tmp/dram/v_$T.cal.log
python3 - $T <<'PY'
import json,re,sys
T=sys.argv[1]
d=json.load(open('/tmp/dram/v_%s.h200.json'%T))
p='estimator/devices/H200-SXM-141GB.json'; s=open(p).read()
for k in "block_rate_per_sm latency_ns block_granularity limit_sharpness dram_efficiency l2_efficiency store_requests_per_ns store_sectors_per_ns partial_sector_ns dram_overload_bytes_per_sm".split():
    s,c=re.subn(r'("%s": )[^,\n]+,'%k, lambda m: m.group(1)+repr(d[k])+',', s); assert c==1,k
open(p,'w').write(s)
PY
ninja -C build-rel >/dev/null
/tmp/dram/allsets.sh /work/wt-dram /tmp/dram/after_$T.txt
cp estimator/params.def /tmp/dram/params.def.$T; cp estimator/devices/H200-SXM-141GB.json /tmp/dram/h200.$T.json
python3 /tmp/wr/cmp.py /tmp/dram/before.txt /tmp/dram/after_$T.txt > /tmp/dram/cmp_$T.txt
tail -1 /tmp/dram/cmp_$T.txt
grep -A1 "^   " /tmp/dram/cmp_$T.txt | grep "^->" | grep -E " (h100|h200|h200_compute|h200_compute_heldout|lbmconc|streams|idlewarps) summary" | sed 's/fixed block.*//;s/ (v2,/(/;s/summary//'
