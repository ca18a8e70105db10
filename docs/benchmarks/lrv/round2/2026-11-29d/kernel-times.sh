#!/usr/bin/env bash
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
S="--min-reps 3 --max-reps 3 --warmup 1 --no-calibrate -q"
for G in samples=80,features=10000,planted=20,noise=1e-4 samples=200,features=30000,planted=20,noise=1e-4; do
ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum,gpu__time_active.sum ./kernelscope-cli run --workload lrv --variant dmma_refined --generate $G $S --csv /tmp/p.csv > /tmp/ncu.txt 2>&1
grep -E "^  [a-zA-Z_].*\(|gpu__time" /tmp/ncu.txt | sed -E 's/\(const.*//' | tail -30
./kernelscope-cli run --workload lrv --variant dmma_refined --generate $G --time-limit 1.0 --max-reps 40 --csv /tmp/r.csv -q >/dev/null 2>&1; python3 -c "
import csv
for r in csv.DictReader(open('/tmp/r.csv')): print('median', r['median_ms'])"
done
