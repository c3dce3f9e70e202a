#!/usr/bin/env bash
# Compares numascope's peak all-read bandwidth on all CPUs of socket 0 (bandwidth --peak
# --mix read, the run with every thread) with likwid-bench's load_avx on the same CPUs, at a
# DRAM-sized working set, run after run in alternation, and prints the numascope/likwid ratio
# of medians (target >= 1.00). A benchmark, not a test.
#
# Both tools get the same byte count: likwid-bench -w S0:<bytes>B:<threads> and numascope
# --size <bytes> both mean all threads' arrays together, and both count the bytes loaded;
# likwid's MByte/s is compared with numascope's mb_per_s.median of the all-CPU read run.
# numascope's threads are node 0's usable CPUs (one per core first); likwid's are the first
# <threads> of S0. MB = 10^6 bytes.
#
# Environment (all optional):
#   NUMASCOPE     numascope binary (default: target/release/numascope, then PATH)
#   LIKWID_BENCH  likwid-bench binary (default: likwid-bench from PATH)
#   RUNS          runs per tool (default 5)
#   SIZE          working set in bytes, all threads together (default 1073741824: 1 GiB)
#   BENCH_NICE=0  do not raise priority (own session at autogroup nice -20, nice -20)
# Nothing here builds a reference tool; see benches/README.md.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=benches/lib.sh
. "$root/benches/lib.sh"
boost_priority "$@"

RUNS=${RUNS:-5}
SIZE=${SIZE:-1073741824}
LIKWID_BENCH=${LIKWID_BENCH:-likwid-bench}
nice=$(nice_prefix)

ns_bin=$(find_numascope "$root")
require_numascope "$ns_bin"
if ! is_runnable "$LIKWID_BENCH"; then
    echo "SKIP: likwid-bench (apt-get install likwid, or set LIKWID_BENCH=/path)"
    exit 1
fi
require_jq_python
[[ $SIZE =~ ^[0-9]+$ ]] || {
    echo "numascope bench: SIZE holds '$SIZE'; give a plain byte count such as 1073741824"
    exit 2
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tsv=${OUT_TSV:-$tmp/peak.tsv}
: >"$tsv"

# All usable CPUs of node 0 (what --peak --cpu-nodes 0 runs at full count).
threads=$("$ns_bin" topo --json 2>/dev/null |
    jq '[.cpus[] | select(.node == 0 and .online and .allowed)] | length')
if ! [[ $threads =~ ^[1-9][0-9]*$ ]]; then
    echo "numascope bench: could not count node 0's usable CPUs from numascope topo --json"
    exit 1
fi

print_context
echo "# numascope: $ns_bin; ${nice:-normal priority}; $RUNS runs per tool; $threads thread(s)" \
    "(all of node 0 / S0); working set $SIZE B, all threads together"
echo "# Compared: likwid's MByte/s (load_avx, its timed block, an average) with numascope's" \
    "peak read mb_per_s.median at $threads threads (median of 6 or more repetitions of 200 ms)."

ran_ns=0
ran_lk=0
failed=0
case_name="read@$SIZE"
for run in $(seq 1 "$RUNS"); do
    if $nice "$LIKWID_BENCH" -t load_avx -w "S0:${SIZE}B:$threads" >"$tmp/lk.out" 2>&1; then
        v=$(awk -F: '/^MByte\/s/ { gsub(/[ \t]/, "", $2); print $2 }' "$tmp/lk.out")
        if [[ -n $v ]]; then
            printf 'likwid\t%s\t%s\t%s\t%s\n' "$case_name" "$threads" "$run" "$v" >>"$tsv"
            ran_lk=1
        fi
    else
        failed=1
        echo "likwid-bench load_avx failed: $(tail -n 3 "$tmp/lk.out" | tr '\n' ' ')"
    fi
    if $nice "$ns_bin" bandwidth --peak --mix read --cpu-nodes 0 --size "$SIZE" \
        --json >"$tmp/ns.json" 2>"$tmp/ns.err"; then
        v=$(jq -r --argjson t "$threads" \
            '[.peak.runs[] | select(.mix == "read" and .threads == $t and .level == "node")][0].mb_per_s.median' \
            "$tmp/ns.json")
        if [[ $v != null && -n $v ]]; then
            printf 'numascope\t%s\t%s\t%s\t%s\n' "$case_name" "$threads" "$run" "$v" >>"$tsv"
            ran_ns=1
        fi
        if ((run == 1)); then
            echo "# numascope read code: $(jq -r '.peak.runs[0].code' "$tmp/ns.json");" \
                "disturbed runs: $(jq '[.peak.runs[] | select(.quality.disturbed)] | length' "$tmp/ns.json")"
        fi
    else
        failed=1
        echo "numascope bandwidth --peak failed: $(head -c 300 "$tmp/ns.err")"
    fi
done

echo
echo "Peak all-read bandwidth, MB/s (10^6 B/s), median over runs, ±spread = (max-min)/median;" \
    "ratio = numascope/likwid of medians; paired = median of per-run ratios:"
python3 - "$root/benches" "$tsv" <<'PY'
import sys

sys.path.insert(0, sys.argv[1])
from summarize import cell, fmt_size, load, paired, ratio, stat, table, verdict

values, _ = load(sys.argv[2])
rows = []
for case, threads in sorted({(c, v) for (_t, c, v) in values}):
    _kernel, size = case.split("@")
    lk = stat(values.get(("likwid", case, threads), []))
    ns = stat(values.get(("numascope", case, threads), []))
    rows.append(
        [
            "read (load_avx)",
            fmt_size(size),
            threads,
            cell(lk, "{:.0f}"),
            cell(ns, "{:.0f}"),
            ratio(ns, lk),
            paired(("numascope", case, threads), ("likwid", case, threads)),
            verdict(("numascope", case, threads), ("likwid", case, threads)),
        ]
    )
print(table(rows, ["kernel", "working set", "threads", "likwid MB/s", "numascope MB/s",
                   "ratio", "paired", "target"]))
PY

if ((!ran_ns || !ran_lk)); then
    echo "numascope bench: nothing compared (numascope ran: $ran_ns, likwid ran: $ran_lk)"
    exit 1
fi
exit $failed
