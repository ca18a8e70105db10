#!/usr/bin/env bash
# The desktop app on a GPU machine, which has no Qt: the kit packaging/gpu-qt-kit.sh made (carried as .gpuqt) brings
# the binaries, Qt, its offscreen plugin and fonts. Runs every GUI test, then for each workload the demo on generated
# data and a session on a real file from a Debian package (carried as .realdata), each saving every tab as a PNG
# (`kernelscope --screenshot`) and keeping its autosaved CSV. Results under $OUT.
# .realdata: visium_spots.csv (r-cran-seurat's Visium test spots: array_row, pxl_row_in_fullres), lund_a.mtx
# (r-cran-matrix), 1tii.pdb (pymol-data), pbmc_raw.txt (r-cran-seurat), t10k-*-idx*-ubyte.gz (dataset-fashion-mnist).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT/shots" "$OUT/csv"
kit=$(mktemp -d)
tar -C "$kit" -xJf .gpuqt/kit.tar.xz
# The test binaries name the CLI and the test data by their paths on the build machine.
mkdir -p /work build/ci/cli
[ -e /work/main ] || ln -sfn "$PWD" /work/main
cp "$kit/bin/kernelscope-cli" build/ci/cli/kernelscope-cli
(cd "$kit" && source ./env.sh && env | grep -E '^(LD_LIBRARY_PATH|QT_|FONTCONFIG)' >"$OUT/env.txt")
source <(sed 's/^/export /' "$OUT/env.txt")
{
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
    date -u +%FT%TZ
} >"$OUT/device.txt" 2>&1
status=0
if [ -z "${SKIP_TESTS:-}" ]; then
    "$kit/bin/ks_gui_tests" >"$OUT/gui-tests.log" 2>&1 || status=1
    echo "gui tests: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gui-tests.log" | tr '\n' ' ')"
fi

# One app session: NAME, then the app's arguments. The theme is light unless the arguments name one.
session() {
    local name=$1
    shift
    local theme=(--theme light)
    [[ " $* " == *" --theme "* ]] && theme=()
    HOME="$OUT/home-$name" timeout 300 "$kit/bin/kernelscope" "${theme[@]}" "$@" --screenshot "$OUT/shots/$name" \
        >"$OUT/shots/$name.log" 2>&1 || { status=1; echo "$name: the app failed (see shots/$name.log)"; }
    find "$OUT/home-$name" -name '*.csv' -exec cp {} "$OUT/csv/$name.csv" \;
    rm -rf "$OUT/home-$name"
    python3 - "$OUT/csv/$name.csv" "$name" <<'PY'
import collections, csv, os, sys
path, name = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(path))) if os.path.exists(path) else []
gpu = [r for r in rows if r["backend"] in ("cuda", "library")]
print(f"{name}: {len(rows)} runs {dict(collections.Counter(r['outcome'] for r in rows))}, "
      f"GPU runs {dict(collections.Counter(r['outcome'] for r in gpu))}")
PY
}
session linreg-demo --workload linreg
session linreg-file --workload linreg .realdata/visium_spots.csv
session spmv-demo --workload spmv
session spmv-file --workload spmv .realdata/lund_a.mtx
session sdh-demo --workload sdh
session sdh-file --workload sdh .realdata/1tii.pdb
session lrv-demo --workload lrv
session lrv-file --workload lrv --param orientation=features-as-rows --param zeros=replace .realdata/pbmc_raw.txt
session cnn-demo --workload cnn
session cnn-file --workload cnn .realdata/t10k-images-idx3-ubyte.gz
session spmv-dark --workload spmv --theme dark
exit $status
