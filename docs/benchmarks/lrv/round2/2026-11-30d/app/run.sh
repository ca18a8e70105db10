#!/usr/bin/env bash
# The spmv view on lund_a.mtx again (its row_tiles line changed in 7e952d4), with the committed app (f3c0bd2), the
# setup of packaging/gpu-app-session.sh; then lrv at 80 × 10,000 and 200 × 30,000 with the committed CLI.
set -uo pipefail
mkdir -p "$OUT/shots" "$OUT/csv"
kit=$(mktemp -d)
tar -C "$kit" -xJf .gpuqt/kit.tar.xz
(cd "$kit" && source ./env.sh && env | grep -E '^(LD_LIBRARY_PATH|QT_|FONTCONFIG)' >"$OUT/env.txt")
source <(sed 's/^/export /' "$OUT/env.txt")
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; date -u; } | tee $OUT/device.txt
HOME="$OUT/home" timeout 300 "$kit/bin/kernelscope" --theme light --workload spmv .realdata/lund_a.mtx \
  --screenshot "$OUT/shots/spmv-file" > "$OUT/shots/spmv-file.log" 2>&1; echo "app rc=$?"
find "$OUT/home" -name '*.csv' -exec cp {} "$OUT/csv/spmv-file.csv" \;
rm -rf "$OUT/home"
python3 -c "
import csv, collections
rows = list(csv.DictReader(open('$OUT/csv/spmv-file.csv')))
print(len(rows), 'runs', dict(collections.Counter((r['backend'], r['outcome']) for r in rows)))"
ls $OUT/shots
cp $OUT/shots/spmv-file-5.png $OUT/spmv-lund_a.png; tar -czf $OUT/shots.tar.gz -C $OUT shots && rm -rf $OUT/shots
summ() { python3 -c "
import csv
for r in csv.DictReader(open('$1')): print('$2', r['variant'], r['median_ms'][:7], r['noise_pct'][:4], r['outcome'], r['delta_value'][:9])"; }
for i in 1 2 3; do
  timeout 120 "$kit/bin/kernelscope-cli" run --workload lrv --variant dmma_refined --generate samples=80,features=10000,planted=20,noise=1e-4 \
    --time-limit 1.5 --max-reps 60 --csv $OUT/csv/lrv80_$i.csv --quiet >/dev/null 2>&1; summ $OUT/csv/lrv80_$i.csv "80 #$i"
done
timeout 120 "$kit/bin/kernelscope-cli" run --workload lrv --variant dmma_refined --generate samples=200,features=30000,planted=20,noise=1e-4 \
  --time-limit 1.5 --max-reps 60 --csv $OUT/csv/lrv200.csv --quiet >/dev/null 2>&1; summ $OUT/csv/lrv200.csv "200"
tar -czf $OUT/csv.tar.gz -C $OUT csv && rm -rf $OUT/csv
