# Sourced by ci.sh and campaign.sh: the target list and how a libFuzzer report is read.

# Every fuzz target, as tests/fuzz/CMakeLists.txt builds them (fuzz_<name>).
KS_FUZZ_TARGETS=(matrix_market mex_folder series_text expression_text pdb xyz ply point_text idx cifar
    sparse_hdf5 expression_hdf5 point_hdf5 series_hdf5 vector_text vector_hdf5 sniff)

# The options every fuzzing run shares: an input taking 10 s is a hang; any single allocation over 1 GiB (four times
# the targets' 256 MiB memory budget, so only an allocation the budget never saw) and a process over 2 GiB are
# out-of-memory findings.
KS_FUZZ_OPTIONS=(-timeout=10 -malloc_limit_mb=1024 -rss_limit_mb=2048 -print_final_stats=1)

# The line after which a log holds the replay that names the allocation behind a process-size report (below).
KS_FUZZ_REPLAY_MARK="== replayed alone with -malloc_limit_mb=128 to find the allocation"

# A report that the whole process grew past -rss_limit_mb comes from libFuzzer's memory thread: its stack is the
# fuzzer's own and says nothing about who allocated. ks_fuzz_name_rss_oom LOG TARGET-COMMAND... replays such a
# report's input once more, stopping at the first allocation over 128 MiB (half the readers' budget), and appends
# that report to LOG after KS_FUZZ_REPLAY_MARK; the functions below then read the replay. Other logs are left alone.
ks_fuzz_name_rss_oom() {
    local log=$1 input
    shift
    grep -q "ERROR: libFuzzer: out-of-memory (used:" "$log" || return 0
    grep -q -F "$KS_FUZZ_REPLAY_MARK" "$log" && return 0
    input=$(grep -E "Test unit written to " "$log" | tail -1 | sed -E 's/.*Test unit written to //')
    [ -n "$input" ] && [ -f "$input" ] || input=$(grep -m1 -E '^Running: ' "$log" | sed -E 's/^Running: //')
    [ -n "$input" ] && [ -f "$input" ] || return 0
    {
        echo "$KS_FUZZ_REPLAY_MARK"
        "$@" -timeout=30 -malloc_limit_mb=128 -rss_limit_mb=0 "$input" 2>&1 ||
            true
        grep -q -E '^SUMMARY: ' <(ks_fuzz_report_part "$log") ||
            echo "SUMMARY: no single allocation over 128 MiB when replayed alone"
    } >> "$log"
}

# The part of a log the report is read from: the replay after KS_FUZZ_REPLAY_MARK when there is one, else all of it.
ks_fuzz_report_part() {
    awk -v mark="$KS_FUZZ_REPLAY_MARK" '
        { lines[NR] = $0 } $0 == mark { from = NR }
        END { for (i = (from ? from + 1 : 1); i <= NR; i++) print lines[i] }' "$1"
}

# The kind of report in a libFuzzer log: crash, timeout, oom, leak or "" (none).
ks_fuzz_report_kind() {
    local log=$1
    if grep -q "ERROR: libFuzzer: timeout" "$log"; then echo timeout
    elif grep -q -E "ERROR: libFuzzer: out-of-memory|AddressSanitizer: out-of-memory|allocation-size-too-big|requested allocation size" "$log"; then echo oom
    elif grep -q "ERROR: LeakSanitizer" "$log"; then echo leak
    elif grep -q -E "ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:|SUMMARY: " "$log"; then echo crash
    fi
}

# The frames of the report's first stack from where the fault is, at most $2 (1) of them: the first frame that is
# neither the sanitizer or fuzzer runtime, nor libc's signal, abort, copy and allocation plumbing, nor the C++
# runtime's throw and terminate, and its callers; one line each, without addresses, folders and build ids.
ks_fuzz_fault_frame() {
    ks_fuzz_report_part "$1" | grep -E '^ *#[0-9]+ 0x[0-9a-f]+' |
        grep -v -E 'sysdeps/|in (__)?(memcpy|memmove|memset|memcmp|strlen|strnlen|strcmp|strncmp|strchr|strdup|strndup)[a-z_0-9]*( |$)|__sanitizer|__asan|__ubsan|__lsan|__interceptor|fuzzer::|in (malloc|calloc|realloc|free|operator new|operator delete)|libc\.so|libpthread|libstdc\+\+|__libc_|raise|abort|__restore_rt|pthread_kill|gsignal|__cxa_|std::terminate|__gnu_cxx|<unknown module>|in _start' |
        head -n "${2:-1}" |
        sed -E 's/^ *#[0-9]+ 0x[0-9a-f]+ (in )?//; s/ \(BuildId: [0-9a-f]+\)//; s/\+0x[0-9a-f]+\)/)/; s#\(/[^ ]*/#(#'
}

# "libhdf5" when the fault lies inside the HDF5 library itself (issue 14, item 1: corrupted files crash, spin in or
# over-allocate inside libhdf5 1.10, which the reader worker process contains), "ours" otherwise.
ks_fuzz_fault_owner() {
    # The frame is read into a variable first: with pipefail, grep -q ending the pipe early would read as "ours".
    local frame
    frame=$(ks_fuzz_fault_frame "$1")
    if [[ $frame =~ libhdf5|^H5 ]]; then echo libhdf5; else echo ours; fi
}

# One line for a report: its kind, the sanitizer's SUMMARY and the fault frame.
ks_fuzz_describe() {
    local log=$1
    local summary
    # Without the module paths, offsets and build ids, so that the same fault reads the same in every run.
    summary=$(ks_fuzz_report_part "$log" | grep -m1 -E '^SUMMARY: ' | sed -E 's/ \(BuildId: [0-9a-f]+\)//g; s/ \([^ ()]+\+0x[0-9a-f]+\)//g' |
        cut -c1-160)
    [ -n "$summary" ] || summary=$(ks_fuzz_report_part "$log" | grep -m1 -E 'ERROR: ' | sed -E 's/^==[0-9]+== ?//' | cut -c1-160)
    grep -q -F "$KS_FUZZ_REPLAY_MARK" "$log" && summary="process over -rss_limit_mb; replayed: $summary"
    echo "$(ks_fuzz_report_kind "$log") [$(ks_fuzz_fault_owner "$log")]: ${summary} | at $(ks_fuzz_fault_frame "$log" 3 |
        cut -c1-120 | paste -sd '<' | sed 's/</ < /g')"
}
