#!/usr/bin/env bash
# spmv dia, the committed build: the spmv tests, memcheck, the round-2 table (round2.sh) and the spmv view on lund_a.mtx.
set -uo pipefail
ROOT=$PWD
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; date -u; } | tee $OUT/device.txt
{
cd $W
mkdir -p $OUT/table
CLI=./kernelscope-cli OUT=$OUT/table VARIANTS=auto,row_tiles,row_binning,ell,dia,cusparse,cusparse_alg2 timeout 300 bash ./round2.sh 2>&1 | grep -v "noisy" | tail -3
python3 - $OUT/table <<'PY'
import csv, glob, sys, math
rat = []
for f in sorted(glob.glob(sys.argv[1] + "/*.csv")):
    rows = [r for r in csv.DictReader(open(f)) if r["outcome"] == "passed"]
    t = {r["variant"]: r for r in rows}
    lib = min(float(t[v]["median_ms"]) for v in ("cusparse", "cusparse_alg2") if v in t)
    a = t["auto"]
    rat.append(lib / float(a["median_ms"]))
    print(f.split("/")[-1][5:-4], a["message"].split(":")[0], " ".join(f"{k}={float(v['median_ms']):.4f}" for k, v in t.items()),
          f"ratio={rat[-1]:.3f}", "dia_GBs=" + (t["dia"]["gb_per_s"][:6] + " " + t["dia"]["pct_of_peak"][:5] + "%" if "dia" in t else "-"))
print("pairs", len(rat), "min", f"{min(rat):.3f}", "geomean", f"{math.exp(sum(map(math.log, rat)) / len(rat)):.3f}")
PY
tar -czf $OUT/table.tar.gz -C $OUT table && rm -rf $OUT/table
timeout 100 ./ks_variant_tests --gtest_filter='*spmv_dia_*:*spmv_auto_*:*spmv_ell_*' 2>&1 | grep -E "^\[  PASSED  \]|^\[  FAILED  \]|tests? ran" | head -6
timeout 100 ./ks_compute_tests --gtest_filter='Spmv*:Runner*' 2>&1 | grep -E "^\[  PASSED  \]|^\[  FAILED  \]|tests? ran" | head -6
timeout 60 compute-sanitizer --tool memcheck ./kernelscope-cli run --workload spmv --variant dia,auto --generate pattern=laplacian3d,rows=30000 \
  --param precision=f32 --min-reps 2 --max-reps 2 --warmup 1 --no-calibrate -q 2>&1 | grep -E "ERROR SUMMARY|^(dia|auto) " | head -3
cd $ROOT
kit=$(mktemp -d); tar -C "$kit" -xJf .gpuqt/kit.tar.xz
(cd "$kit" && source ./env.sh && env | grep -E '^(LD_LIBRARY_PATH|QT_|FONTCONFIG)' >"$OUT/env.txt")
source <(sed 's/^/export /' "$OUT/env.txt")
mkdir -p $OUT/shots $OUT/csv
HOME="$OUT/home" timeout 200 "$kit/bin/kernelscope" --theme light --workload spmv .realdata/lund_a.mtx \
  --screenshot "$OUT/shots/spmv-file" > "$OUT/shots/spmv-file.log" 2>&1; echo "app rc=$?"
find "$OUT/home" -name '*.csv' -exec cp {} "$OUT/csv/spmv-file.csv" \;
rm -rf "$OUT/home"
python3 -c "
import csv, collections
rows = list(csv.DictReader(open('$OUT/csv/spmv-file.csv')))
print(len(rows), 'runs', dict(collections.Counter((r['backend'], r['outcome']) for r in rows)))
for r in rows:
    if r['variant'] in ('dia', 'auto'): print(r['variant'], r['outcome'], r['message'][:110])"
cp $OUT/shots/spmv-file-5.png $OUT/spmv-lund_a.png; tar -czf $OUT/shots.tar.gz -C $OUT shots csv && rm -rf $OUT/shots $OUT/csv
} 2>&1 | tee $OUT/session.log
