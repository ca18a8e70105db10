#!/usr/bin/env bash
# Bring your own kernel on a GPU machine without Qt: the kit packaging/gpu-qt-kit.sh made (in .gpuqt/kit.tar.xz)
# brings the app's test binaries and Qt; this runs the user-kernel tests of the CLI and the app for real, and the
# scripted GUI session (a kernel edited three times), with its screenshots and medians written to $OUT/session.
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT/session"
kit=$(mktemp -d)
tar -C "$kit" -xJf .gpuqt/kit.tar.xz
# The test binaries name the CLI (the user kernels' worker) and the test data by their paths on the build machine.
mkdir -p /work build/ci/cli
[ -e /work/main ] || ln -sfn "$PWD" /work/main
cp "$kit/bin/kernelscope-cli" build/ci/cli/kernelscope-cli
(cd "$kit" && source ./env.sh && env | grep -E '^(LD_LIBRARY_PATH|QT_|FONTCONFIG)' > "$OUT/env.txt"; ls lib > "$OUT/carried-libs.txt")
source <(sed 's/^/export /' "$OUT/env.txt")
{
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
    date -u +%FT%TZ
} >"$OUT/device.txt" 2>&1
status=0
"$kit/bin/ks_cli_tests" --gtest_filter='*Kernel*:*Worker*' >"$OUT/cli-user-kernel.log" 2>&1 || status=1
echo "cli: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/cli-user-kernel.log" | tr '\n' ' ')"
KS_SESSION_DIR="$OUT/session" "$kit/bin/ks_gui_tests" --gtest_filter='UserKernelGui*:*KernelEditor*:*Highlighter*' \
    >"$OUT/gui-user-kernel.log" 2>&1 || status=1
echo "gui: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gui-user-kernel.log" | tr '\n' ' ')"
# The app itself, as a user starts it: the template on its command line, the demo sweep of every variant that can run
# (the user kernel in `kernelscope worker` processes: the app is its own worker), a screenshot of each tab.
mkdir -p "$OUT/app"
"$kit/bin/kernelscope-cli" new-kernel --workload spmv >"$OUT/app/my_spmv.cu"
HOME="$OUT/app/home" timeout 300 "$kit/bin/kernelscope" --workload spmv --kernel "$OUT/app/my_spmv.cu" \
    --screenshot "$OUT/app/tab" >"$OUT/app/app.log" 2>&1 || status=1
find "$OUT/app/home" -name '*.csv' -exec cp {} "$OUT/app/autosave.csv" \;
python3 - "$OUT/app/autosave.csv" <<'PY' || status=1
import collections, csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("app:", dict(collections.Counter(r["outcome"] for r in rows)))
for r in rows:
    if r["variant"].startswith("user:") or int(r["size"]) == max(int(x["size"]) for x in rows):
        print("  ", r["variant"], r["size"], r["outcome"], r["median_ms"], r.get("delta_value", ""))
PY
[ -n "${FULL_GUI:-}" ] && { "$kit/bin/ks_gui_tests" >"$OUT/gui-all.log" 2>&1 || status=1; \
    echo "gui all: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gui-all.log" | tr '\n' ' ')"; }
exit $status
