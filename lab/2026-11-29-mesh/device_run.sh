#!/usr/bin/env bash
# The device side of the mesh campaign (run through the `device` tool, kind nvidia-h200).
# This folder travels as .mesh-carry/ (copied there with its data/ by stage.sh) and runs as
#   bash .mesh-carry/device_run.sh STEP...        ($OUT: the device tool's output folder)
# STEP: time           builds, checks and times every instance (time.csv, log.txt)
#       prof:B1,B2...  Nsight Compute counters of one launch per configuration at those
#                      block sizes, one ncu process per instance group (ncu_*.csv, order_*.csv
#                      concatenated into ncu.csv / order.csv at the end)
# BLIST="b1 b2 ..." replaces the synthetic block sizes; NOMESH=1 leaves the meshes out.
# Steps run in order while DEADLINE seconds (default 540) from the start remain.
# METRICS="a.sum b.sum ..." profiles exactly those (not filtered through ncu --query-metrics,
# which does not list l1tex__data_pipe_lsu_wavefronts_mem_lg_cmd_read although ncu reads it).
# What comes back: info.txt (date, GPU, driver, CUDA, nvcc, ptxas -v, SASS loads, sha256 of
# the decoded mesh files, gen_blocks hashes), log.txt, time.csv, ncu.csv, order.csv.
set -uo pipefail
t0=$(date +%s)
deadline=$((t0 + ${DEADLINE:-540}))
here=$(cd "$(dirname "$0")" && pwd)
W=/tmp/mesh
mkdir -p "$W"
info=$OUT/info.txt log=$OUT/log.txt
export PATH=/usr/local/cuda/bin:$PATH
{
  echo "date_utc $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total,ecc.mode.current --format=csv
  nvidia-smi | grep -m1 "CUDA Version"
  ncu --query-metrics 2>&1 | grep -i "wavefronts" | cut -c1-100
  nvcc --version | tail -2
  ncu --version | tail -1
  uname -r
} > "$info" 2>&1

# build (the harness and the generator, with nvcc and g++ as well as gcc)
nvcc -O3 -arch=sm_90 -std=c++17 -Xptxas -v -o "$W/mesh_bench" "$here/mesh_bench.cu" >> "$info" 2>&1 \
  || { echo "nvcc failed"; cat "$info"; exit 1; }
echo "--- SASS memory instructions of mesh_kernel" >> "$info"
for f in _Z11mesh_kernelIdEviPKiPKT_S4_PS2_ _Z11mesh_kernelIfEviPKiPKT_S4_PS2_; do
  cuobjdump -sass -fun "$f" "$W/mesh_bench" | grep -E "Function : |LDG|STG|LD\.|ST\." >> "$info" 2>&1
done
gcc -O2 -std=c11 -o "$W/gen_blocks" "$here/gen_blocks.c" && g++ -O2 -x c++ -o "$W/gen_blocks_gxx" "$here/gen_blocks.c" \
  && nvcc -O2 -x cu -o "$W/gen_blocks_nvcc" "$here/gen_blocks.c" >> "$log" 2>&1
echo "--- gen_blocks (gcc, g++, nvcc) hashes" >> "$info"
for g in gen_blocks gen_blocks_gxx gen_blocks_nvcc; do
  for b in 32 16777216; do "$W/$g" 16777216 $b "$W/g.i32" >> "$info" 2>&1; done
  "$W/$g" --perm 918054 "$W/g.i32" >> "$info" 2>&1
done
rm -f "$W/g.i32"

