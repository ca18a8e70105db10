#!/usr/bin/env bash
# The extended long-row test (row_tiles in 1, 2 and 3 panels), its sanitizers, and the bounds arithmetic's change (new12) against new11.
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; date -u; } | tee $OUT/device.txt
summ() { python3 -c "
import csv
for r in csv.DictReader(open('$1')): print('$2', r['variant'], r['median_ms'][:7], r['noise_pct'][:4], r['outcome'])"; }
{
timeout 200 ./ks_compute_tests --gtest_filter='Spmv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure|SKIPPED" | head -20
for T in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $T ./ks_compute_tests --gtest_filter='SpmvRowTilesGpu.EveryRun*' 2>&1 \
    | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" | head -3 | sed "s/^/$T /"; done
for b in new11 new12 new11 new12; do
  timeout 100 ./kernelscope-cli.$b run --workload spmv --variant row_tiles,cusparse --generate pattern=powerlaw,rows=4000000,per_row=8,exponent=2.2 \
    --param precision=f32 --time-limit 1 --max-reps 200 --csv $OUT/pl22_$b.csv --quiet >/dev/null 2>&1; summ $OUT/pl22_$b.csv "pl22-f32 $b"; rm -f $OUT/pl22_$b.csv
done
} 2>&1 | tee $OUT/session.log
