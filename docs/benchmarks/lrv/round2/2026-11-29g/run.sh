#!/usr/bin/env bash
# The seventh session's device calls (H200, 2026-11-29): `bash run.sh CALL` on the device machine, with that call's
# binaries unpacked from .gpubin/bins.tar.xz as kernelscope-cli.NAME (README.md says which build each NAME was; the
# tried builds are tried/NAME.diff against the commit).
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
epilogue-bounds) # base: 7c5e12a; B: bounds a row and a column, two compares a pair; C: one bound a thread; D: no test
  cp kernelscope-cli.B kernelscope-cli.new
  tests
  sanitize memcheck "N=80 chunks" samples=80,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  sanitize racecheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  ab 80 $P80 $D base B C D base B C D base B C D
  ab 200 $P200 $D base B C base B C
  ab 37 $P37 $D base B C
  for b in base B C; do cuobjdump -sass kernelscope-cli.$b | python3 -c "
import sys,re
out=[];on=False
for l in sys.stdin:
    if 'Function :' in l: on = 'dmmaPairsKernelILb0ELb0' in l
    if on: out.append(l)
sys.stdout.write(''.join(out))" > $OUT/sass-$b.txt; done
  ;;
profile) # stall sampling of the 80-sample instance (C), and B/C/F A/B (F: C's bound a thread only where stages are whole)
  ab 200 $P200 $D base B C F base B C F base B C F
  ab 80 $P80 $D base C F base C F
  for b in C; do
    timeout 300 ncu --section SourceCounters --section WarpStateStats --section SchedulerStats --section Occupancy \
      --section LaunchStats --section SpeedOfLight -k regex:dmmaPairsKernel -c 1 -o /tmp/prof-$b \
      ./kernelscope-cli.$b run --workload lrv --variant $D --generate $P80 --min-reps 1 --max-reps 1 --warmup 0 \
      --no-calibrate -q > $OUT/ncu-$b.log 2>&1
    timeout 120 ncu -i /tmp/prof-$b.ncu-rep --page source --csv --print-source sass > $OUT/source-$b.csv 2>&1
    timeout 120 ncu -i /tmp/prof-$b.ncu-rep --page details > $OUT/details-$b.txt 2>&1
    xz -T4 -c /tmp/prof-$b.ncu-rep > $OUT/prof-$b.ncu-rep.xz
  done
  ;;
direct) # G: F with whole tiles stored straight from the accumulators (16-byte stores on aligned rows); G2: 8-byte only
  cp kernelscope-cli.G kernelscope-cli.new
  tests
  sanitize memcheck "N=80 chunks" samples=80,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  sanitize racecheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  ab 80 $P80 $D base F G G2 base F G G2 base F G G2
  ab 200 $P200 $D base F G G2 base F G G2
  ab 37 $P37 $D base F G G2
  ;;
unaligned) # H: F with one bound a thread where not grouped; L: H with unaligned whole rows in 16-byte stores
  cp kernelscope-cli.L kernelscope-cli.new
  tests
  sanitize memcheck "N=80 chunks" samples=80,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  sanitize racecheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  ab 80 $P80 $D base F H L base F H L base F H L
  ab 200 $P200 $D base F H L base F H L
  ab 37 $P37 $D base F H L base F H L
  ab t80 $P80 logs_tiled base L
  ab w80 $P80,weights=random $D base L
  ;;
final) # new: the commit (kernels byte-identical to H); base: 7c5e12a
  tests
  fallbackMemcheck
  sanitize memcheck "N=80 chunks" samples=80,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  sanitize racecheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  sanitize racecheck "N=37 grouped" $R37 --param group_rows=16
  sanitize synccheck "N=37 grouped" $R37 --param group_rows=16
  ab 80 $P80 $D base new base new
  ab 200 $P200 $D base new
  ab 37 $P37 $D base new
  ;;
counters) # head: f7887f7; R2: 32-bit stage counters in forEachStage; R3: DmmaCopies' group stride in 32 bits
  ab 80 $P80 $D head R2 R3 head R2 R3
  ab 200 $P200 $D head R2 R3
  ab 37 $P37 $D head R2 R3
  cp kernelscope-cli.R2 kernelscope-cli.new
  tests
  sanitize memcheck "N=80 chunks" samples=80,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
  ;;
esac
