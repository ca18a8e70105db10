#!/usr/bin/env bash
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
summ() { python3 -c "
import csv
for r in csv.DictReader(open('$1')): print('$2', r['variant'], r['median_ms'][:7], r['outcome'], r['delta_value'][:9])"; }
S="--min-reps 1 --max-reps 1 --warmup 0 --no-calibrate -q"
for b in new cur; do bin=kernelscope-cli; [ $b != new ] && bin=kernelscope-cli.$b
ncu --cache-control none --clock-control none -k regex:dmmaPairs -c 1 --metrics launch__grid_size,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,launch__shared_mem_config_size,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,lts__t_sector_hit_rate.pct ./$bin run --workload lrv --variant dmma_refined --generate samples=80,features=10000,planted=20,noise=1e-4 $S 2>&1 | grep -E "launch__|sm__|gpu__|l1tex|lts" | sed "s/^/$b /"
done
ab() { # label generator reps...
  local L=$1 G=$2; shift 2
  for b in "$@"; do bin=kernelscope-cli; [ $b != new ] && bin=kernelscope-cli.$b
    ./$bin run --workload lrv --variant dmma_refined --generate $G --time-limit 1.5 --max-reps 60 --csv /tmp/r.csv --quiet >/dev/null 2>&1; sed "s/^/$L,$b,/" /tmp/r.csv >> $OUT/ab.csv; summ /tmp/r.csv "$L $b"; done; }
ab 80 samples=80,features=10000,planted=20,noise=1e-4 cur new cur new
ab 200 samples=200,features=30000,planted=20,noise=1e-4 cur new
