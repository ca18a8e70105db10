#!/usr/bin/env bash
# X (L + the log constants as a kernel parameter + loads by a stepped pointer) against L and head.
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
abBuilds 80 $P80 head L X head L X head L X head L X
abBuilds 37 $P37 head L X head L X
abBuilds 200 $P200 head L X
for b in L X; do
  timeout 60 ncu --clock-control none --kernel-name regex:centredSlab --metrics gpu__time_duration.sum,smsp__inst_executed.sum \
    ./kernelscope-cli.$b run --workload lrv --variant dmma_refined --generate $P80 --min-reps 3 --max-reps 3 --warmup 1 \
    --no-calibrate -q 2>&1 | grep -E "gpu__time_duration|inst_executed" | sed "s/^/ncu $b /" | tail -2
done
timeout 100 ncu --clock-control none --section SourceCounters --section WarpStateStats -k regex:centredSlab -c 1 -o /tmp/cenX \
  ./kernelscope-cli.X run --workload lrv --variant dmma_refined --generate $P80 --min-reps 1 --max-reps 1 --warmup 0 \
  --no-calibrate -q > /dev/null 2>&1
timeout 60 ncu -i /tmp/cenX.ncu-rep --page source --csv --print-source sass -k regex:centredSlab > $OUT/source-X.csv 2>&1
ls -la $OUT/source-X.csv
timeout 150 ./ks_compute_tests --gtest_filter='Lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure" | head -8
timeout 200 ./ks_variant_tests --gtest_filter='*lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure" | head -8
for T in memcheck racecheck synccheck; do
timeout 60 compute-sanitizer --tool $T ./kernelscope-cli.X run --workload lrv --variant dmma_refined --generate samples=80,features=1050,planted=20,noise=1e-4 \
    --min-reps 2 --max-reps 2 --warmup 1 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|rror|passed|incorrect|failed" | head -5
timeout 60 compute-sanitizer --tool $T ./kernelscope-cli.X run --workload lrv --variant dmma_refined --generate samples=37,features=1030,planted=20,noise=1e-4 \
    --param device_output_mb=1 --min-reps 2 --max-reps 2 --warmup 1 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|rror|passed|incorrect|failed" | head -5
done
timeout 60 compute-sanitizer --tool memcheck ./kernelscope-cli.X run --workload lrv --variant dmma_refined --generate samples=80,features=1050,planted=20,noise=1e-4 \
    --param alpha=0.5 --min-reps 2 --max-reps 2 --warmup 1 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|rror|passed|incorrect|failed" | head -5
timeout 60 compute-sanitizer --tool memcheck ./kernelscope-cli.X run --workload lrv --variant dmma_refined --generate samples=400,features=600,planted=20,noise=1e-4 \
    --min-reps 2 --max-reps 2 --warmup 1 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|rror|passed|incorrect|failed" | head -5
} 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log
