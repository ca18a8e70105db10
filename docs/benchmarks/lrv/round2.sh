#!/usr/bin/env bash
# lrv, round 2: propr's weighted lrv on the GPU variants that compute it (thread_per_pair, logs_tiled, dmma_refined)
# at the seed's 80 × 10,000 and at 200 × 30,000, and 1,000 × 50,000 streamed to the host in 2 GiB chunks, whose
# note gives the copy ceiling measured at prepare. Needs CLI (path to kernelscope-cli) and OUT (where CSVs go).
set -uo pipefail
for size in 80x10000 200x30000; do
    samples=${size%x*}
    features=${size#*x}
    "$CLI" run --workload lrv --variant thread_per_pair,logs_tiled,dmma_refined \
        --generate samples=$samples,features=$features,planted=20,noise=1e-4,weights=random \
        --time-limit 3 --max-reps 100 --csv "$OUT/lrvw_$size.csv" --quiet
done
"$CLI" run --workload lrv --variant logs_tiled,dmma_refined --generate samples=80,features=10000,planted=20,noise=1e-4 \
    --time-limit 2 --max-reps 60 --csv "$OUT/lrv_80x10000.csv" --quiet
for mb in 2048 512 256; do
    "$CLI" run --workload lrv --variant logs_tiled,dmma_refined,cublas_refined \
        --generate samples=1000,features=50000,planted=20,noise=1e-4 --param device_output_mb=$mb \
        --time-limit 5 --max-reps 5 --csv "$OUT/lrv_1000x50000_${mb}mb.csv" --quiet
done
