#!/usr/bin/env bash
# Compares numascope's read, write and copy kernels with likwid-bench's load_avx, store_avx
# and copy_avx, and its write-nt and copy-nt with store_mem_avx and copy_mem_avx, at cache-resident working sets (16 KiB, 256 KiB and 4 MiB for one thread by
# default), run after run in alternation, and prints numascope/likwid ratios of medians
# (target >= 1.00). A benchmark, not a test.
#
# Both tools get the same byte count: likwid-bench -w S0:<bytes>B:<threads> and numascope
# --size <bytes> --threads <threads> both mean all streams of all threads together, and both
# count application bytes (loads + stores, no write-allocate); likwid's MByte/s is compared
# with numascope's mb_per_s.median. MB = 10^6 bytes. Checked kernel by kernel: likwid's
# store_avx counts the 8 B it stores per element and nothing for the read-for-ownership, as
# numascope's write does (its write_allocate bytes go only into the DRAM estimate); load_avx
# and read count 8 B loaded, copy_avx and copy 16 B (8 loaded + 8 stored); the non-temporal
# pairs count the same (store_mem_avx / write-nt 8 B, copy_mem_avx / copy-nt 16 B).
#
# Each run also asks numascope for its core-clock estimate (a timed chain of dependent adds,
# `numascope latency --size 16KiB --json`, field core_hz_estimate), and the table prints both
# tools' bytes per core cycle per thread: two tools that land on the same figure are at the
# same ceiling of the core (at 16 KiB, its L1 load or store ports), whatever their ratio says.
#
# At these sizes one pass over an array is a few hundred cycles, so what a tool does between
# passes shows: numascope sweeps a cache-resident array many times inside one kernel call
# (harness.rs, SMALL_ELEMENTS_PER_POLL), polling its stop flag once per 8 MiB per stream.
#
# Environment (all optional):
#   NUMASCOPE     numascope binary (default: target/release/numascope, then PATH)
#   LIKWID_BENCH  likwid-bench binary (default: likwid-bench from PATH)
#   RUNS          runs per configuration (default 5)
#   SIZES         working sets in bytes (default "16384 262144 4194304")
#   THREADS       threads, on socket S0 (default 1)
#   KERNELS       likwid kernels to compare (default "load_avx store_avx copy_avx
#                 store_mem_avx copy_mem_avx"; the last two against write-nt and copy-nt)
#   BENCH_NICE=0  do not raise priority (own session at autogroup nice -20, nice -20)
# Nothing here builds a reference tool; see benches/README.md.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=benches/lib.sh
. "$root/benches/lib.sh"
boost_priority "$@"

RUNS=${RUNS:-5}
SIZES=${SIZES:-"16384 262144 4194304"}
THREADS=${THREADS:-1}
LIKWID_BENCH=${LIKWID_BENCH:-likwid-bench}
nice=$(nice_prefix)

# likwid-bench kernel -> numascope kernel; the *_mem_avx ones store non-temporally (vmovntpd,
# never a fence), as write-nt and copy-nt do (one sfence per kernel call, every 8 MiB per
# stream: a fence per pass cost 14-18 %, see benches/README.md).
declare -A map=([load_avx]=read [store_avx]=write [copy_avx]=copy
    [store_mem_avx]=write-nt [copy_mem_avx]=copy-nt)
kernels=${KERNELS:-"load_avx store_avx copy_avx store_mem_avx copy_mem_avx"}
for k in $kernels; do
    [[ -n ${map[$k]:-} ]] || {
        echo "numascope bench: KERNELS holds '$k'; choose from ${!map[*]}"
        exit 2
    }
done

ns_bin=$(find_numascope "$root")
require_numascope "$ns_bin"
if ! is_runnable "$LIKWID_BENCH"; then
    echo "SKIP: likwid-bench (apt-get install likwid, or set LIKWID_BENCH=/path)"
    exit 1
fi
require_jq_python
for s in $SIZES; do
    [[ $s =~ ^[0-9]+$ ]] || {
        echo "numascope bench: SIZES holds '$s'; give plain byte counts such as 16384"
        exit 2
    }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tsv=${OUT_TSV:-$tmp/cache.tsv}
: >"$tsv"

print_context
echo "# numascope: $ns_bin; ${nice:-normal priority}; $RUNS runs per configuration;" \
    "$THREADS thread(s); sizes (bytes, all streams of all threads): $SIZES"
