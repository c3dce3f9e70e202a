#!/usr/bin/env bash
# The run's headline local idle latency against the standalone `latency` command and
# multichase, and the agreement of every place of the run that reports one
# quantity under the same conditions. A benchmark, not a test.
#
# Each round runs, in an order rotated from round to round (A B C, B C A, C A B, ...):
#   run:        numascope run --quick (its reference local idle latency: random walk over
#               256 MiB, or the run's 8x LLC, of 4 KiB pages on the home node's first CPU)
#   standalone: numascope latency --mode random --size <the reference's working set>
#               --page-size 4k --cpu <that CPU>
#   multichase: taskset -c <that CPU> multichase -m <size> -s 64 -T <size> -n 9 -v (64-byte
#               stride, TLB locality = the whole buffer: fully random; 4 KiB pages as
#               transparent huge pages are off for it unless -H; nine 0.5 s samples after
#               the one it drops)
# What is compared: the run's headline is the median of its steady-state blocks (each the
# median of 2 ms samples, spread over the run), and the standalone command's is the median of
# its blocks (spread over its second or so; docs/schema/latency.md, "Sizes in blocks"); multichase
# prints the best (minimum) of its samples, which sits below any median by the spread of its
# samples. So the multichase figure compared is the median of its per-sample rows (-v), with
# the same order-statistic interval numascope uses; its printed best is shown beside it.
# The script prints per round the reference's figure and the spread of its repetitions, the
# loaded curve's no-load point, scenario (a)'s latency, the standalone's and multichase's, each
# with its 95 % interval; then the median of the paired ratios run/standalone and
# run/multichase, each pooled place's own median against the reference's repetitions (below 1
# on a VM: docs/METHODOLOGY.md, "Physical pages"), the headline's interval width against the
# standalone's, the per-pair overlap
# counts (reference vs loaded idle, scenario (a), standalone; reference bandwidth vs scenario
# (d)), and per run the places the run judged (results.json `warnings` naming a disagreement,
# `reference ... DISTURBED`).
#
# Usage: benches/headline-latency-vs-multichase.sh [MULTICHASE_BINARY]
# Environment (all optional):
#   MULTICHASE   multichase binary (or the first argument); built by you from
#                google/multichase outside this repository. Without it the multichase
#                column is skipped.
#   NUMASCOPE    numascope binary (default: target/release/numascope, then PATH)
#   ROUNDS       alternating rounds (default 5)
#   SIZE         the standalone's and multichase's working set (default: the working set of
#                the first round's run, read from its results.json, since the run goes first in
#                round 1; the run sizes it 8x the largest L3 capped at a quarter of free memory,
#                so a fixed size compares different walks on a machine with a large L3: on a
#                300 MiB L3 a 256 MiB walk mostly hits the cache; the summary warns when the
#                runs' working sets differ)
#   BUSY=1       run a busy loop pinned to another CPU (`taskset -c <other> sh -c 'while :;
#                do :; done'`) for the whole benchmark: the figure must then stay within its
#                target or be marked disturbed, never drift silently
#   BENCH_NICE=0 do not raise priority (own session at autogroup nice -20, nice -20)
#   KEEP=DIR     keep each round's results.json (DIR/run-<round>.json) and raw outputs
# Nothing here builds a reference tool; see benches/README.md.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=benches/lib.sh
. "$root/benches/lib.sh"
boost_priority "$@"

MULTICHASE=${1:-${MULTICHASE:-}}
ROUNDS=${ROUNDS:-5}
nice=$(nice_prefix)
ns_bin=$(find_numascope "$root")
require_numascope "$ns_bin"
require_jq_python
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || {
    echo "numascope bench: ROUNDS is '$ROUNDS'; give a positive count such as 5"
    exit 2
}
have_mc=0
if is_runnable "$MULTICHASE"; then have_mc=1; else
    echo "SKIP: multichase (give its path as the argument or MULTICHASE=/path; build google/multichase yourself)"
fi

