#!/usr/bin/env bash
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
summ() { python3 -c "
import csv
for r in csv.DictReader(open('$1')): print('$2', r['variant'], r['median_ms'][:7], r['outcome'], r['delta_value'][:9])"; }
./ks_compute_tests --gtest_filter='Lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure|SKIPPED" | head -8
./ks_variant_tests --gtest_filter='*lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure" | head -5
S="--min-reps 2 --max-reps 2 --warmup 0 --no-calibrate -q"
compute-sanitizer --tool memcheck ./kernelscope-cli run --workload lrv --variant dmma_refined --generate samples=37,features=1501,planted=20,noise=1e-4 --param group_rows=16 --param device_output_mb=1 $S 2>&1 | grep -E "ERROR SUMMARY" | sed "s/^/memcheck N=37 grouped chunks /"
compute-sanitizer --tool racecheck ./kernelscope-cli run --workload lrv --variant dmma_refined --generate samples=37,features=1001,planted=20,noise=1e-4 $S 2>&1 | grep -E "RACECHECK SUMMARY" | sed "s/^/racecheck N=37 /"
compute-sanitizer --tool synccheck ./kernelscope-cli run --workload lrv --variant dmma_refined --generate samples=37,features=1001,planted=20,noise=1e-4 --param group_rows=16 $S 2>&1 | grep -E "ERROR SUMMARY" | sed "s/^/synccheck N=37 grouped /"
ab() { local L=$1 G=$2; shift 2
  for b in "$@"; do bin=kernelscope-cli; [ $b != new ] && bin=kernelscope-cli.$b
    ./$bin run --workload lrv --variant dmma_refined --generate $G --time-limit 1.5 --max-reps 60 --csv /tmp/r.csv --quiet >/dev/null 2>&1; sed "s/^/$L,$b,/" /tmp/r.csv >> $OUT/ab.csv; summ /tmp/r.csv "$L $b"; done; }
ab 200 samples=200,features=30000,planted=20,noise=1e-4 cur new cur new
ab 37 samples=37,features=20000,planted=20,noise=1e-4 cur new
ab 80 samples=80,features=10000,planted=20,noise=1e-4 cur new
