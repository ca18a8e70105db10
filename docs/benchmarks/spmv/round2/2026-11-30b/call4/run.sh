#!/usr/bin/env bash
# spmv dia after the review: the new GPU tests, the registry's dia/auto/ell cases, and the sanitizers on auto → dia (500,000 rows or more).
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; date -u; } | tee $OUT/device.txt
{
timeout 120 ./ks_compute_tests --gtest_filter='SpmvDia*:SpmvAuto*:Spmv*Gpu*:Runner*' 2>&1 | grep -E "^\[  PASSED  \]|^\[  FAILED  \]|^\[  SKIPPED \]|tests? ran|Failure" | head -8
timeout 100 ./ks_variant_tests --gtest_filter='*spmv_dia_*:*spmv_auto_*:*spmv_ell_*' 2>&1 | grep -E "^\[  PASSED  \]|^\[  FAILED  \]|tests? ran" | head -4
for pr in f32 f64; do for g in pattern=laplacian3d,rows=512000 pattern=banded,rows=600000,bandwidth=3; do for T in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $T ./kernelscope-cli run --workload spmv --variant auto --generate $g --param precision=$pr \
    --min-reps 1 --max-reps 1 --warmup 0 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^auto " | cut -c1-150 | head -2 | sed "s/^/$T $g $pr /"
done; done; done
} 2>&1 | tee $OUT/session.log
