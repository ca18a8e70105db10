#!/usr/bin/env bash
# The tenth session's device calls (H200, 2026-11-30, 00:17–01:02 UTC): `bash run.sh CALL` on the device machine, with
# that call's binaries unpacked from .gpubin/bins.tar.xz as kernelscope-cli.NAME (README.md says which build each NAME
# was; the tried builds are tried/*.diff against a00bb38, whose kernels are b6a62e4's).
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
blocks)
  { ab 80 $P80 $D head B B:KS_STAGGER_NS=1000 B:KS_STAGGER_NS=2000 head B B:KS_STAGGER_NS=1000 B:KS_STAGGER_NS=2000
    for k in 1 2 3; do KS_BLOCK_PROBE=$OUT/blocks80_$k.csv timeout 60 ./kernelscope-cli.B run --workload lrv --variant $D --generate $P80 --min-reps 5 --max-reps 5 --no-calibrate -q >/dev/null; done
    KS_STAGGER_NS=2000 KS_BLOCK_PROBE=$OUT/blocks80_st2000.csv timeout 60 ./kernelscope-cli.B run --workload lrv --variant $D --generate $P80 --min-reps 5 --max-reps 5 --no-calibrate -q >/dev/null
    KS_BLOCK_PROBE=$OUT/blocks200.csv timeout 60 ./kernelscope-cli.B run --workload lrv --variant $D --generate $P200 --min-reps 3 --max-reps 3 --no-calibrate -q >/dev/null
    KS_BLOCK_PROBE=$OUT/blocks37.csv timeout 60 ./kernelscope-cli.B run --workload lrv --variant $D --generate $P37 --min-reps 3 --max-reps 3 --no-calibrate -q >/dev/null
    gzip $OUT/blocks*.csv
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
persist)
  { cp kernelscope-cli.Q kernelscope-cli.new
  ab 80 $P80 $D head Q head Q head Q head Q
  ab 200 $P200 $D head Q head Q
  ab 37 $P37 $D head Q head Q
  tests
  fallbackMemcheck
  sanitize memcheck "N=80 chunks" samples=80,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  sanitize racecheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  sanitize racecheck "N=37 grouped" $R37 --param group_rows=16
  sanitize synccheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  sanitize synccheck "N=37 grouped" $R37 --param group_rows=16
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
stagger)
  { ab 80 $P80 $D head QS QS:KS_STAGGER_NS=2000 QS:KS_STAGGER_NS=1000 head QS QS:KS_STAGGER_NS=2000 QS:KS_STAGGER_NS=1000
  ab 200 $P200 $D head QS:KS_STAGGER_NS=4000 QS:KS_STAGGER_NS=2000
  ab 37 $P37 $D head QS:KS_STAGGER_NS=1500 QS:KS_STAGGER_NS=800
  for st in 0 2000; do KS_STAGGER_NS=$st KS_BLOCK_PROBE=$OUT/q80_$st.csv timeout 60 ./kernelscope-cli.QP run --workload lrv --variant $D --generate $P80 --min-reps 5 --max-reps 5 --no-calibrate -q >/dev/null; done
  gzip $OUT/q80_*.csv
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
variants)
  { ab 80 $P80 $D head QS QL QT QN QTN head QS QL QT QN QTN
  ab 37 $P37 $D head QL QT QN QTN
  ab 200 $P200 $D head QT QTN
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
wait)
  { ab 80 $P80 $D head W W:KS_WAIT_BELOW=528 W:KS_CARVEOUT=72 W:KS_CARVEOUT=100 head W W:KS_WAIT_BELOW=528 W:KS_CARVEOUT=72 W:KS_CARVEOUT=100 head W:KS_WAIT_BELOW=528 W:KS_CARVEOUT=72
  ab 37 $P37 $D head W:KS_WAIT_BELOW=660 W:KS_CARVEOUT=86 head W:KS_WAIT_BELOW=660 W:KS_CARVEOUT=86
  ab 200 $P200 $D head W:KS_WAIT_BELOW=660 W:KS_CARVEOUT=86
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
sass)
  { for b in head QS; do
      cuobjdump -sass kernelscope-cli.$b > /tmp/all.sass 2>/dev/null
      awk '/Function : .*dmmaPairsKernelILb0ELb0E/{p=1} /Function :/{if(!/dmmaPairsKernelILb0ELb0E/)p=0} p' /tmp/all.sass > $OUT/sass_$b.txt
      wc -l $OUT/sass_$b.txt
      timeout 120 ncu --kernel-name regex:dmmaPairsKernel --launch-skip 2 --launch-count 1 --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section SpeedOfLight --metrics smsp__inst_executed.sum,smsp__cycles_active.avg,sm__cycles_elapsed.avg,smsp__warps_issue_stalled_barrier_per_warp_active.pct,smsp__pcsamp_warps_issue_stalled_barrier --print-details all ./kernelscope-cli.$b run --workload lrv --variant $D --generate $P80 --min-reps 3 --max-reps 3 --warmup 0 --no-calibrate -q > $OUT/ncu_$b.txt 2>&1
      grep -E "Duration|Issue Slots Busy|Warp Cycles Per Issued|No Eligible|Active Warps Per|Eligible Warps|SM Frequency|inst_executed|Registers|Achieved Occupancy|Stall|L2 Hit|Mem.*Busy" $OUT/ncu_$b.txt | head -30
    done
    gzip $OUT/sass_*.txt
  } 2>&1 | tee $OUT/session.log ;;
