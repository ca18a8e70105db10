#!/usr/bin/env bash
# A fuzzing campaign over the packed targets (pack.sh puts this script beside them):
#   campaign.sh [-t SECONDS] [-j JOBS] [-p PARALLEL] [-o OUTDIR] [-r | -n] [TARGET...]
# runs each TARGET (default: all) for SECONDS of wall time (3600) with JOBS processes (1; more: libFuzzer's fork
# mode), PARALLEL targets at a time (1), so each target gets SECONDS × JOBS CPU-seconds; crashes, hangs and
# out-of-memory inputs are kept and fuzzing goes on. Corpora, findings and logs go to OUTDIR (campaign-DATE), and a
# run with the same OUTDIR goes on from its corpora, its time added. Afterwards every finding is replayed once and
# described, and OUTDIR/summary.md tabulates per target: CPU time, executions, coverage, corpus, findings (each
# distinct fault once, with the libhdf5-internal ones apart) — the log to commit under docs/fuzzing/ — and
# OUTDIR.tar.xz holds all of OUTDIR (to fetch from a machine that is given back, and to go on from later).
# -r: no fuzzing; replay the findings again and rewrite the summary (where llvm-symbolizer exists, as on the build
# machine, the reports then name functions and source lines).
# -n: fuzz only, and pack OUTDIR.tar.xz without replaying or summarising (for a machine whose time is short and which
# has no llvm-symbolizer: replay there later with -r).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
seconds=3600
jobs=1
parallel=1
out="campaign-$(date -u +%Y%m%d-%H%M)"
reportOnly=0
fuzzOnly=0
# Replaying a finding may take the whole -timeout: at most this many per target are replayed (sorted by name, so
# crashes come before hangs and out-of-memory inputs).
maxTriage=12
while getopts "t:j:p:o:rn" option; do
    case $option in
        t) seconds=$OPTARG ;;
        j) jobs=$OPTARG ;;
        p) parallel=$OPTARG ;;
        o) out=$OPTARG ;;
        r) reportOnly=1 ;;
        n) fuzzOnly=1 ;;
        *) sed -n '2,14p' "$0"; exit 2 ;;
    esac
