#!/usr/bin/env bash
# CI's fuzzing step: tests/fuzz/ci.sh BUILD_DIR [SECONDS]
# Replays every seed (BUILD_DIR/fuzz-seeds) and every committed regression input (tests/fuzz/regressions) through its
# target, where any report fails; then fuzzes each target for SECONDS (20) from its seeds, two targets at a time, in
# a scratch corpus. A fuzzing report fails CI unless the fault lies inside libhdf5 itself (issue 14, item 1: the
# reader worker contains those); KS_FUZZ_STRICT=1 fails on those too. Reports and inputs are kept under
# BUILD_DIR/fuzz-ci/.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
build=$(cd "${1:?usage: ci.sh BUILD_DIR [SECONDS]}" && pwd)
seconds=${2:-20}
out="$build/fuzz-ci"
rm -rf "$out"
mkdir -p "$out"
failed=0

echo "== fuzz: replaying the seeds and regression inputs"
for t in "${KS_FUZZ_TARGETS[@]}"; do
    inputs=()
    for dir in "$build/fuzz-seeds/$t" "$here/regressions/$t"; do
        [ -d "$dir" ] && while IFS= read -r -d '' f; do inputs+=("$f"); done < <(find "$dir" -type f -print0 | sort -z)
    done
    if ((${#inputs[@]} == 0)); then
        echo "fuzz_$t: no seed or regression input"
        failed=1
        continue
    fi
    log="$out/replay-$t.log"
    if "$build/fuzz/fuzz_$t" "${KS_FUZZ_OPTIONS[@]}" "${inputs[@]}" > "$log" 2>&1; then
        echo "fuzz_$t: ${#inputs[@]} inputs replayed"
    else
        echo "fuzz_$t: FAILED replaying: $(ks_fuzz_describe "$log")"
        grep -m1 -E '^Running: ' "$log" | tail -1
        tail -40 "$log"
        failed=1
    fi
done

echo "== fuzz: ${seconds} s per target"
# Each target is restarted after a finding until its time is used, so a libhdf5 fault found early does not end the
# HDF5 readers' fuzzing; each run has its own log, fuzz-TARGET.N.log, and exit status, fuzz-TARGET.N.rc.
fuzz_one() {
    local t=$1
    source "$here/common.sh"
    mkdir -p "$out/corpus/$t" "$out/artifacts/$t"
    local start=$SECONDS
    local n=0
    while ((n == 0 || SECONDS - start < seconds - 1)); do
        n=$((n + 1))
        "$build/fuzz/fuzz_$t" "${KS_FUZZ_OPTIONS[@]}" -max_total_time=$((seconds - (SECONDS - start) > 1 ? seconds - (SECONDS - start) : 1)) \
            -artifact_prefix="$out/artifacts/$t/" "$out/corpus/$t" "$build/fuzz-seeds/$t" > "$out/fuzz-$t.$n.log" 2>&1
        echo $? > "$out/fuzz-$t.$n.rc"
    done
}
export -f fuzz_one
export here out build seconds
printf '%s\n' "${KS_FUZZ_TARGETS[@]}" | xargs -P 2 -I{} bash -c 'fuzz_one "$1"' _ {}
for t in "${KS_FUZZ_TARGETS[@]}"; do
    runs=$(cat "$out/fuzz-$t".*.log | awk '/^stat::number_of_executed_units/ {s += $2} END {print s + 0}')
    known=0
    for rc in "$out/fuzz-$t".*.rc; do
        [ "$(cat "$rc")" = 0 ] && continue
        log=${rc%.rc}.log
        ks_fuzz_name_rss_oom "$log" "$build/fuzz/fuzz_$t"
        owner=$(ks_fuzz_fault_owner "$log")
        echo "fuzz_$t: $(ks_fuzz_describe "$log")"
        grep -E "Test unit written to" "$log" | tail -1
        if [ "$owner" = libhdf5 ] && [ "${KS_FUZZ_STRICT:-0}" != 1 ]; then
            known=$((known + 1))
        else
            tail -60 "$log"
            failed=1
        fi
    done
    if ((known)); then
        echo "fuzz_$t: $runs executions in ${seconds} s; $known finding(s) inside libhdf5 (issue 14, item 1: contained by the reader worker), not failing CI"
    else
        echo "fuzz_$t: $runs executions in ${seconds} s"
    fi
done
exit $failed
