#!/usr/bin/env bash
# The multi-GPU benchmark (issue 17): sdh at 4M points and lrv at 200 × 100,000 on 2 GPUs and on 1, each multi-GPU
# variant beside its single-GPU variant. Every multi-GPU row's facts carry the single-GPU time measured in the same
# run and the scaling efficiency t1 / (k · tk). Usage: bash run.sh path/to/kernelscope-cli [OUTDIR]
set -euo pipefail
cli=$1
out=${2:-.}
"$cli" run --workload sdh --variant tiled_f32_multi,tiled_f32 --generate points=4000000 --devices 0,1 --warmup 1 \
    --min-reps 3 --max-reps 5 --noise 2 --csv "$out/sdh4m_2gpu.csv"
"$cli" run --workload lrv --variant dmma_refined_multi,dmma_refined --generate samples=200,features=100000 \
    --devices 0,1 --warmup 1 --min-reps 5 --max-reps 20 --noise 1 --csv "$out/lrv100k_2gpu.csv"
"$cli" run --workload sdh --variant tiled_f32_multi --generate points=4000000 --devices 0 --warmup 1 --min-reps 3 \
    --max-reps 3 --csv "$out/sdh4m_1gpu.csv"
"$cli" run --workload lrv --variant dmma_refined_multi --generate samples=200,features=100000 --devices 0 \
    --warmup 1 --min-reps 5 --max-reps 20 --noise 1 --csv "$out/lrv100k_1gpu.csv"
