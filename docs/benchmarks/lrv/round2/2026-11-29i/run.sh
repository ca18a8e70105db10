#!/usr/bin/env bash
# The ninth session's device calls (H200, 2026-11-29, 23:04–23:42 UTC): `bash run.sh CALL` on the device machine, with
# that call's binaries unpacked from .gpubin/bins.tar.xz as kernelscope-cli.NAME (README.md says which build each NAME
# was; the tried builds are tried/*.diff against d5a87eb, whose kernels are b6a62e4's).
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
summ() { python3 -c "
import csv
for r in csv.DictReader(open('$1')): print('$2', r['variant'], r['median_ms'][:7], r['outcome'], r['delta_value'][:9])"; }
ab() { local L=$1 G=$2 V=$3; shift 3
  for e in "$@"; do b=${e%%:*}; envs=(); [ "$e" != "$b" ] && envs=(${e#*:})
    timeout 90 env "${envs[@]}" ./kernelscope-cli.$b run --workload lrv --variant $V --generate $G --time-limit 1.5 \
      --max-reps 60 --csv /tmp/r.csv --quiet >/dev/null 2>/tmp/err.txt || echo "$L $e FAILED rc=$?"
    grep PROBE /tmp/err.txt | sed "s/^/$L $e /"
    sed "s/^/$L,$e,/" /tmp/r.csv >> $OUT/ab.csv; summ /tmp/r.csv "$L $e"; rm -f /tmp/r.csv; done; }
tests() {
  timeout 200 ./ks_compute_tests --gtest_filter='Lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure|SKIPPED" | head -8
  timeout 200 ./ks_variant_tests --gtest_filter='*lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure" | head -8; }
fallbackMemcheck() {
  timeout 200 compute-sanitizer --tool memcheck ./ks_compute_tests --gtest_filter='LrvAccuracy.ExpansionFallsBack*' 2>&1 \
    | grep -E "ERROR SUMMARY|PASSED|FAILED" | sed "s/^/memcheck fallback /"; }
sanitize() { local T=$1 L=$2 G=$3; shift 3
  timeout 120 compute-sanitizer --tool $T ./kernelscope-cli.new run --workload lrv --variant dmma_refined --generate $G \
    "$@" --min-reps 2 --max-reps 2 --warmup 0 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|rror" \
    | head -5 | sed "s/^/$T $L /"; }
S37=samples=37,features=1501,planted=20,noise=1e-4
R37=samples=37,features=1001,planted=20,noise=1e-4
P80=samples=80,features=10000,planted=20,noise=1e-4
P200=samples=200,features=30000,planted=20,noise=1e-4
P37=samples=37,features=20000,planted=20,noise=1e-4
D=dmma_refined
case "${1:-}" in
probe)
  { ab 80 $P80 $D head P head P P P
  ab 200 $P200 $D P P
  ab 37 $P37 $D P P
  for k in 1 2 3 4 5 6; do timeout 60 ./kernelscope-cli.P run --workload lrv --variant $D --generate $P80 --min-reps $k --max-reps $k --no-calibrate -q 2>&1 >/dev/null | grep PROBE | sed "s/^/reps=$k /"; done
  } 2>&1 | tee $OUT/session.log ;;
fold) # head: d5a87eb; F: cancelling pairs recomputed in the tensor-core block; F3: F + refinement grid of 3 blocks an SM; L0: F with the logs replaced (wrong values: timing only)
  { cp kernelscope-cli.F kernelscope-cli.new
  ab 80 $P80 $D head F F3 L0 head F F3 L0 head F F3 L0
  ab 200 $P200 $D head F F3 head F F3
  ab 37 $P37 $D head F F3 head F F3
  tests
  fallbackMemcheck
  sanitize memcheck "N=80 chunks" samples=80,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  sanitize racecheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  sanitize racecheck "N=37 grouped" $R37 --param group_rows=16
  sanitize synccheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
refine) # head: d5a87eb; R: the refinement's counts and first entry requested at once; L1: R + float logs in the centring (wrong to 1e-7: timing only)
  { cp kernelscope-cli.R kernelscope-cli.new
  ab 80 $P80 $D head R L1 head R L1 head R L1 head R L1
  ab 200 $P200 $D head R head R
  ab 37 $P37 $D head R head R
  tests
  fallbackMemcheck
  sanitize memcheck "N=80 chunks" samples=80,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  sanitize racecheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  sanitize synccheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  timeout 120 compute-sanitizer --tool initcheck ./kernelscope-cli.R run --workload lrv --variant dmma_refined --generate samples=80,features=1001,planted=20,noise=1e-4 --min-reps 2 --max-reps 2 --warmup 0 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY" | sed "s/^/initcheck R /"
  timeout 120 compute-sanitizer --tool memcheck ./kernelscope-cli.R run --workload lrv --variant cublas_refined --generate samples=80,features=1001,planted=20,noise=1e-4 --min-reps 2 --max-reps 2 --warmup 0 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY" | sed "s/^/memcheck cublas_refined R /"
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
sizes) # head and P (the timeline probe) at p around 10,000: the partial last tile row and the last wave
  { for f in 9984 10000 10048 10112; do G=samples=80,features=$f,planted=20,noise=1e-4
    ab $f $G $D head P head P head P; done
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
final) # head: d5a87eb; LG: the centring's own logarithm; SH: a shallow last tile row by a kernel of its own; LS: both
  { cp kernelscope-cli.LS kernelscope-cli.new
  ab 80 $P80 $D head LG SH LS head LG SH LS head LG SH LS
  ab 37 $P37 $D head SH LS head SH LS
  ab 200 $P200 $D head LS head LS
  ab 10048 samples=80,features=10048,planted=20,noise=1e-4 $D head LS head LS
  tests
  fallbackMemcheck
  sanitize memcheck "N=80 p=1040 chunks" samples=80,features=1040,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize memcheck "N=37 p=1050 chunks" samples=37,features=1050,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  sanitize racecheck "N=80 p=1040" samples=80,features=1040,planted=20,noise=1e-4
  sanitize racecheck "N=37 p=1050" samples=37,features=1050,planted=20,noise=1e-4
  sanitize synccheck "N=80 p=1040" samples=80,features=1040,planted=20,noise=1e-4
  sanitize initcheck "N=80 p=1030" samples=80,features=1030,planted=20,noise=1e-4
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
esac
