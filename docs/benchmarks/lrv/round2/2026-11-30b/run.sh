#!/usr/bin/env bash
# The eleventh session's device calls (H200, 2026-11-30, 01:47–02:08 UTC): `bash run.sh CALL` on the device machine, with
# binaries unpacked from .gpubin/bins.tar.xz as kernelscope-cli.NAME (README.md says which build each NAME was).
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,power.max_limit --format=csv,noheader | tee $OUT/device.txt
summ() { python3 -c "
import csv
for r in csv.DictReader(open('$1')): print('$2', r['variant'], r['median_ms'][:7], r['outcome'], r['delta_value'][:9])"; }
ab() { local L=$1 G=$2 V=$3; shift 3
  for e in "$@"; do b=${e%%:*}; envs=(); [ "$e" != "$b" ] && envs=(${e#*:})
    timeout 90 env "${envs[@]}" ./kernelscope-cli.$b run --workload lrv --variant $V --generate $G --time-limit 1.5 \
      --max-reps 60 --csv /tmp/r.csv --quiet >/dev/null 2>/tmp/err.txt || echo "$L $e FAILED rc=$?"
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
# Samples the SM clock, power and the clock-event reasons every 20 ms while "$@" runs.
clocked() { local L=$1; shift
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
    --format=csv,noheader -lms 20 > $OUT/clock_$L.csv 2>&1 & local pid=$!
  sleep 0.5; "$@"; sleep 0.3; kill $pid; wait $pid 2>/dev/null
  python3 - $OUT/clock_$L.csv $L <<'PY'
import sys, statistics
rows = [l.split(', ') for l in open(sys.argv[1]) if l.count(',') >= 5]
mhz = [int(r[1].split()[0]) for r in rows if r[1].split()[0].isdigit()]
watts = [float(r[3].split()[0]) for r in rows if r[3].split()[0].replace('.', '').isdigit()]
reasons = sorted(set(r[5].strip() for r in rows))
print(sys.argv[2], 'samples', len(rows), 'SM MHz min/median/max', min(mhz), statistics.median(mhz), max(mhz),
      'W median/max', statistics.median(watts), max(watts), 'reasons', reasons)
PY
}
S37=samples=37,features=1501,planted=20,noise=1e-4
R37=samples=37,features=1001,planted=20,noise=1e-4
P80=samples=80,features=10000,planted=20,noise=1e-4
P200=samples=200,features=30000,planted=20,noise=1e-4
P37=samples=37,features=20000,planted=20,noise=1e-4
D=dmma_refined
case "${1:-}" in
clock)
  { ab 80 $P80 $D head head
    clocked run80 ./kernelscope-cli.head run --workload lrv --variant $D --generate $P80 --time-limit 6 --max-reps 100000 --min-reps 1000 --no-calibrate -q
    clocked run80nf ./kernelscope-cli.head run --workload lrv --variant $D --generate $P80 --time-limit 6 --max-reps 100000 --min-reps 1000 --no-flush --no-calibrate -q
    clocked run200 ./kernelscope-cli.head run --workload lrv --variant $D --generate $P200 --time-limit 6 --max-reps 100000 --min-reps 1000 --no-calibrate -q
    for G in P80 P200 P37; do
      timeout 120 ncu --clock-control none --kernel-name regex:dmmaPairsKernel --launch-skip 20 --launch-count 3 \
        --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__inst_executed_pipe_fp64.sum,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed \
        ./kernelscope-cli.head run --workload lrv --variant $D --generate ${!G} --min-reps 30 --max-reps 30 --warmup 0 --no-calibrate -q > $OUT/ncu_$G.txt 2>&1
      grep -E "^\s+[a-z]" $OUT/ncu_$G.txt | sed "s/^/$G /"
    done
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
ring)
  { ab 80 $P80 $D head D2 R3 B3 R3B3 R4B3 R3H head D2 R3 B3 R3B3 R4B3 R3H
    ab 37 $P37 $D head D2 R3H head D2 R3H
    ab 200 $P200 $D head D2 R3H head R3H
    for b in head R3 R3B3 R4B3; do
      timeout 120 ncu --clock-control none --kernel-name regex:dmmaPairsKernel --launch-skip 20 --launch-count 1 \
        --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum \
        ./kernelscope-cli.$b run --workload lrv --variant $D --generate $P80 --min-reps 30 --max-reps 30 --warmup 0 --no-calibrate -q > $OUT/ncu_$b.txt 2>&1
      grep -E "^\s+[a-z]" $OUT/ncu_$b.txt | sed "s/^/$b /"
    done
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
diag)
  { ab 80 $P80 $D head NS HM head NS HM
    for b in head NS HM; do
      timeout 120 ncu --clock-control none --kernel-name regex:dmmaPairsKernel --launch-skip 20 --launch-count 2 \
        --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__bytes_write.sum \
        ./kernelscope-cli.$b run --workload lrv --variant $D --generate $P80 --min-reps 30 --max-reps 30 --warmup 0 --no-calibrate -q > $OUT/ncu_$b.txt 2>&1
      grep -E "^\s+[a-z]" $OUT/ncu_$b.txt | sed "s/^/$b /"
    done
    clocked run80ns ./kernelscope-cli.NS run --workload lrv --variant $D --generate $P80 --time-limit 4 --max-reps 100000 --min-reps 1000 --no-calibrate -q
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
stores)
  { ab 80 $P80 $D head NS2 WB EDGE head NS2 WB EDGE head EDGE
    ab 37 $P37 $D head EDGE WB head EDGE
    ab 200 $P200 $D head EDGE head EDGE
    for b in head NS NS2 WB EDGE; do
      timeout 120 ncu --clock-control none --kernel-name regex:dmmaPairsKernel --launch-skip 20 --launch-count 1 \
        --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_read_lookup_miss.sum,lts__t_sectors_op_write_lookup_miss.sum \
        ./kernelscope-cli.$b run --workload lrv --variant $D --generate $P80 --min-reps 30 --max-reps 30 --warmup 0 --no-calibrate -q > $OUT/ncu_$b.txt 2>&1
      grep -E "^\s+[a-z]" $OUT/ncu_$b.txt | sed "s/^/$b /"
    done
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
warps)
  { ab 80 $P80 $D head W4 W5 head W4 W5 head W4 W5
    ab 37 $P37 $D head W4 W5 head W4 W5
    ab 200 $P200 $D head W4 W5 head W4 W5
    for b in head W4 W5; do
      timeout 120 ncu --clock-control none --kernel-name regex:dmmaPairsKernel --launch-skip 20 --launch-count 1 \
        --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
        ./kernelscope-cli.$b run --workload lrv --variant $D --generate $P80 --min-reps 30 --max-reps 30 --warmup 0 --no-calibrate -q > $OUT/ncu_$b.txt 2>&1
      grep -E "^\s+[a-z]" $OUT/ncu_$b.txt | sed "s/^/$b /"
    done
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
final)
  { ab 80 $P80 $D head new head new
    ab 37 $P37 $D head new head new
    ab 200 $P200 $D head new head new
    tests
    sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
    sanitize memcheck "N=37 chunks" $S37 --param device_output_mb=1
    sanitize memcheck "N=200 chunks" samples=200,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
    sanitize racecheck "N=37 grouped" $R37 --param group_rows=16
    sanitize racecheck "N=37" $R37
    sanitize synccheck "N=37 grouped" $R37 --param group_rows=16
    sanitize initcheck "N=37" $R37
    fallbackMemcheck
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
choices)
  { ab 37 $P37 $D head2 X2 X4 head2 X2 X4 head2 X2 X4
    ab 200 $P200 $D head2 X1 X3 head2 X1 X3
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
esac