tmp=$(mktemp -d)
busy_pid=
cleanup() {
    [[ -n $busy_pid ]] && kill "$busy_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# The reference's CPU (the home node's first usable CPU: the first allowed one on a one-node
# machine) and working set (8x the last-level cache: 256 MiB for a 32 MiB L3; the summary
# checks it against the run's own record).
cpu=$(pick_cpu)
size_from_run=1
size=0
if [[ -n ${SIZE:-} ]]; then
    size_from_run=0
    size=$(size_bytes "$SIZE") || {
        echo "numascope bench: SIZE '${SIZE}' is not NNNKiB/MiB/GiB or bytes"
        exit 2
    }
fi

if [[ ${BUSY:-0} == 1 ]]; then
    other=$(awk -v c="$cpu" '/^Cpus_allowed_list/ { n = split($2, a, /,/); for (i = 1; i <= n; i++) { split(a[i], r, /-/); lo = r[1]; hi = (r[2] == "" ? r[1] : r[2]); for (x = lo; x <= hi; x++) if (x != c) { print x; exit } } }' /proc/self/status)
    if [[ -z $other ]]; then
        echo "numascope bench: BUSY=1 needs a second allowed CPU"
        exit 2
    fi
    taskset -c "$other" sh -c 'while :; do :; done' &
    busy_pid=$!
    echo "# busy loop pinned to CPU $other (pid $busy_pid) for the whole benchmark"
fi

print_context
if ((size_from_run)); then what="the first run's working set"; else what="$((size / 1048576)) MiB"; fi
echo "# numascope: $ns_bin; ${nice:-normal priority}; $ROUNDS alternating rounds;" \
    "CPU $cpu; working set $what, 4 KiB pages"

[[ -n ${KEEP:-} ]] && mkdir -p "$KEEP"
tsv=$tmp/headline.tsv
: >"$tsv"
failed=0
run_one() {
    local what=$1 round=$2
    case $what in
    run)
        rm -rf "$tmp/run"
        if $nice "$ns_bin" run --quick --output "$tmp/run" --summary-line >"$tmp/run.out" 2>&1; then
            python3 "$root/benches/headline_places.py" run "$tmp/run/results.json" "$round" >>"$tsv"
            if ((size_from_run)); then
                size=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["reference"]["latency"]["working_set_bytes"])' "$tmp/run/results.json") || size=0
                size_from_run=0
                echo "# working set from round $round's run: $((size / 1048576)) MiB"
            fi
            [[ -n ${KEEP:-} ]] && cp "$tmp/run/results.json" "$KEEP/run-$round.json"
        else
            failed=1
            echo "numascope run --quick failed: $(tail -c 300 "$tmp/run.out")"
        fi
        ;;
    standalone)
        if ((size == 0)); then
            failed=1
            echo "numascope bench: no working set (the first run failed and SIZE is unset)"
            return 0
        fi
        if $nice "$ns_bin" latency --mode random --size "$size" --page-size 4k --cpu "$cpu" \
            --json >"$tmp/ns.json" 2>"$tmp/ns.err"; then
            python3 "$root/benches/headline_places.py" standalone "$tmp/ns.json" "$round" >>"$tsv"
            [[ -n ${KEEP:-} ]] && cp "$tmp/ns.json" "$KEEP/standalone-$round.json"
        else
            failed=1
            echo "numascope latency failed: $(head -c 300 "$tmp/ns.err")"
        fi
        ;;
    multichase)
        ((have_mc && size > 0)) || return 0
        if $nice taskset -c "$cpu" "$MULTICHASE" -m "$size" -s 64 -T "$size" -n 9 -v \
            >"$tmp/mc.out" 2>&1; then
            python3 "$root/benches/headline_places.py" multichase "$tmp/mc.out" "$round" >>"$tsv"
            [[ -n ${KEEP:-} ]] && cp "$tmp/mc.out" "$KEEP/multichase-$round.txt"
        else
            echo "multichase failed: $(tail -c 300 "$tmp/mc.out")"
        fi
        ;;
    esac
}

order=(run standalone multichase)
for round in $(seq 1 "$ROUNDS"); do
    k=$(((round - 1) % 3))
    for j in 0 1 2; do
        run_one "${order[$(((k + j) % 3))]}" "$round"
    done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
python3 "$root/benches/headline_places.py" summarize "$tsv"
exit $failed
