#!/usr/bin/env bash
# The scratch bench of 2026-11-28 (scratch_bench.txt): FP64 mma throughput by shape, the product's dmma_refined kernel
# as it was at 7dadaab ("baseline", extracted from git here rather than kept as a copy), candidate kernels (direct
# stores from the accumulators, persistent blocks, 128-wide tiles, m16n8k16) and cuBLAS DGEMM/DSYRK on the same
# matrices. Run from the repository root; needs nvcc and cuBLAS. Usage: bash build.sh && ./lrv_scratch_bench
set -euo pipefail
here=$(dirname "$0")
{
    echo '// baseline: the product kernel at 7dadaab'
    echo 'namespace base {'
    git show 7dadaab:compute/workloads/lrv/cuda_variants.cu | sed -n 669,932p | sed '1s/^namespace {$//'
    echo '}'
} > "$here/baseline.cuh"
nvcc -O3 -std=c++20 -arch=sm_90 -I. -o lrv_scratch_bench "$here/bench.cu" -lcublas
