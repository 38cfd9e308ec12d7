#!/bin/sh
# L2 loads of a folded range-4 star with the folding steps unrolled or sequential, and
# with fewer resident blocks; writes Nsight Compute CSV to $1.
set -e
nvcc -O3 -arch=sm_90 -o /tmp/foldl2 "$(dirname "$0")/foldl2.cu"
ncu --csv --metrics lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sector_hit_rate.pct,gpu__time_duration.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__inst_executed_op_global_ld.sum /tmp/foldl2 > "$1"
