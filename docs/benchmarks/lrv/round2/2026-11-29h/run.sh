#!/usr/bin/env bash
# The eighth session's device calls (H200, 2026-11-29, 21:35–22:10 UTC): `bash run.sh CALL` on the device machine,
# with that call's binaries unpacked from .gpubin/bins.tar.xz as kernelscope-cli.NAME (README.md says which build each
# NAME was; the tried builds are tried/*.diff against b6a62e4).
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
summ() { python3 -c "
import csv
for r in csv.DictReader(open('$1')): print('$2', r['variant'], r['median_ms'][:7], r['outcome'], r['delta_value'][:9])"; }
ab() { local L=$1 G=$2 V=$3; shift 3
  for e in "$@"; do b=${e%%:*}; envs=(); [ "$e" != "$b" ] && envs=(${e#*:})
    timeout 90 env "${envs[@]}" ./kernelscope-cli.$b run --workload lrv --variant $V --generate $G --time-limit 1.5 \
      --max-reps 60 --csv /tmp/r.csv --quiet >/dev/null 2>&1 || echo "$L $e FAILED rc=$?"
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
P80=samples=80,features=10000,planted=20,noise=1e-4
P200=samples=200,features=30000,planted=20,noise=1e-4
P37=samples=37,features=20000,planted=20,noise=1e-4
S37=samples=37,features=1501,planted=20,noise=1e-4
R37=samples=37,features=1001,planted=20,noise=1e-4
D=dmma_refined
case "${1:-}" in
bulk) # head: b6a62e4; W: bulk stages, ring 3 (whole) / 2 (half-last); W3: ring 2 / 2; W5: ring 3 / 3
  cp kernelscope-cli.W kernelscope-cli.new
  for b in W W3 W5; do timeout 30 ./kernelscope-cli.$b run --workload lrv --variant $D --generate $P80 --min-reps 2 --max-reps 2 --no-calibrate --csv /tmp/s.csv -q > /dev/null 2>&1; echo "smoke $b rc=$?"; summ /tmp/s.csv "smoke $b"; done
  tests
  fallbackMemcheck
  sanitize memcheck "N=80 chunks" samples=80,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  sanitize memcheck "N=5" samples=5,features=700,planted=4,noise=1e-4
  sanitize racecheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  sanitize racecheck "N=37 grouped" $R37 --param group_rows=16
  sanitize synccheck "N=37 grouped" $R37 --param group_rows=16
  sanitize synccheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  ab 80 $P80 $D head W W3 W5 head W W3 W5 head W W3 W5
  ab 200 $P200 $D head W W3 W5 head W W3 W5
  ab 37 $P37 $D head W W3 W5 head W W3 W5
  ;;
timeline) # per-kernel times of head at 80 × 10,000 (nsys, else ncu at boost clocks)
  if command -v nsys > /dev/null; then
    timeout 200 nsys profile -t cuda -o /tmp/tl -f true ./kernelscope-cli.head run --workload lrv --variant $D \
      --generate $P80 --min-reps 6 --max-reps 6 --no-calibrate -q > $OUT/nsys.log 2>&1
    timeout 200 nsys stats -r cuda_gpu_trace -f csv -o /tmp/tl /tmp/tl.nsys-rep >> $OUT/nsys.log 2>&1
    cp /tmp/tl*.csv $OUT/ 2>/dev/null; ls /tmp/tl* >> $OUT/nsys.log
  else echo "no nsys"; fi
  timeout 200 ncu --clock-control none --metrics gpu__time_duration.sum ./kernelscope-cli.head run --workload lrv \
    --variant $D --generate $P80 --min-reps 2 --max-reps 2 --warmup 0 --no-calibrate -q > $OUT/ncu-times.log 2>&1
  grep -E "^  [a-zA-Z_].*\(|gpu__time_duration" $OUT/ncu-times.log | tail -30
  ;;
centring) # Nsight Compute on head's centring and refinement at 80 × 10,000 (boost clocks, caches flushed)
  timeout 300 ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters \
    -k regex:"centredSlab|refineKernel" -c 2 -o /tmp/cen ./kernelscope-cli.head run --workload lrv --variant $D \
    --generate $P80 --min-reps 1 --max-reps 1 --warmup 0 --no-calibrate -q > $OUT/ncu-centring.log 2>&1
  timeout 120 ncu -i /tmp/cen.ncu-rep --page details > $OUT/details-centring.txt 2>&1
  timeout 120 ncu -i /tmp/cen.ncu-rep --page source --csv --print-source sass -k regex:centredSlab > $OUT/source-centring.csv 2>&1
  grep -E "Duration|Throughput|Achieved Occupancy|Registers Per|Waves|Issued Warp" $OUT/details-centring.txt
  timeout 200 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum ./kernelscope-cli.head run \
    --workload lrv --variant $D --generate $P80 --min-reps 2 --max-reps 2 --warmup 0 --no-calibrate -q \
    > $OUT/ncu-times-warm.log 2>&1
  grep -E "gpu__time_duration" $OUT/ncu-times-warm.log | tail -8
  ;;
lean) # head: b6a62e4; C: centring with fewer instructions + refinement grid that fits at once; S: centring only; C8: C, 8 rows of threads
  cp kernelscope-cli.C kernelscope-cli.new
  tests
  fallbackMemcheck
  sanitize memcheck "N=80 chunks" samples=80,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  sanitize memcheck "N=5" samples=5,features=700,planted=4,noise=1e-4
  sanitize memcheck "N=300" samples=300,features=700,planted=4,noise=1e-4
  sanitize memcheck "alpha N=37" $R37 --param alpha=0.5
  sanitize racecheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  sanitize racecheck "N=300" samples=300,features=700,planted=4,noise=1e-4
  cp kernelscope-cli.C8 kernelscope-cli.new
  sanitize memcheck "C8 N=80 chunks" samples=80,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize racecheck "C8 N=37" $R37
  for b in head C C8; do timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum ./kernelscope-cli.$b run \
    --workload lrv --variant $D --generate $P80 --min-reps 2 --max-reps 2 --warmup 0 --no-calibrate -q 2>&1 \
    | grep -E "gpu__time_duration" | tr -s ' ' | tr '\n' ' ' | sed "s/^/ncu $b /"; echo; done
  ab 80 $P80 $D head C S C8 head C S C8 head C S C8
  ab 200 $P200 $D head C S C8 head C S C8
  ab 37 $P37 $D head C S C8 head C S C8
  ;;
