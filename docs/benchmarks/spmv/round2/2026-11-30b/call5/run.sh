#!/usr/bin/env bash
# spmv: auto hands dia the diagonals it counted (one scan at prepare instead of two): the dia and auto tests again.
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee $OUT/device.txt
{
timeout 120 ./ks_compute_tests --gtest_filter='SpmvDia*:SpmvAuto*' 2>&1 | grep -E "^\[  PASSED  \]|^\[  FAILED  \]|^\[  SKIPPED \]|Failure" | head -6
timeout 100 ./ks_variant_tests --gtest_filter='*spmv_dia_*:*spmv_auto_*' 2>&1 | grep -E "^\[  PASSED  \]|^\[  FAILED  \]" | head -4
timeout 60 ./kernelscope-cli run --workload spmv --variant auto --generate pattern=laplacian2d,rows=1000000 --param precision=f32 \
  --min-reps 3 --max-reps 3 --no-calibrate -q 2>&1 | grep -E "^auto " | cut -c1-170
} 2>&1 | tee $OUT/session.log
