#!/usr/bin/env bash
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
summ() { python3 -c "
import csv
for r in csv.DictReader(open('$1')): print('$2', r['variant'], r['median_ms'][:7], r['outcome'], r['delta_value'][:9])"; }
ab() { local L=$1 G=$2; shift 2
  for b in "$@"; do bin=kernelscope-cli.$b
    ./$bin run --workload lrv --variant dmma_refined --generate $G --time-limit 1.5 --max-reps 60 --csv /tmp/r.csv --quiet >/dev/null 2>&1; sed "s/^/$L,$b,/" /tmp/r.csv >> $OUT/ab.csv; summ /tmp/r.csv "$L $b"; done; }
ab 80 samples=80,features=10000,planted=20,noise=1e-4 cur b5s b5sr cur b5s b5sr
ab 200 samples=200,features=30000,planted=20,noise=1e-4 cur b5 b5s b5sr cur b5s b5sr
ab 37 samples=37,features=20000,planted=20,noise=1e-4 cur b5 b5s b5sr
