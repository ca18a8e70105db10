#!/usr/bin/env bash
# The sixth session's device calls (H200, 2026-11-29): `bash run.sh CALL` on the device machine, with that call's
# binaries unpacked from .gpubin/bins.tar.xz as kernelscope-cli.NAME (README.md says which build each NAME was).
# Experiment builds read KS_X_* variables (ready-flags.diff shows them); the product never does.
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
summ() { python3 -c "
import csv
for r in csv.DictReader(open('$1')): print('$2', r['variant'], r['median_ms'][:7], r['outcome'], r['delta_value'][:9])"; }
# ab LABEL GENERATOR VARIANT SPEC…: one timed run per SPEC, BINARY or BINARY:VAR=VALUE; rows to ab.csv as LABEL,SPEC,…
ab() { local L=$1 G=$2 V=$3; shift 3
  for e in "$@"; do b=${e%%:*}; envs=(); [ "$e" != "$b" ] && envs=(${e#*:})
    timeout 90 env "${envs[@]}" ./kernelscope-cli.$b run --workload lrv --variant $V --generate $G --time-limit 1.5 \
      --max-reps 60 --csv /tmp/r.csv --quiet >/dev/null 2>&1
    sed "s/^/$L,$e,/" /tmp/r.csv >> $OUT/ab.csv; summ /tmp/r.csv "$L $e"; done; }
tests() {
  timeout 200 ./ks_compute_tests --gtest_filter='Lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure|SKIPPED" | head -8
  timeout 200 ./ks_variant_tests --gtest_filter='*lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure" | head -8; }
fallbackMemcheck() {
  timeout 200 compute-sanitizer --tool memcheck ./ks_compute_tests --gtest_filter='LrvAccuracy.ExpansionFallsBack*' 2>&1 \
    | grep -E "ERROR SUMMARY|PASSED|FAILED" | sed "s/^/memcheck fallback /"; }
# sanitize TOOL LABEL GENERATOR PARAMS…: one compute-sanitizer run of the binary `new`, its summary line.
sanitize() { local T=$1 L=$2 G=$3; shift 3
  timeout 120 compute-sanitizer --tool $T ./kernelscope-cli.new run --workload lrv --variant dmma_refined --generate $G \
    "$@" --min-reps 2 --max-reps 2 --warmup 0 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" \
    | sed "s/^/$T $L /"; }
P80=samples=80,features=10000,planted=20,noise=1e-4
P200=samples=200,features=30000,planted=20,noise=1e-4
P37=samples=37,features=20000,planted=20,noise=1e-4
S37=samples=37,features=1501,planted=20,noise=1e-4
R37=samples=37,features=1001,planted=20,noise=1e-4
D=dmma_refined
case "${1:-}" in
check) # 50dd535 (new) against d42f594 (old): tests, sanitizers, A/B, Nsight Compute's time per kernel
  tests
  fallbackMemcheck
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  sanitize memcheck "N=80 chunks" samples=80,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize racecheck "N=37" $R37
  sanitize synccheck "N=37 grouped" $R37 --param group_rows=16
  ab 80 $P80 $D old new old new old new
  ab 200 $P200 $D old new old new
  for G in $P80 $P200; do
    ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed \
      ./kernelscope-cli.new run --workload lrv --variant $D --generate $G --min-reps 2 --max-reps 2 --warmup 0 \
      --no-calibrate -q 2>&1 | grep -E "^  [a-zA-Z_].*\(|gpu__time|dram__|sm__" | tee -a $OUT/kernel-times.txt
  done ;;
marginal) # x: 50dd535 with KS_X_NOCENTRE (centre once, then only zero the counters), KS_X_NOREFINE, KS_X_ONLYCENTRE
  ab 80 $P80 $D x x:KS_X_NOCENTRE=1 x:KS_X_NOREFINE=1 x:KS_X_ONLYCENTRE=1 x x:KS_X_NOCENTRE=1 x:KS_X_NOREFINE=1 \
    x:KS_X_ONLYCENTRE=1
  ab 200 $P200 $D x x:KS_X_NOCENTRE=1 x:KS_X_NOREFINE=1 x:KS_X_ONLYCENTRE=1 ;;
ready-flags) # new: ready-flags.diff (KS_X_NOFLAGS: the old wait; KS_X_CENTRE_BLOCKS: centring blocks an SM); old: d42f594
  tests
  KS_X_CENTRE_BLOCKS=1 timeout 200 ./ks_variant_tests --gtest_filter='*lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED" | sed "s/^/cap1 /"
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  KS_X_CENTRE_BLOCKS=1 sanitize memcheck "N=80 cap1" samples=80,features=1501,planted=20,noise=1e-4
  sanitize memcheck "N=400 alpha" samples=400,features=801,planted=20,noise=1e-4 --param alpha=0.5
  sanitize racecheck "N=37" $R37
  sanitize synccheck "N=37 grouped" $R37 --param group_rows=16
  F="new new:KS_X_NOFLAGS=1 new:KS_X_CENTRE_BLOCKS=1 new:KS_X_CENTRE_BLOCKS=2"
  ab 80 $P80 $D old $F old $F
  ab 200 $P200 $D old $F old new new:KS_X_CENTRE_BLOCKS=1 ;;
centring-occupancy) # base: 50dd535; cB: its centredSlabKernel with __launch_bounds__(256, B)
  ab 80 $P80 $D base c5 c6 c8 base c5 c6 c8 base c5 c6 c8
  ab 200 $P200 $D base c5 c6 c8 base c5 c6 c8 ;;
epilogue-probe) # e0: 50dd535 with the epilogue's arithmetic and test left out (wrong values: an upper bound);
  # x: KS_X_REFINE_EMPTY (the refinement launched, its list read as empty); 79: 79b2170, for logs_tiled
  ab 80 $P80 $D base x:KS_X_REFINE_EMPTY=1 x:KS_X_NOREFINE=1 e0 base x:KS_X_REFINE_EMPTY=1 x:KS_X_NOREFINE=1 e0 base e0
  ab 200 $P200 $D base e0 x:KS_X_REFINE_EMPTY=1 base e0
  ab t80 $P80 logs_tiled 79 base 79 base
  ab t80w $P80,weights=random logs_tiled 79 base
  cuobjdump -sass kernelscope-cli.base > /tmp/all.sass # summarised into sass-summary.txt (op counts, mma and barriers)
  ncu --cache-control none --clock-control none -k regex:dmmaPairs -c 1 --metrics sm__inst_executed_pipe_fp64.sum,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_dmma.sum,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__cycles_elapsed.avg,sm__inst_executed_pipe_lsu.sum \
    ./kernelscope-cli.base run --workload lrv --variant $D --generate $P80 --min-reps 1 --max-reps 1 --warmup 0 \
    --no-calibrate -q 2>&1 | grep -E "sm__|smsp__" | tee $OUT/ncu-pipes-80.txt ;;
