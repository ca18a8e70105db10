#!/usr/bin/env bash
# The committed build (final = X) against head: A/B, and the Lrv* tests with the new tile test.
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
P80=samples=80,features=10000,planted=20,noise=1e-4
P200=samples=200,features=30000,planted=20,noise=1e-4
P37=samples=37,features=20000,planted=20,noise=1e-4
{
EXTRA=""
abBuilds 80 $P80 head final head final head final
abBuilds 37 $P37 head final
timeout 150 ./ks_compute_tests --gtest_filter='Lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure" | head -8
timeout 100 compute-sanitizer --tool memcheck ./ks_compute_tests --gtest_filter='LrvAccuracy.ATileFull*:LrvTableLog*' 2>&1 | grep -E "ERROR SUMMARY|^\[  PASSED|FAILED" | head -4
} 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log
