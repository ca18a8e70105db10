#!/usr/bin/env bash
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
summ() { python3 -c "
import csv
for r in csv.DictReader(open('$1')): print('$2', r['variant'], r['median_ms'][:7], r['outcome'], r['delta_value'][:9])"; }
G=samples=80,features=10000,planted=20,noise=1e-4
for v in cur:0 new:0 new:1048576 new:264 new:396 cur:0 new:0 new:1048576; do b=${v%%:*}; blk=${v##*:}
bin=kernelscope-cli; [ $b != new ] && bin=kernelscope-cli.$b
./$bin run --workload lrv --variant dmma_refined --generate $G $( [ $b = new ] && echo --param dmma_blocks=$blk ) --time-limit 1.5 --max-reps 60 --csv /tmp/r.csv --quiet >/dev/null 2>&1; sed "s/^/$b,$blk,/" /tmp/r.csv >> $OUT/ab.csv; summ /tmp/r.csv "$b blocks=$blk"; done
S="--min-reps 1 --max-reps 1 --warmup 0 --no-calibrate -q"
ncu --cache-control none --clock-control none -k regex:dmmaPairs -c 1 --section WarpStateStats --section LaunchStats --section Occupancy ./kernelscope-cli run --workload lrv --variant dmma_refined --generate $G $S > $OUT/ncu-new.txt 2>&1
grep -E "Stall|Warp Cycles|Active Warps|Achieved|Duration" $OUT/ncu-new.txt | head -30
ncu --cache-control none --clock-control none -k regex:dmmaPairs -c 1 --metrics smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_warps_issue_stalled_mio_throttle,smsp__pcsamp_warps_issue_stalled_membar,smsp__pcsamp_warps_issue_stalled_sleeping,smsp__pcsamp_warps_issue_stalled_drain,smsp__pcsamp_sample_count ./kernelscope-cli.cur run --workload lrv --variant dmma_refined --generate $G $S 2>&1 | grep -E "smsp__" | sed "s/^/cur /"
ncu --cache-control none --clock-control none -k regex:dmmaPairs -c 1 --metrics smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_warps_issue_stalled_mio_throttle,smsp__pcsamp_warps_issue_stalled_membar,smsp__pcsamp_warps_issue_stalled_sleeping,smsp__pcsamp_warps_issue_stalled_drain,smsp__pcsamp_sample_count ./kernelscope-cli run --workload lrv --variant dmma_refined --generate $G $S 2>&1 | grep -E "smsp__" | sed "s/^/new /"
