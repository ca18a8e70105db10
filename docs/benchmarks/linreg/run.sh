#!/usr/bin/env bash
# linreg benchmark: every variant, float64, n = 2^16 … 2^28 on generated data, L2 flushed between repetitions;
# then the offset test (x_offset = 1e8) that separates the seed's formula from the stable variant.
# Needs CLI (path to kernelscope-cli) and OUT (where CSVs go).
set -uo pipefail
"$CLI" run --workload linreg --variant all --sizes '2^16..2^28' --param precision=f64 \
    --time-limit 2 --max-reps 200 --csv "$OUT/linreg_f64_sweep.csv" --quiet
"$CLI" run --workload linreg --variant all --sizes '2^20,2^24,2^28' --param precision=f32 \
    --time-limit 2 --max-reps 200 --csv "$OUT/linreg_f32.csv" --quiet
"$CLI" run --workload linreg --variant all --generate x_offset=1e8,x_span=100,noise=1 --sizes '2^24' \
    --param precision=f64 --time-limit 2 --max-reps 50 --csv "$OUT/linreg_offset.csv" --quiet
