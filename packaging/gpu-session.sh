#!/usr/bin/env bash
# One session on a GPU machine (no Qt there): build the `device` preset, run every test binary for real on the
# GPU, check the kernels with compute-sanitizer, calibrate, and run the benchmarks. Writes logs and CSVs to $OUT.
# Usage: OUT=/some/dir bash packaging/gpu-session.sh [build|test|bench]...   (default: all three)
set -uo pipefail
cd "$(dirname "$0")/.."
FINAL=${OUT:-$PWD/gpu-out}
# Logs gather in a scratch folder and travel back as one archive; CSVs and the ceilings are copied out beside it.
OUT=$(mktemp -d)
mkdir -p "$FINAL"
trap 'tar -C "$OUT" -czf "$FINAL/logs.tar.gz" . ; cp "$OUT"/*.csv "$OUT"/info.txt "$OUT"/calibration.json "$FINAL"/ 2>/dev/null' EXIT
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build test bench)
B=build/device
export KS_CALIBRATION_CACHE="$OUT/calibration.json"

has() { local s; for s in "${steps[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

{
    nvidia-smi
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
    ldconfig -p | grep -E "libnvidia-ml|libcuda\." || true
} >"$OUT/nvidia-smi.txt" 2>&1

if has build; then
    # libcsv is not on the GPU image: use a carried copy of Debian's package when present.
    extra=()
    [ -d .devlibs/usr ] && extra+=("-DCMAKE_PREFIX_PATH=$PWD/.devlibs/usr")
    { cmake --preset device "${extra[@]}" && cmake --build --preset device -j "$(nproc)"; } >"$OUT/build.log" 2>&1 \
        || { echo "BUILD FAILED"; tail -40 "$OUT/build.log"; exit 1; }
    echo "build ok"
fi

if has test; then
    status=0
    for t in $B/tests/data/ks_data_tests $B/tests/compute/ks_compute_tests $B/tests/compute/ks_variant_tests \
        $B/tests/cli/ks_cli_tests; do
        name=$(basename "$t")
        "$t" --gtest_output="xml:$OUT/$name.xml" >"$OUT/$name.log" 2>&1 || status=1
        echo "$name: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/$name.log" | tr '\n' ' ')"
    done
    # Memory and race checks of every CUDA variant on awkward sizes.
    compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $B/tests/compute/ks_variant_tests \
        --gtest_filter='*n31_*:*n2_*' >"$OUT/memcheck.log" 2>&1 || status=1
    echo "memcheck: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' "$OUT/memcheck.log" | tail -3 | tr '\n' ' ')"
    compute-sanitizer --tool racecheck --error-exitcode 9 $B/tests/compute/ks_variant_tests \
        --gtest_filter='*n1000003_plain_f64:*lrv_*_n1001_n33planted:*spmv_merge_path_n1000_*:*spmv_row_binning_n1000_powerlaw*:*sdh_tiled*_n257_*:*sdh_shared_lr_copies_n257_*' >"$OUT/racecheck.log" 2>&1 || status=1
    echo "racecheck: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED' "$OUT/racecheck.log" | tail -3 | tr '\n' ' ')"
    [ $status -eq 0 ] && echo "tests ok" || echo "TESTS FAILED"
fi

if has bench; then
    $B/cli/kernelscope-cli info >"$OUT/info.txt" 2>&1
    cat "$OUT/info.txt"
    # BENCH=name runs one benchmark (docs/benchmarks/<name>/run.sh); default: all of them.
    for script in docs/benchmarks/${BENCH:-*}/run.sh; do
        OUT="$OUT" CLI="$PWD/$B/cli/kernelscope-cli" bash "$script"
    done
fi
