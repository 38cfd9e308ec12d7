#!/usr/bin/env bash
# The meshes and orderings of this campaign, as they were made on 2026-11-29 (Debian 12:
# gmsh/python3-gmsh 4.8.4+ds2-3, metis 5.1.0.dfsg-7, python3-scipy 1.10.1-2, python3-numpy
# 1.24.2; `apt-get install gmsh python3-gmsh metis python3-scipy python3-numpy`), then
# staged into the checkout that the device tool sends:
#   lab/2026-11-29-mesh/make_all.sh WORKDIR CHECKOUT
# gmsh 4.8.4 on 2 threads is NOT deterministic: a second run of the cube gave 917,721 cells
# instead of 918,054. The measured meshes are identified by meshes/sha256.txt; cube1m's
# carried files are committed in meshes/cube1m/ (the other two were too large to commit).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$1 co=$2
mkdir -p "$work"
/usr/bin/python3 "$here/make_mesh.py" cube 0.01699 "$work/cube1m"        # 918,054 cells, 39 s
/usr/bin/python3 "$here/make_mesh.py" cyl 0.0156 "$work/cyl2m"           # 1,847,341 cells, 217 s
/usr/bin/python3 "$here/make_mesh.py" refined 0.016 "$work/refined4m"    # 3,702,311 cells, 608 s
/usr/bin/python3 "$here/make_mesh.py" cube 0.0155 "$work/cube1p2m"       # 1,225,112 cells, 126 s (run 4)
for m in cube1m cyl2m refined4m cube1p2m; do
  /usr/bin/python3 "$here/make_orderings.py" "$work/$m"                  # gpmetis k = n/64: 1-4 min
done
grep -qx '/.mesh-carry/' "$co/.git/info/exclude" 2>/dev/null || echo '/.mesh-carry/' >> "$co/.git/info/exclude"
"$here/stage.sh" "$work" "$co"
# then, through the device tool (kind nvidia-h200, carry [".mesh-carry"]):
#   run 1: DEADLINE=555 bash .mesh-carry/device_run.sh time prof:256,1024 prof:64,128,512
#   run 2: DEADLINE=420 METRICS="gpu__time_duration.sum l1tex__data_pipe_lsu_wavefronts.sum
#          l1tex__data_pipe_lsu_wavefronts_mem_lg_cmd_read.sum l1tex__data_pipe_lsu_wavefronts_mem_lg_cmd_write.sum
#          smsp__inst_executed_op_global_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum
#          l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum" bash .mesh-carry/device_run.sh time prof:64,128,256,512,1024
#          (the two _mem_lg_ names do not exist in ncu 2025.3.1 and came back as no column)
#   run 3: DEADLINE=400 NOMESH=1 BLIST="3145728 4194304 6291456 8388608 12582912" METRICS="<run 1's
#          list and run 2's, see README.md>" bash .mesh-carry/device_run.sh time prof:64,128,256,512,1024
# and python3 lab/2026-11-29-mesh/reduce.py lab/2026-11-29-mesh/raw/run{1,2,3}_ > h200.csv
#   run 4 (cube1p2m alone staged, after the model was fixed): DEADLINE=420 BLIST="32" METRICS="<run 3's
#          list>" bash .mesh-carry/device_run.sh time prof:64,128,256,512,1024
#          python3 lab/2026-11-29-mesh/reduce.py lab/2026-11-29-mesh/raw/run4_ | grep cube1p2m >> h200.csv
