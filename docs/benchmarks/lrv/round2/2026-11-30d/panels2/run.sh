#!/usr/bin/env bash
# Panel counts, second call: cnt (the centring counts, no block polls), p1 (three relaxed loads at once, one fence) against head and new.
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; date -u; } | tee $OUT/device.txt
summ() { python3 -c "
import csv
for r in csv.DictReader(open('$1')): print('$2', r['variant'], r['median_ms'][:7], r['noise_pct'][:4], r['outcome'], r['delta_value'][:9])"; }
abBuilds() { local L=$1 G=$2; shift 2
  for b in "$@"; do
    timeout 120 ./kernelscope-cli.$b run --workload lrv --variant dmma_refined --generate $G --time-limit 1.5 \
      --max-reps 60 --csv /tmp/r.csv --quiet $EXTRA >/dev/null 2>/tmp/err.txt || { echo "$L $b FAILED rc=$?"; head -3 /tmp/err.txt; }
    sed "s/^/$L,$b,/" /tmp/r.csv >> $OUT/ab.csv; summ /tmp/r.csv "$L $b"; rm -f /tmp/r.csv; done; }
sanitize() { local T=$1 L=$2 G=$3; shift 3
  timeout 100 compute-sanitizer --tool $T ./kernelscope-cli.new run --workload lrv --variant dmma_refined --generate $G \
    "$@" --min-reps 2 --max-reps 2 --warmup 1 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|rror|passed|incorrect|failed" \
    | head -5 | sed "s/^/$T $L /"; }
P80=samples=80,features=10000,planted=20,noise=1e-4
P200=samples=200,features=30000,planted=20,noise=1e-4
P37=samples=37,features=20000,planted=20,noise=1e-4
P80=samples=80,features=10000,planted=20,noise=1e-4
P200=samples=200,features=30000,planted=20,noise=1e-4
P37=samples=37,features=20000,planted=20,noise=1e-4
{
EXTRA=""
abBuilds 80 $P80 head new cnt p1 head new cnt p1 head new cnt p1
abBuilds 37 $P37 head p1 head p1
abBuilds 200 $P200 head p1
} 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log
