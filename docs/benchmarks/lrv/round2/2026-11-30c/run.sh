#!/usr/bin/env bash
# The twelfth session's device calls (H200, 2026-11-30, 03:52–04:06 UTC): `bash run.sh flush|hold` on the device
# machine, with the binaries of the build under test unpacked from .gpubin/bins.tar.xz (README.md says which).
#   flush: the L2 flush as committed (memset of twice L2) against two experimental ones chosen by KS_L2_FLUSH
#          (tried/flush-modes.diff): `read`, a read-only pass over the buffer (L2 left full of clean lines), and
#          `discard`, the memset followed by discard.global.L2 over the buffer (L2 left empty).
#   hold:  the event timer holding its stream with a blocking kernel until the repetition's work is enqueued
#          (tried/stream-hold.diff), against the committed timer (KS_NO_HOLD=1, `old`).
#   sharedmem: Nsight Compute's shared-memory counters (wavefronts, bank conflicts) and per-SASS stall samples of the
#          tensor-core kernel at 80 × 10,000 (kernelscope-cli as committed).
#   layout: the fragment-order copies tile-major (tried/tile-major-fragments.diff, `new`) against `head`, then the
#          tests and sanitizers on `new`.
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,memory.total --format=csv,noheader; date -u; } | tee $OUT/device.txt
summ() { python3 -c "
import csv
for r in csv.DictReader(open('$1')): print('$2', r['variant'], r['median_ms'][:7], r['noise_pct'][:4], r['outcome'], r['delta_value'][:9])"; }
# ab LABEL WORKLOAD GENERATOR VARIANTS MODE...: one CLI run a mode, in the order given; rows appended to ab.csv.
# (layout: the modes are builds, kernelscope-cli.head and kernelscope-cli.new, run by abBuilds.)
ab() { local L=$1 W=$2 G=$3 V=$4; shift 4
  for m in "$@"; do envs=(KS_L2_FLUSH=$m); [ $m = old ] && envs=(KS_NO_HOLD=1); [ $m = hold ] && envs=()
    timeout 120 env "${envs[@]}" ./kernelscope-cli run --workload $W --variant $V --generate $G --time-limit 1.5 \
      --max-reps 60 --csv /tmp/r.csv --quiet $EXTRA >/dev/null 2>/tmp/err.txt || { echo "$L $m FAILED rc=$?"; head -3 /tmp/err.txt; }
    sed "s/^/$L,$m,/" /tmp/r.csv >> $OUT/ab.csv; summ /tmp/r.csv "$L $m"; rm -f /tmp/r.csv; done; }
P80=samples=80,features=10000,planted=20,noise=1e-4
P200=samples=200,features=30000,planted=20,noise=1e-4
P37=samples=37,features=20000,planted=20,noise=1e-4
PL22=pattern=powerlaw,rows=4000000,per_row=8,exponent=2.2
abBuilds() { local L=$1 G=$2 V=$3; shift 3
  for b in "$@"; do
    timeout 120 ./kernelscope-cli.$b run --workload lrv --variant $V --generate $G --time-limit 1.5 \
      --max-reps 60 --csv /tmp/r.csv --quiet $EXTRA >/dev/null 2>/tmp/err.txt || { echo "$L $b FAILED rc=$?"; head -3 /tmp/err.txt; }
    sed "s/^/$L,$b,/" /tmp/r.csv >> $OUT/ab.csv; summ /tmp/r.csv "$L $b"; rm -f /tmp/r.csv; done; }
sanitize() { local T=$1 L=$2 G=$3; shift 3
  timeout 120 compute-sanitizer --tool $T ./kernelscope-cli.new run --workload lrv --variant dmma_refined --generate $G \
    "$@" --min-reps 2 --max-reps 2 --warmup 0 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|rror" \
    | head -5 | sed "s/^/$T $L /"; }
S37=samples=37,features=1501,planted=20,noise=1e-4
R37=samples=37,features=1001,planted=20,noise=1e-4
streamed() {
  timeout 200 ./kernelscope-cli run --workload lrv --variant dmma_refined --generate samples=1000,features=50000,planted=20,noise=1e-4 \
    --param device_output_mb=2048 --time-limit 5 --max-reps 5 --csv $OUT/lrv_1000x50000_2048mb.csv --quiet >/dev/null 2>&1
  summ $OUT/lrv_1000x50000_2048mb.csv 1000x50000; }
case "${1:-}" in
flush)
  { EXTRA=""
    ab 80 lrv $P80 dmma_refined memset read discard memset read discard memset read discard
    ab 37 lrv $P37 dmma_refined memset read discard memset read discard
    ab 200 lrv $P200 dmma_refined memset read discard memset read discard
    EXTRA="--param precision=f32"; ab pl22f32 spmv $PL22 auto,cusparse memset read discard memset read discard
    EXTRA="--param precision=f64"; ab pl22f64 spmv $PL22 auto,cusparse memset read discard
    ab u16f64 spmv pattern=uniform,rows=4000000,per_row=16 auto,cusparse memset read discard
    EXTRA=""
    for m in memset read discard; do # the cache as the flush left it: Nsight Compute's own flush off
      KS_L2_FLUSH=$m timeout 120 ncu --cache-control none --clock-control none --kernel-name regex:dmmaPairsKernel \
        --launch-skip 20 --launch-count 3 \
        --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,dram__bytes_write.sum,dram__bytes_read.sum \
        ./kernelscope-cli run --workload lrv --variant dmma_refined --generate $P80 --min-reps 30 --max-reps 30 --warmup 0 --no-calibrate -q > $OUT/ncu_$m.txt 2>&1
      grep -E "^\s+[a-z]" $OUT/ncu_$m.txt | sed "s/^/$m /"
    done
    streamed
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
hold)
  { EXTRA=""
    ab 80 lrv $P80 dmma_refined old hold old hold old hold old hold
    ab 37 lrv $P37 dmma_refined old hold old hold
    ab 200 lrv $P200 dmma_refined old hold old hold
    EXTRA="--param precision=f32"
    ab l3f32 spmv pattern=laplacian3d,rows=4096000 auto,cusparse old hold old hold
    ab pl22f32 spmv $PL22 auto,cusparse old hold old hold
    EXTRA="--param precision=f64"
    ab pl22f64 spmv $PL22 auto,cusparse old hold
    ab pl24f64 spmv pattern=powerlaw,rows=4000000,per_row=8,exponent=2.4 auto,cusparse old hold
    EXTRA=""; ab lin linreg n=1000000 all old hold
    streamed # 1,000 × 50,000 in 2 GiB chunks, timed with the hold
    timeout 280 ./ks_variant_tests 2>&1 | tail -3
    timeout 100 ./ks_compute_tests --gtest_filter='Lrv*:Spmv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure" | head -8
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
sharedmem)
  ncu --query-metrics --chip gh100 2>/dev/null | grep -E "^(l1tex__data_bank|l1tex__data_pipe_lsu_wavefronts_mem_shared|smsp__inst_executed_op_(shared|ldgsts)|smsp__sass_inst_executed_op_(shared|ldgsts)|smsp__sass_data_bytes_mem_shared)" | awk '{print $1}' > $OUT/metric-names.txt
  M=$(grep -E "^(l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_(ld|st)|l1tex__data_pipe_lsu_wavefronts_mem_shared_op_(ld|st)|l1tex__data_pipe_lsu_wavefronts_mem_shared|smsp__inst_executed_op_shared_(ld|st)|smsp__inst_executed_op_ldgsts|smsp__sass_inst_executed_op_ldgsts|smsp__sass_inst_executed_op_shared_(ld|st)|smsp__sass_data_bytes_mem_shared_op_(ld|st)|smsp__sass_data_bytes_mem_shared)$" $OUT/metric-names.txt | sed 's/$/.sum/' | paste -sd,)
  timeout 200 ncu --clock-control none --kernel-name regex:dmmaPairsKernel --launch-skip 20 --launch-count 1 --metrics $M,sm__cycles_elapsed.max \
    ./kernelscope-cli run --workload lrv --variant dmma_refined --generate $P80 --min-reps 30 --max-reps 30 --warmup 0 --no-calibrate -q > $OUT/ncu_counts.txt 2>&1
  timeout 300 ncu --clock-control none --kernel-name regex:dmmaPairsKernel --launch-skip 20 --launch-count 1 --import-source yes \
    --section SourceCounters --section MemoryWorkloadAnalysis_Tables --print-details all -o $OUT/src \
    ./kernelscope-cli run --workload lrv --variant dmma_refined --generate $P80 --min-reps 30 --max-reps 30 --warmup 0 --no-calibrate -q > $OUT/ncu_src_run.txt 2>&1
  ncu --import $OUT/src.ncu-rep --print-details all > $OUT/ncu_src.txt 2>&1
  ncu --import $OUT/src.ncu-rep --page source --csv --print-source sass > $OUT/sass.csv 2>&1 ;;
layout)
  { EXTRA=""
    abBuilds 80 $P80 dmma_refined head new head new head new head new
    abBuilds 37 $P37 dmma_refined head new head new
    abBuilds 200 $P200 dmma_refined head new head new
    EXTRA="--param group_rows=16"; abBuilds 80g16 $P80 dmma_refined head new
    EXTRA=""
    abBuilds n400 samples=400,features=3001,planted=20,noise=1e-4 dmma_refined,dmma_refined_multi head new
    abBuilds n64 samples=64,features=1030,planted=20,noise=1e-4 dmma_refined,dmma_refined_multi new
    timeout 200 ./ks_compute_tests --gtest_filter='Lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure|SKIPPED" | head -8
    timeout 250 ./ks_variant_tests --gtest_filter='*lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure" | head -8
    sanitize memcheck "N=80" samples=80,features=1501,planted=20,noise=1e-4
    sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
    sanitize memcheck "N=37 chunks" $S37 --param device_output_mb=1
    sanitize memcheck "N=200 chunks" samples=200,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
    sanitize memcheck "N=400" samples=400,features=1030,planted=20,noise=1e-4
    sanitize racecheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
    sanitize racecheck "N=37 grouped" $R37 --param group_rows=16
    sanitize synccheck "N=37 grouped" $R37 --param group_rows=16
    sanitize initcheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
    timeout 120 ncu --clock-control none --kernel-name regex:dmmaPairsKernel --launch-skip 20 --launch-count 1 \
      --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum \
      ./kernelscope-cli.new run --workload lrv --variant dmma_refined --generate $P80 --min-reps 30 --max-reps 30 --warmup 0 --no-calibrate -q > $OUT/ncu_new.txt 2>&1
    grep -E "^\s+[a-z]" $OUT/ncu_new.txt | sed "s/^/new /"
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
esac