final) # head: b6a62e4; C2: C as committed (constants for the experiment's macros); K: C2 with idle warps skipping the mma
  tests
  fallbackMemcheck
  cp kernelscope-cli.C2 kernelscope-cli.new
  sanitize memcheck "C2 N=80 chunks" samples=80,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize racecheck "C2 N=37 grouped" $R37 --param group_rows=16
  mv ks_compute_tests ks_compute_tests.C2; mv ks_variant_tests ks_variant_tests.C2
  cp ks_compute_tests.K ks_compute_tests; cp ks_variant_tests.K ks_variant_tests
  tests
  cp kernelscope-cli.K kernelscope-cli.new
  sanitize memcheck "K N=80 chunks" samples=80,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize memcheck "K N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  sanitize racecheck "K N=80" samples=80,features=1001,planted=20,noise=1e-4
  ab 80 $P80 $D head C2 K head C2 K head C2 K head C2 K
  ab 200 $P200 $D head C2 K head C2 K
  ab 37 $P37 $D head C2 K head C2 K
  ;;
stores) # head: b6a62e4; T: whole tiles' rows leave by bulk stores (lagging rows staged one place right); T2: T with
  # two 8-byte shared stores for every pair of a whole tile; T3: T with one warp issuing the 64 rows' stores
  { ab 80 $P80 $D head T T2 T3 head T T2 T3 head T T2 T3
  ab 200 $P200 $D head T T2 T3
  ab 37 $P37 $D head T T2 T3 head T
  cp kernelscope-cli.T kernelscope-cli.new
  tests
  sanitize memcheck "N=80 chunks" samples=80,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize racecheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  sanitize synccheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  fallbackMemcheck; } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log
  ;;
esac
