#!/usr/bin/env bash
# The Lrv* tests after the final read (the table made by one helper for the centring and the test kernel; the device check by device::cudaDevices).
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; date -u; } | tee $OUT/device.txt
timeout 200 ./ks_compute_tests --gtest_filter='Lrv*' 2>&1 | grep -E "^\[  PASSED|OK \]|FAILED|Failure" | tee $OUT/session.log
