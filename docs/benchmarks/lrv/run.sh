#!/usr/bin/env bash
# lrv benchmark: the seed's 80 × 10,000, then 200 × 30,000, then 1,000 × 50,000 with the output streamed to the
# host in 2 GiB chunks. Generated negative-binomial-like counts with planted nearly proportional pairs.
# Needs CLI (path to kernelscope-cli) and OUT (where CSVs go).
set -uo pipefail
"$CLI" run --workload lrv --variant all --generate samples=80,features=10000,planted=20,noise=1e-4 \
    --time-limit 3 --max-reps 100 --csv "$OUT/lrv_80x10000.csv" --quiet
"$CLI" run --workload lrv --variant cpu_openmp,block_per_pair,thread_per_pair,logs_tiled,dmma_refined,cublas_gemm,cublas_refined \
    --generate samples=200,features=30000,planted=20,noise=1e-4 --time-limit 3 --max-reps 30 \
    --csv "$OUT/lrv_200x30000.csv" --quiet
"$CLI" run --workload lrv --variant thread_per_pair,logs_tiled,dmma_refined,cublas_gemm,cublas_refined \
    --generate samples=1000,features=50000,planted=20,noise=1e-4 --param device_output_mb=2048 \
    --time-limit 5 --max-reps 5 --csv "$OUT/lrv_1000x50000.csv" --quiet
