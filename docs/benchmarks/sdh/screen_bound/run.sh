#!/usr/bin/env bash
# sdh, tiled_f64_exact at 1M points across bucket widths 500 … 5 (80 … 7,968 buckets), with tiled_f32 beside it and
# the exact histograms compared byte for byte with shared_lr_soa's (the reference's double arithmetic, pair by pair).
# Needs CLI (path to kernelscope-cli) and OUT; BEFORE=path to an older kernelscope-cli adds its runs as before_*.
set -uo pipefail
U=points=1000000,seed=1
run() { # $1 binary, $2 variant, $3 width, $4 csv, $5... more options
    "$1" run -w sdh -v "$2" --generate $U --param bucket_width="$3" --warmup 1 --min-reps 5 --max-reps 7 --time-limit 4 \
        --no-calibrate --csv "$OUT/$4" "${@:5}" -q >/dev/null
}
for w in 500 100 30 20 10 5; do
    [ -n "${BEFORE:-}" ] && run "$BEFORE" tiled_f64_exact $w before_w$w.csv && run "$BEFORE" tiled_f32 $w f32_before_w$w.csv
    run "$CLI" tiled_f64_exact $w after_w$w.csv -o "$OUT/h_exact_w$w.csv"
    run "$CLI" tiled_f32 $w f32_after_w$w.csv
    "$CLI" run -w sdh -v shared_lr_soa --generate $U --param bucket_width=$w --warmup 0 --min-reps 1 --max-reps 1 \
        --no-calibrate -o "$OUT/h_soa_w$w.csv" -q >/dev/null
    cmp -s "$OUT/h_soa_w$w.csv" "$OUT/h_exact_w$w.csv" && echo "width $w: equal to shared_lr_soa" \
        || echo "width $w: DIFFERS from shared_lr_soa"
    rm -f "$OUT/h_soa_w$w.csv" "$OUT/h_exact_w$w.csv"
done
