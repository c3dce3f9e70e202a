#!/usr/bin/env bash
# Runs numascope's pointer-chasing latency next to reference tools in the same session and
# prints the ratio numascope / reference, with the spread over RUNS runs (issue 4).
#
# The references are NOT built here: build google/multichase and lmbench outside this
# repository and point to the binaries:
#   MULTICHASE=/path/to/multichase LAT_MEM_RD=/path/to/lat_mem_rd benches/latency_vs_reference.sh
# Either may be left unset (that comparison is skipped). Run on an idle machine: the tools
# alternate, so a disturbance hits both, but a busy CPU makes every figure meaningless.
#
# Pairs compared (same access pattern on both sides):
#   multichase -m SIZE (default: stride 256 B, TLB locality 256 KiB, best of 5 x 0.5 s)
#     vs numascope --mode page --locality 256KiB --stride 256 (min and median reported)
#   lat_mem_rd -N 3 -t SIZE_MB 64 (slow: it walks every size up to SIZE_MB; lmbench's randomized page/line walk; last line = full size)
#     vs numascope --mode page --stride 64
# numascope runs with 4k pages (MADV_NOHUGEPAGE) and with thp; multichase/lat_mem_rd get
# whatever the system's THP mode gives them (`madvise` means base pages).
set -euo pipefail

RUNS=${RUNS:-5}
SIZES_MIB=${SIZES_MIB:-"256 1024"}
CPU=${CPU:-0}
here=$(cd "$(dirname "$0")/.." && pwd)
NUMASCOPE=${NUMASCOPE:-$here/target/release/numascope}
[ -x "$NUMASCOPE" ] || (cd "$here" && cargo build --release --quiet)

ns_json() { # numascope args... -> "median min"
    "$NUMASCOPE" latency --json --cpu "$CPU" "$@" 2>/dev/null |
        python3 -c 'import json,sys; r=json.load(sys.stdin)["results"][0]["ns_per_load"]; print(r["median"], r["min"])'
}

stats() { # numbers on stdin -> "median min max"
    awk 'NF' | sort -g | awk '{v[NR]=$1} END{m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "%.2f %.2f %.2f", m, v[1], v[NR]}'
}

report() { # label numascope-values reference-values
    read -r nm nmin nmax <<<"$(echo "$2" | tr ' ' '\n' | stats)"
    read -r rm rmin rmax <<<"$(echo "$3" | tr ' ' '\n' | stats)"
    awk -v l="$1" -v nm="$nm" -v nmin="$nmin" -v nmax="$nmax" -v rm="$rm" -v rmin="$rmin" -v rmax="$rmax" -v n="$RUNS" 'BEGIN{
        printf "%-44s numascope %7.2f ns [%.2f..%.2f]  reference %7.2f ns [%.2f..%.2f]  ratio %.3f  (%d runs)\n",
               l, nm, nmin, nmax, rm, rmin, rmax, nm/rm, n }'
}

echo "# $(date -u +%FT%TZ) $(uname -r); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for mib in $SIZES_MIB; do
    if [ -n "${MULTICHASE:-}" ]; then
        for page in 4k thp; do
            ours=""; ref=""
            for _ in $(seq "$RUNS"); do
                read -r med min <<<"$(ns_json --size "${mib}MiB" --mode page --locality 256KiB --stride 256 --page-size $page)"
                ours="$ours $min"
                ref="$ref $(taskset -c "$CPU" "$MULTICHASE" -m "${mib}m" -n 5 | tail -1)"
            done
            report "multichase -m ${mib}m (best) vs min, $page" "$ours" "$ref"
        done
    fi
    if [ -n "${LAT_MEM_RD:-}" ]; then
        ours=""; ref=""
        for _ in $(seq "$RUNS"); do
            read -r med min <<<"$(ns_json --size "${mib}MiB" --mode page --stride 64 --page-size 4k)"
            ours="$ours $med"
            ref="$ref $(taskset -c "$CPU" "$LAT_MEM_RD" -N 3 -t "$mib" 64 2>&1 | awk 'NF==2{v=$2} END{print v}')"
        done
        report "lat_mem_rd -t $mib 64 vs median, 4k" "$ours" "$ref"
    fi
done
