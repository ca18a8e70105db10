#!/usr/bin/env bash
# sdh benchmark: the seed's sizes 10k … 1M plus 2M points, uniform in the seed's 23,000 box, at two bucket widths —
# 500 (80 buckets) and 10 (3,984 buckets). The CPU variants run where they take seconds; the seed's global-atomics
# baseline up to 250k points.
# Needs CLI (path to kernelscope-cli) and OUT (where CSVs go).
set -uo pipefail
gpu=shared_lr,shared_lr_local,shared_lr_copies,shared_lr_soa,tiled_f32,tiled_f64_exact
for width in 500 10; do
    "$CLI" run --workload sdh --variant reference,cpu_openmp,baseline,$gpu --generate points=10000 --sizes 10000,50000 \
        --param bucket_width=$width --time-limit 3 --min-reps 2 --max-reps 20 --csv "$OUT/sdh_w${width}_small.csv" --quiet
    "$CLI" run --workload sdh --variant baseline,$gpu --generate points=100000 --sizes 100000,250000 \
        --param bucket_width=$width --time-limit 3 --max-reps 10 --min-reps 3 --csv "$OUT/sdh_w${width}_mid.csv" --quiet
    "$CLI" run --workload sdh --variant tiled_f32,tiled_f64_exact,shared_lr_soa --generate points=500000 \
        --sizes 500000,1000000,2000000 --param bucket_width=$width --time-limit 3 --max-reps 5 --min-reps 3 \
        --warmup 1 --csv "$OUT/sdh_w${width}_large.csv" --quiet
done
