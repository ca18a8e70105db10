#!/usr/bin/env bash
# spmv benchmark, round 2 (issue 15): the matrix classes where cuSPARSE led in round 1 — power-law rows (exponents
# 1.6, 2.2 and 2.4), short uniform rows (2 and 3 per row), uniform 16 per row — beside banded, 2-D and 3-D Laplacians
# and long dense-ish rows, each in float64 and float32: every GPU variant (auto included) and both cuSPARSE
# algorithms, L2 flushed.
# Needs CLI (path to kernelscope-cli) and OUT (where CSVs go); MATRICES (names, space-separated) picks a subset.
set -uo pipefail
matrices=(
    "powerlaw22_4m:pattern=powerlaw,rows=4000000,per_row=8,exponent=2.2"
    "short3_8m:pattern=uniform,rows=8000000,per_row=3"
    "uniform16_4m:pattern=uniform,rows=4000000,per_row=16"
    "banded61_2m:pattern=banded,rows=2000000,bandwidth=30"
    "laplacian2d_16m:pattern=laplacian2d,rows=16000000"
    "denserows_20k:pattern=uniform,rows=20000,per_row=2000"
    "powerlaw16_2m:pattern=powerlaw,rows=2000000,per_row=16,exponent=1.6"
    "powerlaw24_4m:pattern=powerlaw,rows=4000000,per_row=8,exponent=2.4"
    "short2_16m:pattern=uniform,rows=16000000,per_row=2"
    "laplacian3d_160:pattern=laplacian3d,rows=4096000"
)
variants=${VARIANTS:-scalar,vector,adaptive,row_binning,ell,dia,subwarp,merge_path,row_tiles,auto,cusparse,cusparse_alg2}
for entry in "${matrices[@]}"; do
    name=${entry%%:*}
    generator=${entry#*:}
    [ -n "${MATRICES:-}" ] && [[ " $MATRICES " != *" $name "* ]] && continue
    for precision in f64 f32; do
        "$CLI" run --workload spmv --variant "$variants" --generate "$generator" --param precision=$precision \
            --time-limit "${TIME_LIMIT:-1}" --max-reps "${MAX_REPS:-200}" --csv "$OUT/spmv_${name}_${precision}.csv" \
            --quiet
    done
done
