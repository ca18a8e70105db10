#!/usr/bin/env bash
# The fifth session's device calls (H200, 2026-11-29): `bash run.sh CALL` on the device machine, with the binaries of
# that call unpacked from .gpubin/bins.tar.xz (kernelscope-cli is the change, kernelscope-cli.NAME the others; `cur`
# the binary before it). README.md says which call wrote which files.
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
summ() { python3 -c "
import csv
for r in csv.DictReader(open('$1')): print('$2', r['variant'], r['median_ms'][:7], r['outcome'], r['delta_value'][:9])"; }
# ab LABEL GENERATOR BINARY… [-- PARAMS…]: one timed run of each binary in turn (new: kernelscope-cli), rows to ab.csv.
ab() { local L=$1 G=$2; shift 2; local bins=() extra=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do bins+=("$1"); shift; done; [ $# -gt 0 ] && { shift; extra=("$@"); }
  for b in "${bins[@]}"; do bin=kernelscope-cli; [ $b != new ] && bin=kernelscope-cli.$b
    ./$bin run --workload lrv --variant dmma_refined --generate $G "${extra[@]}" --time-limit 1.5 --max-reps 60 \
      --csv /tmp/r.csv --quiet >/dev/null 2>&1
    sed "s/^/$L,$b,/" /tmp/r.csv >> $OUT/ab.csv; summ /tmp/r.csv "$L $b"; done; }
tests() {
  ./ks_compute_tests --gtest_filter='Lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure|SKIPPED" | head -8
  ./ks_variant_tests --gtest_filter='*lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure" | head -5; }
# sanitize TOOL LABEL GENERATOR PARAMS…: one compute-sanitizer run of dmma_refined, its summary line.
sanitize() { local T=$1 L=$2 G=$3; shift 3
  compute-sanitizer --tool $T ./kernelscope-cli run --workload lrv --variant dmma_refined --generate $G "$@" \
    --min-reps 2 --max-reps 2 --warmup 0 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | sed "s/^/$T $L /"; }
P80=samples=80,features=10000,planted=20,noise=1e-4
P200=samples=200,features=30000,planted=20,noise=1e-4
P37=samples=37,features=20000,planted=20,noise=1e-4
S37=samples=37,features=1501,planted=20,noise=1e-4
R37=samples=37,features=1001,planted=20,noise=1e-4
NCU="ncu --cache-control none --clock-control none -k regex:dmmaPairs -c 1"
STALLS=smsp__pcsamp_sample_count; for s in barrier long_scoreboard wait math_pipe_throttle short_scoreboard lg_throttle \
  mio_throttle membar sleeping drain; do STALLS=$STALLS,smsp__pcsamp_warps_issue_stalled_$s; done
case "${1:-}" in
early-launch) # 19b8e8e (new) against 79b2170 (cur); nopdl: 19b8e8e with every launch plain
  tests
  compute-sanitizer --tool memcheck ./ks_compute_tests \
    --gtest_filter='LrvAccuracy.ExpansionFallsBack*:LrvAccuracy.WeightedExpansion*' 2>&1 \
    | grep -E "ERROR SUMMARY|PASSED|FAILED" | sed "s/^/memcheck fallback tests /"
  for wt in none random; do
    sanitize memcheck "weights=$wt group_rows=16 chunks" $S37,weights=$wt --param group_rows=16 --param device_output_mb=1
    sanitize racecheck "weights=$wt group_rows=16" $R37,weights=$wt --param group_rows=16
    sanitize synccheck "weights=$wt group_rows=16" $R37,weights=$wt --param group_rows=16
  done
  ab 80 $P80 cur new nopdl cur new nopdl cur new nopdl
  ab 200 $P200 cur new nopdl cur new
  ab w200 $P200,weights=random cur new ;;
persistent-first) # persistent.diff's first build (new) against 19b8e8e (cur)
  tests
  for n in 37 80; do for blocks in 0 7; do
    sanitize memcheck "N=$n dmma_blocks=$blocks chunks" samples=$n,features=1501,planted=20,noise=1e-4 \
      --param group_rows=16 --param device_output_mb=1 --param dmma_blocks=$blocks
    sanitize racecheck "N=$n dmma_blocks=$blocks" samples=$n,features=1001,planted=20,noise=1e-4 --param dmma_blocks=$blocks
    sanitize synccheck "N=$n dmma_blocks=$blocks" samples=$n,features=1001,planted=20,noise=1e-4 \
      --param group_rows=16 --param dmma_blocks=$blocks
  done; done
  sanitize memcheck "weighted chunks" $S37,weights=random --param device_output_mb=1
  ab 80 $P80 cur new cur new cur new
  ab 200 $P200 cur new cur new
  ab 37 $P37 cur new ;;
persistent-carveout) # the same with the shared-memory carveout at its maximum
  for b in new cur; do bin=kernelscope-cli; [ $b != new ] && bin=kernelscope-cli.$b
    $NCU --metrics launch__grid_size,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,launch__shared_mem_config_size,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,lts__t_sector_hit_rate.pct \
      ./$bin run --workload lrv --variant dmma_refined --generate $P80 --min-reps 1 --max-reps 1 --warmup 0 --no-calibrate -q \
      2>&1 | grep -E "launch__|sm__|gpu__|l1tex|lts" | sed "s/^/$b /"
  done
  ab 80 $P80 cur new cur new
  ab 200 $P200 cur new ;;
