#!/usr/bin/env bash
# spmv dia (call 2): the round-2 table (round2.sh) with dia, auto and the variants auto chooses among, and cuSPARSE.
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; date -u; } | tee $OUT/device.txt
{
mkdir -p $OUT/table
CLI=./kernelscope-cli OUT=$OUT/table VARIANTS=auto,row_tiles,row_binning,ell,dia,cusparse,cusparse_alg2 timeout 500 bash ./round2.sh 2>&1 | grep -v "noisy" | tail -5
python3 - $OUT/table <<'PY'
import csv, glob, sys, math
rat = []
for f in sorted(glob.glob(sys.argv[1] + "/*.csv")):
    rows = [r for r in csv.DictReader(open(f)) if r["outcome"] == "passed"]
    t = {r["variant"]: float(r["median_ms"]) for r in rows}
    auto = next((r for r in rows if r["variant"] == "auto"), None)
    lib = min(t.get("cusparse", 1e9), t.get("cusparse_alg2", 1e9))
    if auto:
        rat.append(lib / t["auto"])
        print(f.split("/")[-1][5:-4], auto["message"].split(":")[0], " ".join(f"{k}={v:.4f}" for k, v in t.items()), f"ratio={lib / t['auto']:.3f}")
if rat: print("pairs", len(rat), "min", f"{min(rat):.3f}", "geomean", f"{math.exp(sum(map(math.log, rat)) / len(rat)):.3f}")
PY
tar -czf $OUT/table.tar.gz -C $OUT table && rm -rf $OUT/table
timeout 70 ./ks_variant_tests --gtest_filter='*spmv_dia_*:*spmv_auto_*' 2>&1 | grep -E "^\[  PASSED  \]|^\[  FAILED  \]|^\[==========\]|tests? (ran|skipped)" | head -8
} 2>&1 | tee $OUT/session.log
