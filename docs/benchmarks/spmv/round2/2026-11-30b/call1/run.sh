#!/usr/bin/env bash
# spmv dia (call 1): the registry's dia and auto cases, the sanitizers, and a first timing on the banded and 2-D Laplacian matrices.
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; date -u; } | tee $OUT/device.txt
{
timeout 200 ./ks_variant_tests --gtest_filter='*spmv_dia_*:*spmv_auto_*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure|SKIPPED \]" | head -12
for pr in f64 f32; do for g in pattern=laplacian2d,rows=1000 pattern=banded,rows=3001,bandwidth=5 pattern=laplacian3d,rows=1000; do
  for T in memcheck racecheck; do
    timeout 100 compute-sanitizer --tool $T ./kernelscope-cli run --workload spmv --variant dia,auto --generate $g --param precision=$pr \
      --min-reps 2 --max-reps 2 --warmup 1 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^(dia|auto) " | head -3 | sed "s/^/$T $g $pr /"
  done; done; done
for entry in "banded61_2m:pattern=banded,rows=2000000,bandwidth=30" "laplacian2d_16m:pattern=laplacian2d,rows=16000000"; do
  for pr in f32 f64; do
    timeout 100 ./kernelscope-cli run --workload spmv --variant auto,ell,dia,cusparse --generate ${entry#*:} --param precision=$pr \
      --time-limit 1 --max-reps 200 --csv $OUT/first_${entry%%:*}_$pr.csv --quiet >/dev/null 2>&1
    python3 -c "
import csv
for r in csv.DictReader(open('$OUT/first_${entry%%:*}_$pr.csv')): print('${entry%%:*} $pr', r['variant'], r['median_ms'][:7], r['outcome'], r['delta_value'][:9], r['message'][:60])"
  done; done
mkdir -p $OUT/first; mv $OUT/first_*.csv $OUT/first/; tar -czf $OUT/first.tar.gz -C $OUT first && rm -rf $OUT/first
} 2>&1 | tee $OUT/session.log