done
((reportOnly && fuzzOnly)) && { echo "campaign.sh: -r and -n exclude each other"; exit 2; }
shift $((OPTIND - 1))
targets=("$@")
((${#targets[@]})) || targets=("${KS_FUZZ_TARGETS[@]}")
for t in "${targets[@]}"; do
    [ -x "$here/bin/fuzz_$t" ] || { echo "campaign.sh: no $here/bin/fuzz_$t (run it from pack.sh's folder)"; exit 2; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

run_target() {
    local t=$1
    source "$here/common.sh"
    mkdir -p "$out/corpus/$t" "$out/artifacts/$t" "$out/logs"
    local n=1
    while [ -e "$out/logs/$t.$n.log" ]; do n=$((n + 1)); done
    local log="$out/logs/$t.$n.log"
    echo "$(date -u +%H:%M:%S) fuzz_$t: ${seconds} s × ${jobs} jobs (run $n)"
    local start=$SECONDS
    if ((jobs == 1)); then
        # One process: plain libFuzzer, restarted after each finding until the time is up (twice the executions of
        # fork mode's one worker, which merges the corpus at every job).
        while ((SECONDS - start < seconds - 1)); do
            "$here/run.sh" "fuzz_$t" "${KS_FUZZ_OPTIONS[@]}" -max_total_time=$((seconds - (SECONDS - start))) \
                -artifact_prefix="$out/artifacts/$t/" "$out/corpus/$t" "$here/seeds/$t" "$here/regressions/$t" \
                >> "$log" 2>&1
        done
    else
        "$here/run.sh" "fuzz_$t" "${KS_FUZZ_OPTIONS[@]}" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 \
            -ignore_ooms=1 -max_total_time="$seconds" -artifact_prefix="$out/artifacts/$t/" \
            "$out/corpus/$t" "$here/seeds/$t" "$here/regressions/$t" > "$log" 2>&1
    fi
    # The CPU time the run's processes used (user + system, from bash's `times`), beside its wall time × jobs: on a
    # machine doing other work as well the two differ, and the summary counts the first.
    # (`times` is run without a pipe or a substitution, whose subshell would have no children.)
    local cpu
    times > "$log.times"
    cpu=$(tail -1 "$log.times" | awk '{
        t = 0
        for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] }
        printf "%d", t }')
    rm -f "$log.times"
    echo "$t $n $((SECONDS - start)) $jobs $cpu" >> "$out/runs.txt"
}
export -f run_target
export here out seconds jobs
if ((reportOnly)); then
    rm -rf "$out/triage"
else
    printf '%s\n' "${targets[@]}" | xargs -P "$parallel" -I{} bash -c 'run_target "$1"' _ {}
fi
touch "$out/runs.txt"
if ((fuzzOnly)); then
    tar -cJf "$out.tar.xz" -C "$(dirname "$out")" "$(basename "$out")"
    echo "campaign.sh: fuzzed only; $out.tar.xz ($(du -h "$out.tar.xz" | cut -f1)); replay and summarise with -r"
    exit 0
fi

# The findings replayed alone: each report says what and where.
for t in "${targets[@]}"; do
    mkdir -p "$out/triage/$t" "$out/artifacts/$t"
    find "$out/artifacts/$t" -type f | sort | head -n "$maxTriage" | while read -r artifact; do
        log="$out/triage/$t/$(basename "$artifact").log"
        [ -f "$log" ] || "$here/run.sh" "fuzz_$t" "${KS_FUZZ_OPTIONS[@]}" "$artifact" > "$log" 2>&1
        ks_fuzz_name_rss_oom "$log" "$here/run.sh" "fuzz_$t"
    done
done

# The summary: executions from each run's final statistics (plain mode) or its last fork-mode status line ("#EXECS:
# cov: C ft: F corp: N ..."), coverage from the last status line; runs add up.
{
    echo "# Fuzzing campaign $(basename "$out")"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; $(uname -sr); $(sed -n 's/^PRETTY_NAME=//p' /etc/os-release | tr -d '"')."
    [ -f "$here/PACKED.txt" ] && echo "Binaries: $(head -1 "$here/PACKED.txt")."
    echo "Options: ${KS_FUZZ_OPTIONS[*]}; crashes, hangs and OOMs kept and fuzzing continued;"
    echo "memory budget of the readers 256 MiB; LeakSanitizer on, leaks of libhdf5's own allocations suppressed."
    echo
    echo "| target | CPU time (h:mm:ss) | executions | exec/s | coverage (edges) | features | corpus (files) | crash / hang / OOM inputs | distinct faults: ours | in libhdf5 |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    for t in "${targets[@]}"; do
        # Runs that noted their CPU time count it; older runs (four columns) count wall time × jobs.
        cpu=$(awk -v t="$t" '$1 == t {s += (NF >= 5 ? $5 : $3 * $4)} END {print s + 0}' "$out/runs.txt")
        execs=0
        last=""
        for log in "$out/logs/$t".*.log; do
            [ -f "$log" ] || continue
            if grep -q '^stat::number_of_executed_units' "$log"; then
                # Plain mode: each run's final statistics.
                execs=$((execs + $(awk '/^stat::number_of_executed_units/ {s += $2} END {print s + 0}' "$log")))
                line=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE)' "$log" | tail -1)
            else
                line=$(grep -E '^#[0-9]+: cov: ' "$log" | tail -1)
                [ -n "$line" ] && execs=$((execs + $(echo "$line" | sed -E 's/^#([0-9]+):.*/\1/')))
            fi
            [ -n "$line" ] && last=$line
        done
        cov=$(echo "$last" | sed -nE 's/.* cov: ([0-9]+).*/\1/p')
        ft=$(echo "$last" | sed -nE 's/.* ft: ([0-9]+).*/\1/p')
        corpus=$(find "$out/corpus/$t" -type f | wc -l)
        crashes=$(find "$out/artifacts/$t" -type f -name 'crash-*' | wc -l)
        hangs=$(find "$out/artifacts/$t" -type f -name 'timeout-*' | wc -l)
        ooms=$(find "$out/artifacts/$t" -type f \( -name 'oom-*' -o -name 'leak-*' \) | wc -l)
        ours=0
        theirs=0
        : > "$out/triage/$t/faults.txt"
        for log in "$out/triage/$t"/*.log; do
            [ -f "$log" ] || continue
            kind=$(ks_fuzz_report_kind "$log")
            if [ -z "$kind" ]; then
                echo "not reproduced alone | $(basename "$log" .log)" >> "$out/triage/$t/faults.txt"
                continue
            fi
            echo "$(ks_fuzz_describe "$log" | sed -E 's/0x[0-9a-f]+//g') | $(basename "$log" .log)" >> "$out/triage/$t/faults.txt"
        done
        sort -t'|' -k1,2 -u "$out/triage/$t/faults.txt" -o "$out/triage/$t/distinct.txt"
        ours=$(grep -c '\[ours\]' "$out/triage/$t/distinct.txt")
        theirs=$(grep -c '\[libhdf5\]' "$out/triage/$t/distinct.txt")
        rate=$((execs / (cpu > 0 ? cpu : 1)))
        printf '| %s | %d:%02d:%02d | %d | %d per CPU-s | %s | %s | %d | %d / %d / %d | %d | %d |\n' "fuzz_$t" \
            $((cpu / 3600)) $((cpu % 3600 / 60)) $((cpu % 60)) "$execs" "$rate" "${cov:-?}" "${ft:-?}" "$corpus" "$crashes" "$hangs" \
            "$ooms" "$ours" "$theirs"
    done
    echo
    echo "## Distinct faults"
    echo
    echo "One line per distinct report (kind, owner, sanitizer summary, fault frame) with one input that shows it;"
    echo "the inputs are under artifacts/TARGET/ and their replayed reports under triage/TARGET/ (the first $maxTriage"
    echo "of each target's findings are replayed)."
    for t in "${targets[@]}"; do
        [ -s "$out/triage/$t/distinct.txt" ] || continue
        echo
        echo "### fuzz_$t"
        echo
        sed 's/^/- /' "$out/triage/$t/distinct.txt"
    done
} > "$out/summary.md"
tar -cJf "$out.tar.xz" -C "$(dirname "$out")" "$(basename "$out")"
cat "$out/summary.md"
echo "campaign.sh: $out.tar.xz ($(du -h "$out.tar.xz" | cut -f1))"
