#!/usr/bin/env bash
# Run on a GPU machine from the repository root with the previous landing unpacked in .oldsrc
# (git archive 000ea7c | tar -x -C .oldsrc) and Debian's libcsv in .devlibs; OUT is where CSVs go.
# A/B: the spine's kernels against the previous landing (000ea7c), same machine, same call.
set -u
P=$PWD
extra="-DCMAKE_PREFIX_PATH=$P/.devlibs/usr"
(cd .oldsrc && cmake --preset device $extra -DKS_BUILD_TESTS=OFF >/dev/null && cmake --build --preset device -j 16 >/dev/null 2>&1) &
(cmake --preset device $extra -DKS_BUILD_TESTS=OFF >/dev/null && cmake --build --preset device -j 16 >/dev/null 2>&1) &
wait
ls -la .oldsrc/build/device/cli/kernelscope-cli build/device/cli/kernelscope-cli || exit 1
export KS_CALIBRATION_CACHE=$OUT/cal.json
run() { # name, args...
  local name=$1; shift
  for side in old new; do
    cli=build/device/cli/kernelscope-cli; [ $side = old ] && cli=.oldsrc/build/device/cli/kernelscope-cli
    $cli run "$@" --time-limit 2 --max-reps 100 --csv $OUT/${name}_$side.csv --quiet --no-calibrate > /dev/null 2>&1
  done
}
run spmv_powerlaw -w spmv --variant all --generate pattern=powerlaw,rows=2000000,per_row=16,exponent=1.6
run spmv_uniform -w spmv --variant all --generate pattern=uniform,rows=4000000,per_row=16
run sdh_200k -w sdh --variant baseline,shared_lr_copies,tiled_f32,tiled_f64_exact --generate points=200000 --param bucket_width=500
run lrv_80x10000 -w lrv --variant block_per_pair,thread_per_pair,logs_tiled,dmma_refined,cublas_refined --generate features=10000,samples=80
run linreg_2e28 -w linreg --variant all --generate n=268435456
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
python3 - <<'PY'
import csv,os,glob
out=os.environ['OUT']
for f in sorted(glob.glob(out+'/*_new.csv')):
    name=os.path.basename(f)[:-8]
    rows={}
    for side in ('old','new'):
        for r in csv.DictReader(open(f'{out}/{name}_{side}.csv')):
            rows.setdefault(r['variant'],{})[side]=(r['median_ms'],r['outcome'])
    for v,d in rows.items():
        o=d.get('old',('nan','?')); n=d.get('new',('nan','?'))
        try: ratio=float(n[0])/float(o[0])
        except: ratio=float('nan')
        print(f"{name:14s} {v:18s} old {float(o[0]):9.4f} ms {o[1]:9s} new {float(n[0]):9.4f} ms {n[1]:9s} new/old {ratio:5.3f}")
PY
