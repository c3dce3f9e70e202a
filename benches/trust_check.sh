#!/usr/bin/env bash
# A check of numascope's own precision: runs `numascope run` RUNS times (default 5)
# back to back on this machine and prints, per figure with an interval, the spread of the
# runs' medians, the widest 95 % interval (half-width, % of the median), how many of the other
# runs' medians each run's interval holds, whether the policy advice was the same every time,
# and each run's wall time and disturbance verdict. Run it on a quiet machine; it is a
# benchmark, not a test. RUN_FLAGS (default --quick) is passed to `numascope run`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/lib.sh"
bin=$(find_numascope "$root")
[[ -n $bin ]] || { echo "numascope not found: cargo build --release first" >&2; exit 2; }
runs=${RUNS:-5}
flags=${RUN_FLAGS:---quick}
out=$(mktemp -d)
echo "# $(date -u +%FT%TZ) $(uname -r) load average: $(cut -d' ' -f1-3 /proc/loadavg); $runs x numascope run $flags"
files=()
for i in $(seq 1 "$runs"); do
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$bin" run $flags --output "$out/run$i" >/dev/null 2>"$out/run$i.err" || true
    end=$(date +%s.%N)
    printf 'run %d: %.1f s wall\n' "$i" "$(echo "$end - $start" | bc)"
    [[ -f $out/run$i/results.json ]] && files+=("$out/run$i/results.json")
done
python3 "$here/trust_check.py" "${files[@]}"
echo "runs kept in $out"
