#!/usr/bin/env bash
# Compares numascope's bandwidth kernels with Debian's likwid-bench and with STREAM on this
# machine, interleaved run by run, and prints numascope/reference ratios of medians with the
# byte-counting conventions aligned. A benchmark, not a test.
#
# Environment (all optional):
#   NUMASCOPE     numascope binary (default: target/release/numascope, then PATH)
#   LIKWID_BENCH  likwid-bench binary (default: likwid-bench from PATH)
#   STREAM_BIN    a STREAM binary you built with OpenMP (jeffhammond/STREAM stream.c)
#   RUNS          runs per configuration (default 5)
#   THREADS       thread counts (default "1 2")
#   BW_SIZE       working set given to both tools (default 1GB = 10^9 bytes)
#   BW_PAGE       numascope's --page-size (default: what the references get from malloc,
#                 i.e. thp when /sys/kernel/mm/transparent_hugepage/enabled is [always], else
#                 4k; in a VM non-temporal stores were 10 % slower on THP than on 4k pages)
#   KERNELS       likwid-bench kernels (default: load_avx store_avx store_mem_avx copy_avx
#                 copy_mem_avx triad_avx)
#   BENCH_NICE=0  do not raise priority (own session at autogroup nice -20, nice -20)
# Nothing here builds a reference tool; see benches/README.md.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=benches/lib.sh
. "$root/benches/lib.sh"
boost_priority "$@"

RUNS=${RUNS:-5}
THREADS=${THREADS:-"1 2"}
BW_SIZE=${BW_SIZE:-1GB}
KERNELS=${KERNELS:-"load_avx store_avx store_mem_avx copy_avx copy_mem_avx triad_avx"}
LIKWID_BENCH=${LIKWID_BENCH:-likwid-bench}
thp_mode=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
if [[ $thp_mode == always ]]; then BW_PAGE=${BW_PAGE:-thp}; else BW_PAGE=${BW_PAGE:-4k}; fi
nice=$(nice_prefix)

# likwid-bench kernel -> numascope kernel (the same mapping is in summarize.py).
declare -A map=([load_avx]=read [store_avx]=write [store_mem_avx]=write-nt [copy_avx]=copy
    [copy_mem_avx]=copy-nt [triad_avx]=triad)

ns_bin=$(find_numascope "$root")
require_numascope "$ns_bin"
have_lk=0
have_st=0
if is_runnable "$LIKWID_BENCH"; then have_lk=1; else
    echo "SKIP: likwid-bench (apt-get install likwid, or set LIKWID_BENCH=/path)"
fi
if is_runnable "${STREAM_BIN:-}"; then have_st=1; else
    echo "SKIP: STREAM (set STREAM_BIN=/path/to/stream built with -fopenmp; build it yourself)"
fi
require_jq_python
for k in $KERNELS; do
    [[ -n ${map[$k]:-} ]] || {
        echo "numascope bench: unknown likwid kernel '$k'; known: ${!map[*]}"
        exit 2
    }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tsv=${OUT_TSV:-$tmp/bandwidth.tsv}
: >"$tsv"

print_context
echo "# numascope: $ns_bin; ${nice:-normal priority}; $RUNS runs per configuration;" \
    "--size $BW_SIZE --page-size $BW_PAGE for every numascope run" \
    "(THP mode [$thp_mode]: the references' malloc gets $BW_PAGE pages; checked below)"
echo "# MB = 10^6 bytes everywhere."
echo "# Byte conventions: likwid-bench's MByte/s counts the bytes its kernel loads and stores" \
    "(the 'Data volume' it prints), no write-allocate traffic;"
echo "#   STREAM counts copy/scale 2 words, add/triad 3 words per element, no write-allocate;"
echo "#   so both are compared with numascope's application-byte figure mb_per_s:"
echo "#   likwid's one timed block of iterations (an average) against mb_per_s.median;"
echo "#   STREAM's 'Best Rate' (its fastest of NTIMES-1 iterations) against mb_per_s.max."
echo "#   numascope's dram_mb_per_s_estimate (write-allocate added for normal stores) is" \
    "listed apart, for information."
echo "# likwid -w S0:$BW_SIZE:N splits the working set over all streams and threads;" \
    "STREAM uses its compiled array size (see its header below)."
