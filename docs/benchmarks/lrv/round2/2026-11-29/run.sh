#!/usr/bin/env bash
# lrv round 2 on an H200 at 844d55e: the unweighted table (dmma_refined, cublas_refined, logs_tiled), weighted at
# 80 × 10,000, 1,000 × 50,000 streamed in 2 GiB chunks, and the cuBLAS peers (peers.py).
set -uo pipefail
# Run from the repository root with CLI (path to kernelscope-cli) and OUT (where the CSVs go) set.
: "${CLI:?path to kernelscope-cli}" "${OUT:?folder for the CSVs}"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader; date -u; nvidia-smi; lscpu | grep -E "Model name|^CPU\(s\)"; } > $OUT/device-info.txt 2>&1
head -1 $OUT/device-info.txt
for size in 80x10000 200x30000; do
  $CLI run --workload lrv --variant dmma_refined,cublas_refined,logs_tiled \
    --generate samples=${size%x*},features=${size#*x},planted=20,noise=1e-4 --time-limit 3 --max-reps 100 --csv $OUT/lrv_$size.csv --quiet >/dev/null 2>&1
done
$CLI run --workload lrv --variant dmma_refined --generate samples=80,features=10000,planted=20,noise=1e-4,weights=random \
  --time-limit 3 --max-reps 100 --csv $OUT/lrvw_80x10000.csv --quiet >/dev/null 2>&1
$CLI run --workload lrv --variant dmma_refined,cublas_refined --generate samples=1000,features=50000,planted=20,noise=1e-4 \
  --param device_output_mb=2048 --time-limit 5 --max-reps 5 --csv $OUT/lrv_1000x50000_2048mb.csv --quiet >/dev/null 2>&1
python3 -c "
import csv,glob
for f in sorted(glob.glob('$OUT/*.csv')):
    for r in csv.DictReader(open(f)): print(f.split('/')[-1], r['variant'], r['median_ms'][:7], r['noise_pct'][:4], r['outcome'], r['delta_value'][:9], r.get('facts','')[:160])"
python3 docs/benchmarks/lrv/round2/2026-11-29/peers.py 2>&1 | tee $OUT/peers.txt
