#!/usr/bin/env bash
# The call that wrote this folder (H200, 2026-11-29, 23:29 UTC): `bash run.sh` on the device machine with
# kernelscope-cli at d5a87eb (its code is d99ef16's) unpacked from .gpubin/bins.tar.xz as kernelscope-cli.head.
# row_tiles and cuSPARSE on the power-law matrix of exponent 2.2 (4M rows, 8 a row on average) in both precisions, then Nsight Compute's kernel
# times for row_tiles (boost clocks, caches flushed before each kernel, two repetitions).
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
G=pattern=powerlaw,rows=4000000,per_row=8,exponent=2.2
{ for prec in f32 f64; do
  timeout 120 ./kernelscope-cli.head run --workload spmv --variant row_tiles,cusparse --generate $G --param precision=$prec \
    --time-limit 1 --max-reps 100 --csv $OUT/run_$prec.csv --quiet > /dev/null 2>&1
  python3 -c "
import csv
for r in csv.DictReader(open('$OUT/run_$prec.csv')): print('$prec', r['variant'], r['median_ms'][:7], r['outcome'], r['message'][:300])"
  timeout 200 ncu --clock-control none --metrics gpu__time_duration.sum ./kernelscope-cli.head run --workload spmv \
    --variant row_tiles --generate $G --param precision=$prec --min-reps 2 --max-reps 2 --warmup 0 --no-calibrate -q \
    > $OUT/ncu_$prec.log 2>&1
  grep -E "^  [a-zA-Z_].*\(|gpu__time_duration" $OUT/ncu_$prec.log | sed -E 's/\(const .*//' | tail -24
done; } 2>&1 | tee $OUT/session.log