persistent-blocks) # its dmma_blocks parameter (0: 528; 1048576: a block a tile); rows are BINARY,BLOCKS,…
  for v in cur:0 new:0 new:1048576 new:264 new:396 cur:0 new:0 new:1048576; do b=${v%%:*}; blk=${v##*:}
    bin=kernelscope-cli; [ $b != new ] && bin=kernelscope-cli.$b
    ./$bin run --workload lrv --variant dmma_refined --generate $P80 $( [ $b = new ] && echo --param dmma_blocks=$blk ) \
      --time-limit 1.5 --max-reps 60 --csv /tmp/r.csv --quiet >/dev/null 2>&1
    sed "s/^/$b,$blk,/" /tmp/r.csv >> $OUT/ab.csv; summ /tmp/r.csv "$b blocks=$blk"; done
  Q="--min-reps 1 --max-reps 1 --warmup 0 --no-calibrate -q"
  $NCU --section WarpStateStats --section LaunchStats --section Occupancy ./kernelscope-cli run --workload lrv \
    --variant dmma_refined --generate $P80 $Q > $OUT/ncu-new.txt 2>&1
  grep -E "Stall|Warp Cycles|Active Warps|Achieved|Duration" $OUT/ncu-new.txt | head -30
  for b in cur new; do bin=kernelscope-cli; [ $b != new ] && bin=kernelscope-cli.$b
    $NCU --metrics $STALLS ./$bin run --workload lrv --variant dmma_refined --generate $P80 $Q 2>&1 | grep -E "smsp__" \
      | sed "s/^/$b /"; done ;;
persistent-without-early) # p1: the persistent kernel launched plainly; p2: the refinement plainly too
  ab 80 $P80 cur p1 p2 cur p1 p2
  ab 200 $P200 cur p1 p2
  ab 37 $P37 cur p1 p2 ;;
weighted-last-steps) # 53a376a (new) against 19b8e8e (cur)
  tests
  for n in 37 80; do
    sanitize memcheck "weighted N=$n chunks" samples=$n,features=1501,planted=20,noise=1e-4,weights=random \
      --param group_rows=16 --param device_output_mb=1
    sanitize racecheck "weighted N=$n" samples=$n,features=1001,planted=20,noise=1e-4,weights=random --param group_rows=16
    sanitize synccheck "weighted N=$n" samples=$n,features=1001,planted=20,noise=1e-4,weights=random
  done
  ab w200 $P200,weights=random cur new cur new
  ab w80 $P80,weights=random cur new cur new
  ab 80 $P80 cur new
  ab 200 $P200 cur new ;;
five-blocks-first) # b5: every instance at five blocks; b5r: and A loaded a m16 tile at a time; r4: that at four
  ab 80 $P80 cur b5 b5r r4 cur b5 b5r r4
  ab 200 $P200 cur b5 b5r r4 ;;
five-blocks-step-loop) # b5s: five blocks, the step loop rolled; b5sr: and A loaded a m16 tile at a time
  ab 80 $P80 cur b5s b5sr cur b5s b5sr
  ab 200 $P200 cur b5 b5s b5sr cur b5s b5sr
  ab 37 $P37 cur b5 b5s b5sr ;;
five-blocks-whole-stages) # w5: d42f594 with the all-whole-stages instance at five blocks too, its step count made
  # opaque to the compiler (32 bytes of spill instead of 192); runs of 1 s, at most 40 repetitions
  for b in cur w5 cur w5 cur w5; do
    ./kernelscope-cli.$b run --workload lrv --variant dmma_refined --generate $P80 --time-limit 1.0 --max-reps 40 \
      --csv /tmp/r.csv --quiet >/dev/null 2>&1
    sed "s/^/80,$b,/" /tmp/r.csv >> $OUT/ab.csv; summ /tmp/r.csv "80 $b"; done ;;
five-blocks) # d42f594 (new) against 53a376a (cur)
  tests
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  sanitize racecheck "N=37" $R37
  sanitize synccheck "N=37 grouped" $R37 --param group_rows=16
  ab 200 $P200 cur new cur new
  ab 37 $P37 cur new
  ab 80 $P80 cur new ;;
*) echo "usage: run.sh early-launch|persistent-first|persistent-carveout|persistent-blocks|persistent-without-early|weighted-last-steps|five-blocks-first|five-blocks-step-loop|five-blocks-whole-stages|five-blocks" >&2; exit 2 ;;
esac
