#!/usr/bin/env bash
# Self-check of loaded latency against the latency engine, on this machine:
#  1. the zero-load point of `loaded-latency` agrees with the idle figure of
#     `latency --mode random` at the same working-set size within 5 %;
#  2. the curve's latency rises monotonically with bandwidth, within noise (no drop of more
#     than 10 % between neighbouring points), with its rise at the peak and Spearman's rank
#     correlation printed, so a flat curve (too little load) is told from a rising one.
# Both page backings are checked (PAGES, default "4k thp"): with 4k pages the chase pays page
# walks, which in a VM vary from buffer to buffer; THP takes them out.
# Timing on a shared machine is noisy, so this is a script that reports numbers rather than a
# test that could flake: the two tools run interleaved ROUNDS times and the medians of the
# per-round figures are compared. Needs python3. Usage:
#   benches/loaded_latency_check.sh [ROUNDS] [SIZE] [CHASER_CPU] [LOAD_CPUS]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
SIZE=${2:-256MiB}
CHASER=${3:-0}
LOAD=${4:-1}
PAGES=${PAGES:-4k thp}
cargo build --release --quiet
BIN=target/release/numascope
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for page in $PAGES; do
for r in $(seq 1 "$ROUNDS"); do
  "$BIN" latency --mode random --size "$SIZE" --cpu "$CHASER" --mem-node 0 --page-size "$page" --json >"$OUT/idle$r.json"
  "$BIN" loaded-latency --size "$SIZE" --chaser-cpu "$CHASER" --load-cpus "$LOAD" --page-size "$page" --json >"$OUT/loaded$r.json"
done
echo "== $page pages, $SIZE chased, chaser CPU $CHASER, load CPUs $LOAD, $ROUNDS rounds"
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
idle, zero, viol, idle_min, zero_min, share = [], [], [], [], [], []
for r in range(1, rounds + 1):
    lat = json.load(open(f"{out}/idle{r}.json"))
    ll = json.load(open(f"{out}/loaded{r}.json"))
    idle.append(lat["results"][0]["ns_per_load"]["median"])
    zero.append(ll["points"][0]["ns_per_load"]["median"])
    idle_min.append(lat["results"][0]["ns_per_load"]["min"])
    zero_min.append(ll["points"][0]["ns_per_load"]["min"])
    share.append(min(t["cpu_share"] for p in ll["points"] for t in p["threads"] if t["cpu_share"] is not None))
    pts = sorted((p["total_mb_per_s"], p["ns_per_load"]["median"]) for p in ll["points"])
    viol.append(sum(1 for a, b in zip(pts, pts[1:]) if b[1] < a[1] * 0.9))
    print(f"round {r}: latency idle {idle[-1]:.1f} ns, loaded-latency no-load {zero[-1]:.1f} ns, "
          f"peak {ll['curve']['peak_mb_per_s']:.0f} MB/s, latency doubled at {ll['curve']['doubled_at_mb_per_s']}, "
          f"rise at peak {100 * ll['curve']['rise_at_peak_fraction']:+.1f} %, rank correlation {ll['curve']['rank_correlation']}")
    for bw, ns in pts:
        print(f"    {bw:10.0f} MB/s  {ns:8.1f} ns")
ratio = statistics.median(zero) / statistics.median(idle)
print(f"median idle {statistics.median(idle):.1f} ns vs no-load point {statistics.median(zero):.1f} ns: ratio {ratio:.3f} "
      f"({'within' if abs(ratio - 1) <= 0.05 else 'OUTSIDE'} 5 %)")
# Preemption only inflates samples, so on a busy machine the minima are the less disturbed
# figures; the lowest CPU share of any running thread says how busy the machine was.
print(f"minima: latency {min(idle_min):.1f} ns, no-load point {min(zero_min):.1f} ns: ratio {min(zero_min)/min(idle_min):.3f}")
print(f"lowest CPU share of a running measurement thread per round: {[round(s, 2) for s in share]}")
print(f"monotonicity: drops of more than 10 % between neighbouring points per round: {viol}")
PY
done
