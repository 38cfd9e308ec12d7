#!/bin/sh
# Measures L1 data-pipe wavefronts per warp instruction for the cases of l1wave.cu
# with Nsight Compute; writes the raw CSV to $1 (default l1wave.csv). Needs a GPU, nvcc, ncu.
set -e
out=${1:-l1wave.csv}
dir=$(dirname "$0")
nvcc -O3 -arch=sm_90 -o /tmp/l1wave "$dir/l1wave.cu"
cuobjdump -sass /tmp/l1wave | grep -E "Function|LDG|STG" > "${out%.csv}.sass.txt" || true
ncu --csv --metrics l1tex__data_pipe_lsu_wavefronts.sum,l1tex__data_pipe_lsu_wavefronts_mem_lg_cmd_read.sum,l1tex__data_pipe_lsu_wavefronts_mem_lg_cmd_write.sum,smsp__inst_executed_op_global_ld.sum,smsp__inst_executed_op_global_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__data_bank_reads.sum,l1tex__data_bank_writes.sum /tmp/l1wave > "$out"
