#!/usr/bin/env bash
# spmv benchmark: the seed's 50K × 50K at 0.1 %, a 4M × 4M random matrix with 16 per row, the 160³ 7-point
# Laplacian and a power-law matrix of 2M rows, each in float64 and float32, every variant, L2 flushed.
# Needs CLI (path to kernelscope-cli) and OUT (where CSVs go).
set -uo pipefail
matrices=(
    "seed_50k:pattern=uniform,rows=50000,density=0.001"
    "uniform_4m:pattern=uniform,rows=4000000,per_row=16"
    "laplacian_160:pattern=laplacian3d,rows=4096000"
    "powerlaw_2m:pattern=powerlaw,rows=2000000,per_row=16,exponent=1.6"
)
for entry in "${matrices[@]}"; do
    name=${entry%%:*}
    generator=${entry#*:}
    for precision in f64 f32; do
        "$CLI" run --workload spmv --variant all --generate "$generator" --param precision=$precision \
            --time-limit 2 --max-reps 200 --csv "$OUT/spmv_${name}_${precision}.csv" --quiet
    done
done