echo "# Compared: likwid's MByte/s (its timed block, an average) with numascope's" \
    "mb_per_s.median (median of 6 or more repetitions of 200 ms); both count loads + stores only."

ran_ns=0
ran_lk=0
failed=0
for run in $(seq 1 "$RUNS"); do
    hz=$($nice "$ns_bin" latency --size 16KiB --cpu "$(pick_cpu)" --json 2>/dev/null |
        jq -r '[.. | objects | select(has("core_hz_estimate")) | .core_hz_estimate][0] // empty')
    [[ -n $hz && $hz != null ]] && printf 'clock\thz\t1\t%s\t%s\n' "$run" "$hz" >>"$tsv"
    for s in $SIZES; do
        for k in $kernels; do
            case_name="${map[$k]}@$s"
            if $nice "$LIKWID_BENCH" -t "$k" -w "S0:${s}B:$THREADS" >"$tmp/lk.out" 2>&1; then
                v=$(awk -F: '/^MByte\/s/ { gsub(/[ \t]/, "", $2); print $2 }' "$tmp/lk.out")
                if [[ -n $v ]]; then
                    printf 'likwid\t%s\t%s\t%s\t%s\n' "$case_name" "$THREADS" "$run" "$v" >>"$tsv"
                    ran_lk=1
                fi
            else
                failed=1
                echo "likwid-bench $k failed: $(tail -n 3 "$tmp/lk.out" | tr '\n' ' ')"
            fi
            if $nice "$ns_bin" bandwidth --kernel "${map[$k]}" --threads "$THREADS" --size "$s" \
                --json >"$tmp/ns.json" 2>"$tmp/ns.err"; then
                printf 'numascope\t%s\t%s\t%s\t%s\n' "$case_name" "$THREADS" "$run" \
                    "$(jq -r '.results[0].mb_per_s.median' "$tmp/ns.json")" >>"$tsv"
                if ((run == 1)); then
                    echo "# numascope ${map[$k]} at $s B: fits in" \
                        "$(jq -r '.results[0].cache_level // "DRAM"' "$tmp/ns.json")"
                fi
                ran_ns=1
            else
                failed=1
                echo "numascope bandwidth failed (${map[$k]}, $s B): $(head -c 300 "$tmp/ns.err")"
            fi
        done
    done
done

echo
echo "Bandwidth at cache sizes, MB/s (10^6 B/s), median over runs, ±spread = (max-min)/median;" \
    "ratio = numascope/likwid of medians; paired = median of per-run ratios:"
python3 - "$root/benches" "$tsv" <<'EOF'
import sys

sys.path.insert(0, sys.argv[1])
import statistics

from summarize import cell, fmt_size, load, paired, ratio, stat, table, verdict

values, _ = load(sys.argv[2])
cases = sorted({(c, v) for (t, c, v) in values if t != "clock"},
               key=lambda x: (int(x[0].split("@")[1]), x[0]))
hz = values.get(("clock", "hz", "1"), [])
hz_med = statistics.median(hz) if hz else None
if hz_med:
    print(f"core clock (numascope's timed add chain, once per run): median {hz_med / 1e9:.2f} GHz,"
          f" {min(hz) / 1e9:.2f}-{max(hz) / 1e9:.2f} over {len(hz)} runs; B/cycle = MB/s x 10^6"
          " / threads / that median")


def per_cycle(s, threads):
    return "-" if s is None or not hz_med else f"{s[0] * 1e6 / int(threads) / hz_med:.1f}"


rows = []
for case, threads in cases:
    kernel, size = case.split("@")
    lk = stat(values.get(("likwid", case, threads), []))
    ns = stat(values.get(("numascope", case, threads), []))
    rows.append(
        [
            kernel,
            fmt_size(size),
            threads,
            cell(lk, "{:.0f}"),
            cell(ns, "{:.0f}"),
            f"{per_cycle(lk, threads)} / {per_cycle(ns, threads)}",
            ratio(ns, lk),
            paired(("numascope", case, threads), ("likwid", case, threads)),
            verdict(("numascope", case, threads), ("likwid", case, threads)),
        ]
    )
print(table(rows, ["kernel", "working set", "threads", "likwid MB/s", "numascope MB/s",
                   "B/cycle lk / ns", "ratio", "paired", "target"]))
EOF

if ((!ran_ns || !ran_lk)); then
    echo "numascope bench: nothing compared (numascope ran: $ran_ns, likwid ran: $ran_lk)"
    exit 1
fi
exit $failed