# decode the carried meshes
meshes=""
for f in $([ -n "${NOMESH:-}" ] || echo "$here"/data/*.rcmnup.u8.xz); do
  [ -e "$f" ] || continue
  m=$(basename "$f" .rcmnup.u8.xz)
  python3 "$here/decode_mesh.py" "$here/data/$m" "$W/$m" >> "$log" 2>&1 || { echo "decode $m failed" >> "$log"; continue; }
  meshes="$meshes $m"
done
echo "--- sha256 of the decoded mesh files" >> "$info"
(cd "$W" && sha256sum *.given.i32 *.perm.*.i32) >> "$info" 2>&1

# manifests: the synthetic sweep, then one per mesh
N=16777216
: > "$W/m_blocks"
for b in ${BLIST:-32 128 512 2048 8192 32768 131072 524288 2097152 $N}; do echo "blocks $N $b" >> "$W/m_blocks"; done
groups="blocks"
for m in $meshes; do
  {
    echo "mesh $m given $W/$m.given.i32"
    echo "mesh $m random $W/$m.given.i32"
    for o in rcm metis64 metis1024 metis16384; do echo "mesh $m $o $W/$m.given.i32 $W/$m.perm.$o.i32"; done
  } > "$W/m_$m"
  groups="$groups $m"
done
cat "$W"/m_* > "$W/m_all"

for step in "$@"; do
  now=$(date +%s)
  if [ "$now" -ge "$deadline" ]; then echo "deadline: skipped $step" | tee -a "$log"; continue; fi
  case $step in
    time)
      echo "=== time ($(date -u +%T))" >> "$log"
      timeout $((deadline - now)) "$W/mesh_bench" time "$W/m_all" "$OUT/time.csv" >> "$log" 2>&1
      echo "time rc=$?" >> "$log" ;;
    prof:*)
      blocks=${step#prof:}
      if [ -n "${METRICS:-}" ]; then
        echo "$METRICS" | tr ' ' ',' > "$W/metrics_list"   # as given, not filtered
      elif [ ! -e "$W/metrics_list" ]; then
        wanted="gpu__time_duration.sum dram__bytes_read.sum dram__bytes_write.sum
lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcunit_tex_op_write.sum
lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum lts__t_requests_srcunit_tex_op_read.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
l1tex__data_pipe_lsu_wavefronts_mem_lg_cmd_read.sum l1tex__data_pipe_lsu_wavefronts_mem_lg.sum
sm__cycles_elapsed.avg sm__cycles_elapsed.avg.per_second launch__registers_per_thread
sm__warps_active.avg.pct_of_peak_sustained_active"
        ncu --query-metrics > "$W/metrics.txt" 2>&1
        list=""
        for m in $wanted; do
          base=${m%%.*}
          case $m in launch__*) list="$list,$m"; continue;; esac
          grep -q "^$base " "$W/metrics.txt" && list="$list,$m" || echo "not available: $m" >> "$log"
        done
        echo "${list#,}" > "$W/metrics_list"
      fi
      for g in $groups; do
        now=$(date +%s)
        if [ "$now" -ge "$deadline" ]; then echo "deadline: skipped $step $g" | tee -a "$log"; continue; fi
        tag="${g}_${blocks//,/-}"
        echo "=== ncu $tag ($(date -u +%T))" >> "$log"
        BLOCKS="${blocks//,/ }" timeout $((deadline - now)) \
          ncu --csv --page raw --print-units base --clock-control none --cache-control all \
              -k regex:mesh_kernel --metrics "$(cat "$W/metrics_list")" --log-file "$W/ncu_$tag.csv" \
              "$W/mesh_bench" profile "$W/m_$g" "$W/order_$tag.csv" >> "$log" 2>&1
        echo "ncu $tag rc=$?" >> "$log"
      done ;;
    *) echo "unknown step $step" >> "$log" ;;
  esac
done

# one ncu.csv / order.csv: each ncu file's header once, rows tagged with their file
python3 - "$W" "$OUT" <<'EOF' >> "$log" 2>&1
import sys, glob, os
W, OUT = sys.argv[1], sys.argv[2]
with open(os.path.join(OUT, "ncu.csv"), "w") as fo, open(os.path.join(OUT, "order.csv"), "w") as oo:
    for f in sorted(glob.glob(os.path.join(W, "ncu_*.csv"))):
        tag = os.path.basename(f)[4:-4]
        fo.write(f"### {tag}\n" + open(f).read())
        o = os.path.join(W, f"order_{tag}.csv")
        if os.path.exists(o):
            oo.write(f"### {tag}\n" + open(o).read())
EOF
echo "total $(( $(date +%s) - t0 )) s" >> "$log"
# short table last: best block per instance, ordering, precision
python3 - "$OUT/time.csv" <<'EOF'
import csv, sys, collections
try:
    rows = list(csv.DictReader(open(sys.argv[1])))
except OSError:
    sys.exit("no time.csv")
best = collections.OrderedDict()
for r in rows:
    k = (r["instance"], r["ordering"], r["prec"])
    if k not in best or float(r["glups"]) > float(best[k]["glups"]):
        best[k] = r
print(f"{'instance':10} {'ordering':>10} {'prec':4} {'B':>5} {'GLup/s':>7} {'warm':>7} relerr")
for (i, o, p), r in best.items():
    print(f"{i:10} {o:>10} {p:4} {r['block']:>5} {float(r['glups']):7.2f} {float(r['glups_warm']):7.2f} {r['relerr']}")
EOF
tail -5 "$log"
