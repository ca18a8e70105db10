#!/usr/bin/env bash
# The committed build (final: m16n8k16 a whole stage) against head: A/B at 80 x 10,000, 160 x 30,000, 200 x 30,000, 37 x 20,000; Nsight Compute on both at 80 x 10,000; the Lrv* tests and the registry's lrv cases; sanitizers.
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
P160=samples=160,features=30000,planted=20,noise=1e-4
P200=samples=200,features=30000,planted=20,noise=1e-4
P37=samples=37,features=20000,planted=20,noise=1e-4
{
EXTRA=""
abBuilds 80 $P80 head final head final head final head final
abBuilds 160 $P160 head final
abBuilds 200 $P200 head final
abBuilds 37 $P37 head final
for b in head final; do
  timeout 120 ncu --clock-control none --kernel-name regex:dmmaPairsKernel --launch-skip 20 --launch-count 3 \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,smsp__inst_executed.sum,sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum \
    ./kernelscope-cli.$b run --workload lrv --variant dmma_refined --generate $P80 --min-reps 30 --max-reps 30 --warmup 0 --no-calibrate -q > $OUT/ncu_$b.txt 2>&1
  grep -E "^\s+[a-z]" $OUT/ncu_$b.txt | sed "s/^/ncu $b /"
done
timeout 200 ./ks_compute_tests --gtest_filter='Lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure" | head -8
timeout 150 ./ks_variant_tests --gtest_filter='*lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|tests? ran" | head -6
for T in memcheck racecheck synccheck; do
timeout 60 compute-sanitizer --tool $T ./kernelscope-cli.final run --workload lrv --variant dmma_refined --generate samples=80,features=1050,planted=20,noise=1e-4 \
    --min-reps 2 --max-reps 2 --warmup 1 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|rror|passed|incorrect|failed" | head -5 | sed "s/^/$T 80 /"
timeout 60 compute-sanitizer --tool $T ./kernelscope-cli.final run --workload lrv --variant dmma_refined --generate samples=96,features=1030,planted=20,noise=1e-4 \
    --param group_rows=2 --param device_output_mb=1 --min-reps 2 --max-reps 2 --warmup 1 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|rror|passed|incorrect|failed" | head -5 | sed "s/^/$T 96 grouped chunks /"
done
timeout 200 compute-sanitizer --tool memcheck ./ks_compute_tests --gtest_filter='LrvAccuracy.EitherTileOrder*' 2>&1 | grep -E "ERROR SUMMARY|^\[  PASSED|FAILED" | head -4 | sed "s/^/memcheck /"
} 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log
