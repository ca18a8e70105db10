#!/usr/bin/env bash
# The logarithm tests as amended after the review (worst-case inputs near e^(±2^m), the device's special values).
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; date -u; } | tee $OUT/device.txt
timeout 200 ./ks_compute_tests --gtest_filter='LrvTableLog*:LrvAccuracy.ATileFull*' 2>&1 | grep -E "^\[  PASSED|OK \]|FAILED|Failure" | tee $OUT/session.log
