#!/usr/bin/env bash
# h2 (the one-step-last instances as 2 x 2 warps at four blocks an SM, m16n8k16 on their whole stages) against k16 and head at 37 x 20,000 and 200 x 30,000; k16 again at 80 x 10,000; h2's tests; sanitizers on h2 (which holds k16's whole-stage kernels).
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; date -u; } | tee $OUT/device.txt
summ() { python3 -c "
import csv
for r in csv.DictReader(open('$1')): print('$2', r['variant'], r['median_ms'][:7], r['noise_pct'][:4], r['outcome'], r['delta_value'][:9])"; }
abBuilds() { local L=$1 G=$2; shift 2
  for b in "$@"; do
    timeout 120 ./kernelscope-cli.$b run --workload lrv --variant dmma_refined --generate $G --time-limit 1.5 \
      --max-reps 60 --csv /tmp/r.csv --quiet $EXTRA >/dev/null 2>/tmp/err.txt || { echo "$L $b FAILED rc=$?"; head -3 /tmp/err.txt; }
    sed "s/^/$L,$b,/" /tmp/r.csv >> $OUT/ab.csv; summ /tmp/r.csv "$L $b"; rm -f /tmp/r.csv; done; }
P80=samples=80,features=10000,planted=20,noise=1e-4
P200=samples=200,features=30000,planted=20,noise=1e-4
P37=samples=37,features=20000,planted=20,noise=1e-4
{
EXTRA=""
abBuilds 80 $P80 head k16 head k16
abBuilds 37 $P37 head k16 h2 head k16 h2
abBuilds 200 $P200 head k16 h2 head h2
timeout 150 ./ks_compute_tests.h2 --gtest_filter='Lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure" | head -8
timeout 150 ./ks_variant_tests.h2 --gtest_filter='*lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|tests? ran" | head -6
for T in memcheck racecheck synccheck; do
timeout 60 compute-sanitizer --tool $T ./kernelscope-cli.h2 run --workload lrv --variant dmma_refined --generate samples=80,features=1050,planted=20,noise=1e-4 \
    --min-reps 2 --max-reps 2 --warmup 1 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|rror|passed|incorrect|failed" | head -5 | sed "s/^/$T 80 /"
timeout 60 compute-sanitizer --tool $T ./kernelscope-cli.h2 run --workload lrv --variant dmma_refined --generate samples=37,features=1030,planted=20,noise=1e-4 \
    --param device_output_mb=1 --min-reps 2 --max-reps 2 --warmup 1 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|rror|passed|incorrect|failed" | head -5 | sed "s/^/$T 37 chunks /"
done
timeout 60 compute-sanitizer --tool memcheck ./kernelscope-cli.h2 run --workload lrv --variant dmma_refined --generate samples=96,features=1030,planted=20,noise=1e-4 \
    --param group_rows=2 --param device_output_mb=1 --min-reps 2 --max-reps 2 --warmup 1 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|rror|passed|incorrect|failed" | head -5 | sed "s/^/memcheck 96 grouped chunks /"
} 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log