echo "# likwid triad_avx is A=B*C+D (3 loads + 1 store per element); numascope's triad is" \
    "STREAM's a=b+s*c (2 loads + 1 store): same byte convention, different stream count."

ns_run() { # kernel threads run -> appends to tsv
    local k=$1 t=$2 run=$3
    if $nice "$ns_bin" bandwidth --kernel "$k" --threads "$t" --size "$BW_SIZE" \
        --page-size "$BW_PAGE" --json >"$tmp/ns.json" 2>"$tmp/ns.err"; then
        printf 'numascope\t%s\t%s\t%s\t%s\n' "$k" "$t" "$run" \
            "$(jq -r '.results[0].mb_per_s.median' "$tmp/ns.json")" >>"$tsv"
        printf 'numascope-max\t%s\t%s\t%s\t%s\n' "$k" "$t" "$run" \
            "$(jq -r '.results[0].mb_per_s.max' "$tmp/ns.json")" >>"$tsv"
        printf 'numascope-dram\t%s\t%s\t%s\t%s\n' "$k" "$t" "$run" \
            "$(jq -r '.results[0].dram_mb_per_s_estimate // empty' "$tmp/ns.json")" >>"$tsv"
        ran_ns=1
    else
        failed_ns=1
        echo "numascope bandwidth failed ($k, $t threads): $(head -c 300 "$tmp/ns.err")"
    fi
}

ran_ref=0
ran_ns=0
failed_ns=0
stream_header_shown=0
for run in $(seq 1 "$RUNS"); do
    for t in $THREADS; do
        for k in $KERNELS; do
            if ((have_lk)); then
                if run_sampled "$tmp/lk.out" $nice "$LIKWID_BENCH" -t "$k" -w "S0:$BW_SIZE:$t"; then
                    v=$(awk -F: '/^MByte\/s/ { gsub(/[ \t]/, "", $2); print $2 }' "$tmp/lk.out")
                    if [[ -n $v ]]; then
                        printf 'likwid\t%s\t%s\t%s\t%s\n' "$k" "$t" "$run" "$v" >>"$tsv"
                        ran_ref=1
                    fi
                    if ((run == 1)); then
                        echo "# likwid $k threads=$t:" \
                            "$(grep -E '^(Data volume|Load bytes per element|Store bytes per elem)' \
                                "$tmp/lk.out" | tr -s '\t' ' ' | paste -sd';');" \
                            "AnonHugePages seen: ${SAMPLED_AHP_KB} kB"
                    fi
                else
                    echo "likwid-bench $k failed: $(tail -n 3 "$tmp/lk.out" | tr '\n' ' ')"
                fi
            fi
            ns_run "${map[$k]}" "$t" "$run"
        done
        if ((have_st)); then
            if OMP_NUM_THREADS=$t OMP_PROC_BIND=spread $nice "$STREAM_BIN" >"$tmp/st.out" 2>&1; then
                if ((!stream_header_shown)); then
                    echo "# STREAM: $(grep -E '^(Array size|Memory per array)' "$tmp/st.out" |
                        paste -sd';')"
                    stream_header_shown=1
                fi
                for sk in Copy Scale Add Triad; do
                    v=$(awk -v k="$sk:" '$1 == k { print $2 }' "$tmp/st.out")
                    [[ -n $v ]] && printf 'stream\t%s\t%s\t%s\t%s\n' \
                        "${sk,,}" "$t" "$run" "$v" >>"$tsv" && ran_ref=1
                done
            else
                echo "STREAM failed: $(tail -n 3 "$tmp/st.out" | tr '\n' ' ')"
            fi
            for sk in copy scale add triad; do
                ns_run "$sk" "$t" "$run"
            done
        fi
    done
done

echo
echo "Bandwidth, MB/s (10^6 B/s), median over runs, ±spread = (max-min)/median;" \
    "ratio = numascope/reference of medians:"
python3 "$root/benches/summarize.py" bandwidth "$tsv"

if ((!ran_ns || !ran_ref)); then
    echo "numascope bench: nothing compared (numascope ran: $ran_ns, a reference ran: $ran_ref)"
    exit 1
fi
exit $failed_ns
