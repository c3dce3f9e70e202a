#!/usr/bin/env bash
# Compares numascope's strided kernels (`bandwidth --stride N`: NUMA-STREAM's strided copy,
# scale, add and triad, seed 002) with a STREAM binary YOU built with the same stride, run
# after run in alternation, and prints numascope/STREAM ratios (target
# >= 1.00). A benchmark, not a test. This script neither builds STREAM nor
# contains any of its code: make your strided STREAM outside this repository (STREAM's timed
# loops stepping `j += STRIDE` instead of `j++`) and point STREAM_STRIDED_BIN at it.
#
# Byte accounting, identical on both sides: useful bytes, the STREAM words of the elements
# actually processed (copy/scale 16 B, add/triad 24 B per element, no write-allocate). The
# STREAM rates are recomputed here from STREAM's own printed times and array size:
#   bytes = words x 8 x ceil(array size / STREAM_STRIDE), rate = bytes / time,
# so it does not matter whether the binary divided its byte counts by the stride. numascope's
# mb_per_s counts the same bytes; its DRAM estimate (lines moved) is printed beside it.
# Compared: STREAM's best iteration (Min time) with numascope's fastest repetition
# (mb_per_s.max), and STREAM's average (Avg time) with numascope's median. MB = 10^6 B.
#
# Environment:
#   STREAM_STRIDED_BIN  the strided STREAM binary (required; built with OpenMP or not)
#   STREAM_STRIDE       the stride it was built with, in 8 B elements (default 8: one element
#                       per 64 B line); numascope runs --stride with the same value
#   NUMASCOPE           numascope binary (default: target/release/numascope, then PATH)
#   RUNS                runs per tool and kernel (default 5)
#   THREADS             threads: OMP_NUM_THREADS for STREAM, --threads for numascope (default 1)
#   PAGE                numascope --page-size (default thp). STREAM's static arrays get
#                       huge pages only when THP is `always`; with `madvise` they are 4 KiB
#                       pages, and a strided walk then pays a page walk every 64 lines: use
#                       PAGE=4k to compare like with like (the header prints the THP mode)
#   MEM_NODES           a memory node for numascope --mem-nodes (remote runs); STREAM is then
#                       run under `numactl --membind` to the same node when numactl exists
#   BENCH_NICE=0        do not raise priority (own session at autogroup nice -20, nice -20)
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=benches/lib.sh
. "$root/benches/lib.sh"
boost_priority "$@"

RUNS=${RUNS:-5}
THREADS=${THREADS:-1}
STRIDE=${STREAM_STRIDE:-8}
PAGE=${PAGE:-thp}
nice=$(nice_prefix)

ns_bin=$(find_numascope "$root")
require_numascope "$ns_bin"
if ! is_runnable "${STREAM_STRIDED_BIN:-}"; then
    echo "SKIP: no strided STREAM (build STREAM with a stride yourself, outside this" \
        "repository, and set STREAM_STRIDED_BIN=/path and STREAM_STRIDE=N)"
    exit 1