fragment-scales-first) # new: the accumulators started from shared memory in every instance; base: 50dd535
  tests
  fallbackMemcheck
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  sanitize memcheck "N=400 alpha" samples=400,features=801,planted=20,noise=1e-4 --param alpha=0.5
  sanitize racecheck "N=37" $R37
  sanitize racecheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  sanitize synccheck "N=37 grouped" $R37 --param group_rows=16
  ab 80 $P80 $D base new base new base new
  ab 200 $P200 $D base new base new
  ab 37 $P37 $D base new ;;
fragment-scales-start) # main: from shared everywhere; v2: from loads everywhere; v4, v5: those at five blocks an SM
  ab 80 $P80 $D base main v2 v4 v5 base main v2 v4 v5 base main v2 v4 v5
  ab 200 $P200 $D base main v2 v5 base main v2 v5
  ab 37 $P37 $D main v2 v5 ;;
fragment-scales) # new: the commit (from shared only where grouped with a one-step last stage); base: 50dd535
  tests
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  sanitize memcheck "N=80 chunks" samples=80,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize racecheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  sanitize racecheck "N=37 grouped" $R37 --param group_rows=16
  sanitize synccheck "N=37 grouped" $R37 --param group_rows=16
  ab 80 $P80 $D base new base new
  ab 200 $P200 $D base new base new
  ab 37 $P37 $D base new ;;
*) echo "usage: run.sh check|marginal|ready-flags|centring-occupancy|epilogue-probe|fragment-scales-first|fragment-scales-start|fragment-scales" >&2
  exit 2 ;;
esac
