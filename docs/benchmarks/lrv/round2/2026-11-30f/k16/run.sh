#!/usr/bin/env bash
# m16n8k16 in the whole-stage instances (k16) against head: A/B at 80 x 10,000 and 160 x 30,000 (grouped, whole stages); the Lrv* tests and the registry's lrv cases on k16.
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
P160=samples=160,features=30000,planted=20,noise=1e-4
{
EXTRA=""
abBuilds 80 $P80 head k16 head k16 head k16 head k16
abBuilds 160 $P160 head k16
timeout 150 ./ks_compute_tests --gtest_filter='Lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|Failure" | head -8
timeout 150 ./ks_variant_tests --gtest_filter='*lrv*' 2>&1 | grep -E "^\[  PASSED|FAILED|tests? ran" | head -6
cuobjdump -sass ./kernelscope-cli.k16 2>/dev/null | grep -c "DMMA.16x8x16" | sed 's/^/DMMA.16x8x16 count in k16: /'
} 2>&1 | grep --line-buffered -v "noisy:" | tee $OUT/session.log
