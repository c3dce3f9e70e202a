#!/usr/bin/env bash
# Compares numascope's random pointer-chasing latency with google/multichase and lmbench's
# lat_mem_rd on this machine, interleaved run by run so that both see the same machine state,
# and prints the ratios. A benchmark, not a test.
#
# Environment (all optional):
#   NUMASCOPE   numascope binary (default: target/release/numascope, then PATH)
#   MULTICHASE  path to a multichase binary you built (google/multichase)
#   LAT_MEM_RD  path to an lmbench lat_mem_rd binary you built
#   RUNS        runs per configuration (default 5)
#   SIZES       working sets (default "256MiB 1GiB"; binary units, whole MiB)
#   PAGES       page sizes (default "4k thp")
#   CPU         CPU to pin every tool to (default: the first allowed CPU)
#   LAT_MEM_RD_N  lat_mem_rd -N repetitions per size (default 3; lmbench's own default is 11)
#   SWEEP=0     skip the numascope --sweep cache plateaus
#   BENCH_NICE=0  do not raise priority (own session at autogroup nice -20, nice -20)
# Nothing here builds a reference tool; see benches/README.md.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=benches/lib.sh
. "$root/benches/lib.sh"
boost_priority "$@"

RUNS=${RUNS:-5}
SIZES=${SIZES:-"256MiB 1GiB"}
PAGES=${PAGES:-"4k thp"}
LAT_MEM_RD_N=${LAT_MEM_RD_N:-3}
cpu=$(pick_cpu)
nice=$(nice_prefix)

ns_bin=$(find_numascope "$root")
require_numascope "$ns_bin"
have_mc=0
have_lm=0
if is_runnable "${MULTICHASE:-}"; then have_mc=1; else
    echo "SKIP: multichase (set MULTICHASE=/path/to/multichase; build google/multichase yourself)"
fi
if is_runnable "${LAT_MEM_RD:-}"; then have_lm=1; else
    echo "SKIP: lat_mem_rd (set LAT_MEM_RD=/path/to/lat_mem_rd; build lmbench yourself)"
fi
require_jq_python

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tsv=${OUT_TSV:-$tmp/latency.tsv}
: >"$tsv"

print_context
echo "# numascope: $ns_bin; CPU $cpu; ${nice:-normal priority}; $RUNS runs per configuration"
echo "# numascope: latency --mode random (any line of the buffer next: TLB misses included)"
echo "# multichase: -s 64 -T <size> (64-byte stride, TLB locality = whole buffer: fully random)"
echo "# lat_mem_rd: -t <MiB> 64 (each load to another page, pages in random order, 64 B stride);" \
    "thp via GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (glibc >= 2.35)"

ran_ref=0
ran_ns=0
failed_ns=0
for run in $(seq 1 "$RUNS"); do
    for size in $SIZES; do
        bytes=$(size_bytes "$size") || {
            echo "numascope bench: size '$size' is not NNNKiB/MiB/GiB or bytes"
            exit 2
        }
        mib=$((bytes / 1048576))
        for page in $PAGES; do
            # numascope
            if $nice "$ns_bin" latency --mode random --size "$bytes" --page-size "$page" \
                --cpu "$cpu" --json >"$tmp/ns.json" 2>"$tmp/ns.err"; then
                v=$(jq -r '.results[0].ns_per_load.median' "$tmp/ns.json")
                hf=$(jq -r '.results[0].huge_fraction // "?"' "$tmp/ns.json")
                printf 'numascope\t%s\t%s\t%s\t%s\thuge_fraction=%s\n' \
                    "$bytes" "$page" "$run" "$v" "$hf" >>"$tsv"
                ran_ns=1
            else
                failed_ns=1
                echo "numascope latency failed ($size $page): $(head -c 300 "$tmp/ns.err")"
            fi
            # multichase: fully random at line stride, as numascope's random mode
            if ((have_mc)); then
                h=()
                [[ $page == thp ]] && h=(-H)
                if [[ $page == 4k || $page == thp ]] &&
                    run_sampled "$tmp/mc.out" $nice taskset -c "$cpu" "$MULTICHASE" \
                        -m "$bytes" -s 64 -T "$bytes" "${h[@]}"; then
                    v=$(tail -n 1 "$tmp/mc.out" | tr -d ' ')
                    printf 'multichase\t%s\t%s\t%s\t%s\t%s\n' \
                        "$bytes" "$page" "$run" "$v" "$SAMPLED_AHP_KB" >>"$tsv"
                    ran_ref=1
                fi
            fi
            # lat_mem_rd: sweeps from 512 B up to the size given in MiB; we read the last point.
            # LAT_MEM_RD_FROM is read only by a lat_mem_rd patched to start its sweep there.
            if ((have_lm)); then
                tun=
                [[ $page == thp ]] && tun=glibc.malloc.hugetlb=1
                if [[ $page == 4k || $page == thp ]] &&
                    run_sampled "$tmp/lm.out" env GLIBC_TUNABLES="$tun" \
                        LAT_MEM_RD_FROM="$mib" $nice taskset -c "$cpu" "$LAT_MEM_RD" \
                        -t -N "$LAT_MEM_RD_N" "$mib" 64; then
                    v=$(awk -v s="$mib" 'NF == 2 && $1 + 0 == s { print $2 }' "$tmp/lm.out" | tail -n 1)
                    if [[ -n $v ]]; then
                        printf 'lat_mem_rd\t%s\t%s\t%s\t%s\t%s\n' \
                            "$bytes" "$page" "$run" "$v" "$SAMPLED_AHP_KB" >>"$tsv"
                        ran_ref=1
                    fi
                fi
            fi
        done
    done
done

echo
echo "DRAM random latency, ns per load (median over runs, ±spread = (max-min)/median;" \
    "ratios of medians):"
python3 "$root/benches/summarize.py" latency "$tsv"

if [[ ${SWEEP:-1} == 1 ]]; then
    echo
    echo "Cache plateaus from numascope latency --sweep (random mode, thp):"
    if $nice "$ns_bin" latency --sweep --mode random --page-size thp --cpu "$cpu" --json \
        >"$tmp/sweep.json" 2>"$tmp/sweep.err"; then
        jq -r '.knees[]? | .levels[]? |
            "  \(.level): sysfs \(.sysfs_bytes // "-") B, knee \(.knee_bytes // "-") B," +
            " \(.plateau_ns // "-") ns, \(.plateau_cycles // "-") cycles"' "$tmp/sweep.json"
        echo "  (clock: $(jq -c '.clock // {}' "$tmp/sweep.json" | head -c 300))"
    else
        echo "SKIP: numascope latency --sweep failed: $(head -c 300 "$tmp/sweep.err")"
    fi
fi

if ((!ran_ns || !ran_ref)); then
    echo "numascope bench: nothing compared (numascope ran: $ran_ns, a reference ran: $ran_ref)"
    exit 1
fi
exit $failed_ns
