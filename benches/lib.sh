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

# Exits 1 with a SKIP line when $1 is not a runnable numascope binary.
require_numascope() {
    if ! is_runnable "$1"; then
        echo "SKIP: numascope binary not found (cargo build --release, or set NUMASCOPE=/path)"
        exit 1
    fi
}

# Exits 1 with a SKIP line when jq or python3 (reading the JSON, summarizing) is missing.
require_jq_python() {
    if ! command -v jq >/dev/null || ! command -v python3 >/dev/null; then
        echo "SKIP: jq and python3 are needed to read numascope's JSON and summarize"
        exit 1
    fi
}

# Runs every measurement at nice -20 when allowed (root or CAP_SYS_NICE): on a shared machine
# this keeps other runnable work from taking the measuring CPU. Prints the prefix to use.
nice_prefix() {
    if [[ ${BENCH_NICE:-1} == 1 ]] && nice -n -20 true 2>/dev/null; then
        echo "nice -n -20"
    fi
}

# With scheduler autogroups on (/proc/sys/kernel/sched_autogroup_enabled = 1, the default on
# many distributions), nice only ranks tasks inside one session's group: every other session
# still gets an equal share of the CPU, so a nice -20 measurement next to three busy sessions
# runs a quarter of the time (measured here: 0.5 instead of 3 GHz on a dependent-add chain).
# boost_priority "$@" re-executes the calling script in a session of its own and raises that
# session's autogroup to nice -20. Call it first thing; BENCH_NICE=0 turns it off.
boost_priority() {
    [[ ${BENCH_NICE:-1} == 1 ]] || return 0
    if [[ -z ${BENCH_OWN_SESSION:-} ]] &&
        [[ $(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null) == 1 ]] &&
        command -v setsid >/dev/null 2>&1; then
        BENCH_OWN_SESSION=1 exec setsid -w bash "$0" "$@"
    fi
    if [[ -n ${BENCH_OWN_SESSION:-} ]]; then
        if echo -20 >/proc/self/autogroup 2>/dev/null; then
            BENCH_PRIORITY="own session, autogroup nice -20"
        else
            BENCH_PRIORITY="own session, autogroup nice unchanged (no permission)"
        fi
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
# while it runs, sums the AnonHugePages (kB) of /proc/PID/smaps_rollup over the process and
# its children (lat_mem_rd measures in a forked child); the largest sum seen goes to
# $SAMPLED_AHP_KB ("?" when none could be read). Returns CMD's exit status.
# CMD must exec its way down (env, nice, taskset do) so that PID stays the measuring process.
# The sampler sleeps between reads, so it costs the measurement next to nothing.
run_sampled() {
    local out=$1
    shift
    "$@" >"$out" 2>&1 &
    local pid=$! kb best="" files
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        files=("/proc/$pid/smaps_rollup")
        for c in $(pgrep -P "$pid"); do files+=("/proc/$c/smaps_rollup"); done
        kb=$(cat "${files[@]}" 2>/dev/null | awk '/^AnonHugePages/ { s += $2; n++ } END { if (n) print s }')
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
    echo "# THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null);" \
        "priority: ${BENCH_PRIORITY:-unchanged} (BENCH_NICE=0 leaves it)"
}
