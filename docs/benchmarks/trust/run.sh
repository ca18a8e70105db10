#!/usr/bin/env bash
# Trust evidence (issue 12): A/B decisions between spmv variants: each pair runs interleaved, repetition by repetition, until
# the 99 % interval of their time ratio excludes 1 or lies within ±1 %, or at the limit. Plus one linreg run with the
# clocks NVML sampled around every repetition, and a --check-determinism sweep of every stateless workload.
# Needs CLI (path to kernelscope-cli) and OUT (where the files go).
set -uo pipefail
decide() { # name generator A,B [precision]
    local name=$1 generator=$2 pair=$3 precision=${4:-f64}
    echo "== $name ($generator, $precision): $pair"
    "$CLI" run --workload spmv --generate "$generator" --param precision="$precision" --decide "$pair" \
        --margin 1% --confidence 99% --time-limit 10 --max-reps 2000 --json "$OUT/decide_${name}.json" \
        --csv "$OUT/decide_${name}.csv"
    echo "exit status $?"
}
{
    decide powerlaw_200k_scalar_vector "pattern=powerlaw,rows=200000,per_row=16" scalar,vector
    decide powerlaw_2m_merge_binning "pattern=powerlaw,rows=2000000,per_row=16,exponent=1.6" merge_path,row_binning
    decide uniform_4m_ell_cusparse "pattern=uniform,rows=4000000,per_row=16" ell,cusparse
    decide laplacian_160_cusparse_algs "pattern=laplacian3d,rows=4096000" cusparse,cusparse_alg2
    # Rows of 64 non-zeros: adaptive gives every row a whole warp, as vector does, so the two should be equivalent.
    decide uniform_1m_64_vector_adaptive "pattern=uniform,rows=1000000,per_row=64" vector,adaptive
} 2>&1 | tee "$OUT/decide.txt"

"$CLI" run --workload linreg --variant warp_shuffle,cub,atomic_global --sizes 2^24 --json "$OUT/clocks.json" \
    2>&1 | tee "$OUT/clocks.txt"

for w in linreg spmv sdh lrv; do
    case $w in
        linreg) gen="n=4000000" ;;
        spmv) gen="pattern=powerlaw,rows=1000000,per_row=16" ;;
        sdh) gen="points=100000" ;;
        lrv) gen="samples=200,features=4000" ;;
    esac
    "$CLI" run --workload $w --variant all --generate "$gen" --check-determinism --time-limit 1 --max-reps 50 \
        --csv "$OUT/determinism_$w.csv" --quiet
done 2>&1 | tee "$OUT/determinism.txt"