fi
require_jq_python
[[ $STRIDE =~ ^[1-9][0-9]*$ ]] || {
    echo "numascope bench: STREAM_STRIDE is '$STRIDE'; give the stride in elements, e.g. 8"
    exit 2
}
[[ $THREADS =~ ^[1-9][0-9]*$ ]] || {
    echo "numascope bench: THREADS is '$THREADS'; give a thread count such as 1"
    exit 2
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tsv=${OUT_TSV:-$tmp/stride.tsv}
: >"$tsv"

cpu=$(pick_cpu)
if ((THREADS == 1)); then
    pin=(taskset -c "$cpu")
    ns_cpus=(--cpus "$cpu")
else
    pin=()
    ns_cpus=(--threads "$THREADS")
fi
membind=()
ns_mem=()
if [[ -n ${MEM_NODES:-} ]]; then
    ns_mem=(--mem-nodes "$MEM_NODES")
    if command -v numactl >/dev/null; then
        membind=(numactl --membind "$MEM_NODES")
    else
        echo "# numactl not found: STREAM runs with its memory where the kernel puts it"
    fi
fi

# One STREAM run first, to learn its array size (numascope gets arrays of the same size).
if ! OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=true "${membind[@]}" "${pin[@]}" \
    "$STREAM_STRIDED_BIN" >"$tmp/st.out" 2>&1; then
    echo "STREAM failed: $(tail -n 3 "$tmp/st.out" | tr '\n' ' ')"
    exit 1
fi
n=$(awk '/^Array size =/ { print $4; exit }' "$tmp/st.out")
[[ $n =~ ^[0-9]+$ ]] || {
    echo "numascope bench: no 'Array size = N' line in STREAM's output; is it STREAM?"
    exit 1
}

print_context
echo "# numascope: $ns_bin; STREAM: $STREAM_STRIDED_BIN (array size $n elements, stride" \
    "$STRIDE); ${nice:-normal priority}; $RUNS runs per tool and kernel; $THREADS thread(s);" \
    "numascope --page-size $PAGE" \
    "${MEM_NODES:+; memory on node $MEM_NODES}"
echo "# Both count useful bytes (STREAM words of the elements processed); STREAM's rates are" \
    "recomputed from its times: words x 8 B x ceil($n / $STRIDE) / time."

# STREAM name -> (numascope kernel, words per element = streams).
declare -A kernel=([Copy]=copy [Scale]=scale [Add]=add [Triad]=triad)
declare -A words=([Copy]=2 [Scale]=2 [Add]=3 [Triad]=3)
elements=$(((n + STRIDE - 1) / STRIDE))
ran_ns=0
failed=0
for run in $(seq 1 "$RUNS"); do
    # STREAM runs all four kernels in one process; numascope one run per kernel, in between.
    if OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=true $nice "${membind[@]}" "${pin[@]}" \
        "$STREAM_STRIDED_BIN" >"$tmp/st.out" 2>&1; then
        for f in Copy Scale Add Triad; do
            read -r avg min < <(awk -v f="$f:" '$1 == f { print $3, $4 }' "$tmp/st.out")
            [[ -n ${min:-} ]] || continue
            bytes=$((words[$f] * 8 * elements))
            printf 'stream-best\t%s\t%s\t%s\t%s\n' "${kernel[$f]}" "$THREADS" "$run" \
                "$(python3 -c "print($bytes / $min / 1e6)")" >>"$tsv"
            printf 'stream-avg\t%s\t%s\t%s\t%s\n' "${kernel[$f]}" "$THREADS" "$run" \
                "$(python3 -c "print($bytes / $avg / 1e6)")" >>"$tsv"
        done
    else
        failed=1
        echo "STREAM failed: $(tail -n 3 "$tmp/st.out" | tr '\n' ' ')"
    fi
    for f in Copy Scale Add Triad; do
        k=${kernel[$f]}
        size=$((words[$f] * 8 * n * THREADS))
        if $nice "$ns_bin" bandwidth --kernel "$k" --stride "$STRIDE" "${ns_cpus[@]}" \
            "${ns_mem[@]}" --size "$size" --page-size "$PAGE" --json >"$tmp/ns.json" 2>"$tmp/ns.err"; then
            for field in median max; do
                printf 'numascope-%s\t%s\t%s\t%s\t%s\n' "$field" "$k" "$THREADS" "$run" \
                    "$(jq -r ".results[0].mb_per_s.$field" "$tmp/ns.json")" >>"$tsv"
            done
            printf 'numascope-dram\t%s\t%s\t%s\t%s\n' "$k" "$THREADS" "$run" \
                "$(jq -r '.results[0].dram_mb_per_s_estimate.median' "$tmp/ns.json")" >>"$tsv"
            if ((run == 1)); then
                q='.results[0] | "stride \(.stride_elements), isa \(.isa),'
                q+=' \(.working_set_bytes) B, page \(.page_size), huge \(.huge_fraction),'
                q+=' on intended node \(.placement_fraction)"'
                echo "# numascope $k: $(jq -r "$q" "$tmp/ns.json")"
            fi
            ran_ns=1
        else
            failed=1
            echo "numascope bandwidth failed ($k): $(head -c 300 "$tmp/ns.err")"
        fi
    done
done

echo
echo "Strided kernels (stride $STRIDE elements = $((STRIDE * 8)) B), MB/s of useful bytes" \
    "(10^6 B/s), median over runs, ±spread = (max-min)/median; paired = median of per-run ratios:"
python3 - "$root/benches" "$tsv" <<'EOF'
import sys

sys.path.insert(0, sys.argv[1])
from summarize import cell, load, paired, ratio, stat, table

values, _ = load(sys.argv[2])
rows = []
for k in ["copy", "scale", "add", "triad"]:
    threads = sorted({t for (_tool, c, t) in values if c == k})
    for t in threads:
        g = lambda tool: stat(values.get((tool, k, t), []))
        sb, sa, nm, nx, nd = (g("stream-best"), g("stream-avg"), g("numascope-median"),
                              g("numascope-max"), g("numascope-dram"))
        rows.append([
            k, t,
            cell(sb, "{:.0f}"), cell(nx, "{:.0f}"), ratio(nx, sb),
            paired(("numascope-max", k, t), ("stream-best", k, t)),
            cell(sa, "{:.0f}"), cell(nm, "{:.0f}"), ratio(nm, sa),
            paired(("numascope-median", k, t), ("stream-avg", k, t)),
            cell(nd, "{:.0f}"),
        ])
print(table(rows, ["kernel", "threads", "STREAM best", "numascope max", "ratio", "paired",
                   "STREAM avg", "numascope median", "ratio", "paired",
                   "numascope DRAM est. (lines)"]))
EOF

if ((!ran_ns)); then
    echo "numascope bench: numascope never ran"
    exit 1
fi
exit $failed
