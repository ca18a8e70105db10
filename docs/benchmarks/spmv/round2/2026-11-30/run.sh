#!/usr/bin/env bash
# spmv: long rows in one launch with their sums finished by the row's last block, and row_tiles running them at the
# head of its own grid (new) against head; tests and sanitizers on new.
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; date -u; } | tee $OUT/device.txt
summ() { python3 -c "
import csv
for r in csv.DictReader(open('$1')): print('$2', r['variant'], r['median_ms'][:7], r['noise_pct'][:4], r['outcome'], r['delta_value'][:9])"; }
ab() { local L=$1 G=$2 V=$3 PR=$4; shift 4
  for b in "$@"; do
    timeout 150 ./kernelscope-cli.$b run --workload spmv --variant $V --generate $G --param precision=$PR --time-limit 1 \
      --max-reps 100 --csv /tmp/r.csv --quiet >/dev/null 2>/tmp/err.txt || { echo "$L $b FAILED rc=$?"; head -3 /tmp/err.txt; }
    sed "s/^/$L-$PR,$b,/" /tmp/r.csv >> $OUT/ab.csv; summ /tmp/r.csv "$L-$PR $b"; rm -f /tmp/r.csv; done; }
P22=pattern=powerlaw,rows=4000000,per_row=8,exponent=2.2
P24=pattern=powerlaw,rows=4000000,per_row=8,exponent=2.4
P16=pattern=powerlaw,rows=2000000,per_row=16,exponent=1.6
U16=pattern=uniform,rows=4000000,per_row=16
D20=pattern=uniform,rows=20000,per_row=2000
V=row_tiles,cusparse,cusparse_alg2
{
timeout 200 ./ks_compute_tests --gtest_filter='Spmv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure|SKIPPED" | head -20
for T in memcheck racecheck synccheck; do
  timeout 120 compute-sanitizer --tool $T ./ks_compute_tests --gtest_filter='SpmvRowTilesGpu.EveryRun*' 2>&1 \
    | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" | head -3 | sed "s/^/$T /"; done
timeout 100 compute-sanitizer --tool memcheck ./kernelscope-cli.new11 run --workload spmv --variant row_tiles,auto,scalar,row_binning \
  --generate pattern=powerlaw,rows=300000,per_row=8,exponent=1.6 --param precision=f32 --min-reps 2 --max-reps 2 \
  --warmup 1 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|rror" | head -3 | sed "s/^/memcheck cli /"
ab d20 $D20 row_binning,scalar,cusparse f32 head new11 head new11
ab d20 $D20 row_binning,scalar,cusparse f64 head new11
ab pl16x $P16 scalar,row_binning,subwarp,adaptive f32 head new11
ab pl22 $P22 $V f64 head new11
timeout 400 ./ks_variant_tests --gtest_filter='*spmv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure" | head -8
mkdir -p $OUT/table
for entry in "powerlaw22_4m:pattern=powerlaw,rows=4000000,per_row=8,exponent=2.2" "short3_8m:pattern=uniform,rows=8000000,per_row=3" \
  "uniform16_4m:pattern=uniform,rows=4000000,per_row=16" "banded61_2m:pattern=banded,rows=2000000,bandwidth=30" \
  "laplacian2d_16m:pattern=laplacian2d,rows=16000000" "denserows_20k:pattern=uniform,rows=20000,per_row=2000" \
  "powerlaw16_2m:pattern=powerlaw,rows=2000000,per_row=16,exponent=1.6" "powerlaw24_4m:pattern=powerlaw,rows=4000000,per_row=8,exponent=2.4" \
  "short2_16m:pattern=uniform,rows=16000000,per_row=2" "laplacian3d_160:pattern=laplacian3d,rows=4096000"; do
  name=${entry%%:*}; gen=${entry#*:}
  for pr in f64 f32; do
    timeout 100 ./kernelscope-cli.new11 run --workload spmv --variant auto,row_tiles,row_binning,ell,cusparse,cusparse_alg2 --generate $gen \
      --param precision=$pr --time-limit 1 --max-reps 200 --csv $OUT/table/spmv_${name}_${pr}.csv --quiet >/dev/null 2>&1 || echo "$name $pr rc=$?"
    summ $OUT/table/spmv_${name}_${pr}.csv "T $name-$pr" | grep -E " (auto|cusparse|cusparse_alg2) "
  done
done
tar -czf $OUT/table.tar.gz -C $OUT table && rm -rf $OUT/table
} 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log
