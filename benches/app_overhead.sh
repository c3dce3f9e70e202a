#!/usr/bin/env bash
# What `numascope app`'s placement sampling costs the program it watches: the streaming test
# program (examples/app_stream.rs) run alternately with sampling (numa_maps and thread CPUs
# every --sample-interval) and without (--sample-interval 0), one run per invocation, the
# order alternating pair by pair (with, without; without, with; ...) so drift hits both alike.
# Prints each median wall time, the ratio of medians and the median of the paired ratios; the
# overhead is (ratio - 1); the target is under 1 %.
#
# Builds nothing: it needs target/release/numascope (or $NUMASCOPE) and
# target/release/examples/app_stream (or $APP_STREAM):
#   cargo build --release --bin numascope --example app_stream
# Environment: PAIRS (default 15), MIB and PASSES of the program (default 256 and 20),
# INTERVAL (default 100ms, numascope app's default).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=benches/lib.sh
. "$ROOT/benches/lib.sh"
NS=$(find_numascope "$ROOT")
PROG=${APP_STREAM:-$ROOT/target/release/examples/app_stream}
PAIRS=${PAIRS:-15}
MIB=${MIB:-256}
PASSES=${PASSES:-20}
INTERVAL=${INTERVAL:-100ms}
[[ -n $NS ]] || { echo "no numascope binary: cargo build --release" >&2; exit 2; }
[[ -x $PROG ]] || { echo "$PROG is missing: cargo build --release --example app_stream" >&2; exit 2; }

wall() { # wall INTERVAL: one run's wall time in seconds, from numascope app's JSON
    "$NS" app --json --candidates default --runs 1 --warmup 0 --sample-interval "$1" \
        -- "$PROG" "$MIB" "$PASSES" |
        python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["candidates"][0]["runs"][0]["wall_s"])'
}

echo "numascope app sampling overhead: $PROG $MIB MiB x $PASSES passes, $PAIRS pairs, sampling every $INTERVAL"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
with=() without=()
wall 0 >/dev/null   # warm the page cache and the CPU clock once, not counted
for ((i = 0; i < PAIRS; i++)); do
    if ((i % 2 == 0)); then
        with+=("$(wall "$INTERVAL")"); without+=("$(wall 0)")
    else
        without+=("$(wall 0)"); with+=("$(wall "$INTERVAL")")
    fi
done
python3 - "${with[*]}" "${without[*]}" <<'PY'
import statistics, sys
w = [float(x) for x in sys.argv[1].split()]
o = [float(x) for x in sys.argv[2].split()]
mw, mo = statistics.median(w), statistics.median(o)
paired = statistics.median(a / b for a, b in zip(w, o))
print(f"with sampling:    median {mw:.4f} s (min {min(w):.4f}, max {max(w):.4f}, n={len(w)})")
print(f"without sampling: median {mo:.4f} s (min {min(o):.4f}, max {max(o):.4f}, n={len(o)})")
print(f"ratio of medians {mw / mo:.4f}; median paired ratio {paired:.4f}: overhead {100 * (paired - 1):+.2f} %")
PY

# The sampler's own cost, apart from the noise of whole runs: the procfs reads of one sample
# (what `inspect` reads: numa_maps, status, every thread's stat, numastat) of the program
# holding its buffer, timed 200 times.
"$PROG" "$MIB" 0 60000 >/dev/null &
holder=$!
sleep 1
python3 - "$holder" "$INTERVAL" <<'PY'
import glob, os, sys, time
pid, interval = sys.argv[1], sys.argv[2]
every = float(interval[:-2]) / 1e3 if interval.endswith("ms") else float(interval.rstrip("s"))
t = time.perf_counter()
for _ in range(200):
    for f in (f"/proc/{pid}/numa_maps", f"/proc/{pid}/status",
              *glob.glob(f"/proc/{pid}/task/*/stat"),
              *glob.glob("/sys/devices/system/node/node*/numastat")):
        with open(f) as fh:
            fh.read()
dt = (time.perf_counter() - t) / 200
space = max(every, dt / 0.005)  # numascope app's SAMPLE_BUDGET (src/app/launch.rs)
print(f"one sample's procfs reads: {dt * 1e3:.3f} ms; numascope app spaces samples at least "
      f"{space * 1e3:.0f} ms apart here, so sampling takes {100 * dt / space:.2f} % of one CPU")
PY
kill "$holder"