griddiv)
  { ab 80 $P80 $D head QK:KS_GRID_DIV=1 QK:KS_GRID_DIV=2 QK:KS_GRID_DIV=4 QK head QK:KS_GRID_DIV=1 QK:KS_GRID_DIV=2 QK:KS_GRID_DIV=4 QK
  ab 37 $P37 $D head QK:KS_GRID_DIV=1 QK:KS_GRID_DIV=2 head QK:KS_GRID_DIV=1 QK:KS_GRID_DIV=2
  ab 200 $P200 $D head QK:KS_GRID_DIV=1 QK:KS_GRID_DIV=2
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
metrics)
  { M=gpu__time_duration.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_atom.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed_op_ldgsts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,sm__warps_launched.sum,lts__t_sectors_srcunit_tex.sum
  for b in head QK; do for g in 1; do
    KS_GRID_DIV=$g timeout 120 ncu --kernel-name regex:dmmaPairsKernel --launch-skip 2 --launch-count 1 --metrics $M ./kernelscope-cli.$b run --workload lrv --variant $D --generate $P80 --min-reps 3 --max-reps 3 --warmup 0 --no-calibrate -q > $OUT/metrics_$b.txt 2>&1
    grep -E "^\s+[a-z]" $OUT/metrics_$b.txt | sed "s/^/$b /"
  done; done
  } 2>&1 | tee $OUT/session.log ;;
aligned)
  { cp kernelscope-cli.Q128 kernelscope-cli.new
  ab 80 $P80 $D head Q128 head Q128 head Q128
  ab 200 $P200 $D head Q128
  ab 37 $P37 $D head Q128
  tests
  sanitize memcheck "N=80 chunks" samples=80,features=1501,planted=20,noise=1e-4 --param device_output_mb=1
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  sanitize racecheck "N=80" samples=80,features=1001,planted=20,noise=1e-4
  sanitize synccheck "N=37 grouped" $R37 --param group_rows=16
  fallbackMemcheck
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
align)
  { cp kernelscope-cli.A128 kernelscope-cli.new
  ab 200 $P200 $D head A128 head A128
  ab 80 $P80 $D head A128
  ab w80 samples=80,features=10000,planted=20,noise=1e-4,weights=random $D head A128
  tests
  sanitize memcheck "N=37 grouped chunks" $S37 --param group_rows=16 --param device_output_mb=1
  ab 37 $P37 $D head A128
  } 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log ;;
esac
