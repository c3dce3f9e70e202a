# Shared helpers of the comparison scripts in benches/ (sourced, not run).
#
# The scripts compare numascope with reference tools the user built; they never build
# anything. Each measurement is appended to a TSV file and summarized by summarize.py, so the
# shell only runs commands and the statistics live in one place.

# The numascope binary: $NUMASCOPE, else target/release/numascope of this checkout, else PATH.
find_numascope() {
    local root=$1
    if [[ -n ${NUMASCOPE:-} ]]; then
        echo "$NUMASCOPE"
    elif [[ -x $root/target/release/numascope ]]; then
        echo "$root/target/release/numascope"
    elif command -v numascope >/dev/null 2>&1; then
        command -v numascope
    fi
}

# True when $1 names an executable file or a command on PATH.
is_runnable() {
    [[ -n ${1:-} ]] && { [[ -x $1 && -f $1 ]] || command -v "$1" >/dev/null 2>&1; }
}

# Runs every measurement at nice -20 when allowed (root or CAP_SYS_NICE): on a shared machine
# this keeps other runnable work from taking the measuring CPU. Prints the prefix to use.
nice_prefix() {
    if [[ ${BENCH_NICE:-1} == 1 ]] && nice -n -20 true 2>/dev/null; then
        echo "nice -n -20"
    fi
}

# The first CPU this process may run on (Cpus_allowed_list), unless $CPU is set.
pick_cpu() {
    if [[ -n ${CPU:-} ]]; then
        echo "$CPU"
        return
    fi
    awk '/^Cpus_allowed_list/ { split($2, a, /[-,]/); print a[1] }' /proc/self/status
}

# Converts 256MiB / 1GiB / 64KiB / plain bytes into bytes. Only binary units: the latency
# sizes are powers of two as multichase and lat_mem_rd take them.
size_bytes() {
    local t=$1
    case $t in
    *KiB) echo $((${t%KiB} * 1024)) ;;
    *MiB) echo $((${t%MiB} * 1024 * 1024)) ;;
    *GiB) echo $((${t%GiB} * 1024 * 1024 * 1024)) ;;
    *[!0-9]* | "") return 1 ;;
    *) echo "$t" ;;
    esac
}

# run_sampled OUTFILE CMD...: runs CMD (stdout and stderr to OUTFILE) and, once a second
# while it runs, reads its AnonHugePages (kB) from /proc/PID/smaps_rollup; the largest value
# seen goes to $SAMPLED_AHP_KB ("?" when none could be read). Returns CMD's exit status.
# CMD must exec its way down (env, nice, taskset do) so that PID stays the measuring process.
# The sampler sleeps between reads, so it costs the measurement next to nothing.
run_sampled() {
    local out=$1
    shift
    "$@" >"$out" 2>&1 &
    local pid=$! kb best=""
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        kb=$(awk '/^AnonHugePages/ { print $2 }' "/proc/$pid/smaps_rollup" 2>/dev/null)
        if [[ -n $kb ]] && { [[ -z $best ]] || ((kb > best)); }; then best=$kb; fi
    done
    SAMPLED_AHP_KB=${best:-?}
    wait "$pid"
}

# Prints the load average and the CPU model: the context every figure needs on a shared box.
print_context() {
    echo "# host: $(uname -r), $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)," \
        "$(nproc) CPUs online"
    echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" \
        "(other work on the machine inflates every figure; ratios come from interleaved runs)"
    echo "# THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
}
