#!/usr/bin/env bash
# The table's closest pairs again on another machine: auto and cuSPARSE, the committed build (new11), three runs each.
set -uo pipefail
W=/tmp/ks; mkdir -p $W; tar -xJf .gpubin/bins.tar.xz -C $W; cd $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; date -u; } | tee $OUT/device.txt
summ() { python3 -c "
import csv
for r in csv.DictReader(open('$1')): print('$2', r['variant'], r['median_ms'][:7], r['noise_pct'][:4], r['outcome'])"; }
{
for entry in "uniform16_4m:pattern=uniform,rows=4000000,per_row=16:f32" "powerlaw24_4m:pattern=powerlaw,rows=4000000,per_row=8,exponent=2.4:f64" \
  "powerlaw22_4m:pattern=powerlaw,rows=4000000,per_row=8,exponent=2.2:f64" "short3_8m:pattern=uniform,rows=8000000,per_row=3:f32"; do
  name=${entry%%:*}; rest=${entry#*:}; gen=${rest%:*}; pr=${rest##*:}
  for i in 1 2 3; do
    timeout 100 ./kernelscope-cli.new11 run --workload spmv --variant auto,cusparse,cusparse_alg2 --generate $gen --param precision=$pr \
      --time-limit 1 --max-reps 200 --csv $OUT/${name}_${pr}_$i.csv --quiet >/dev/null 2>&1 || echo "$name rc=$?"
    summ $OUT/${name}_${pr}_$i.csv "$name-$pr #$i"
  done
done
mkdir -p $OUT/csv; mv $OUT/*_[123].csv $OUT/csv/; tar -czf $OUT/csv.tar.gz -C $OUT csv && rm -rf $OUT/csv
} 2>&1 | tee $OUT/session.log
