#!/usr/bin/env bash
# How long `numascope topo --json --sysfs-root FILE.xml` takes to read an hwloc XML, against
# hwloc's own `lstopo-no-graphics -i FILE.xml --of xml -` on the same file, alternating run
# by run (numascope, lstopo; lstopo, numascope; ...) so drift hits both alike. Prints each
# median wall time and the ratio of medians (numascope / lstopo). The target: a
# 192-CPU 24-node XML (hwloc's tests/hwloc/xml/192em64t-24n8c2t.xml) load in well under a
# second; it read 17-90 s under load when the XML was turned into a snapshot under /tmp.
#
# Usage: benches/hwloc-xml-load.sh FILE.xml   (PAIRS, default 11). Builds nothing: it needs
# target/release/numascope (or $NUMASCOPE). lstopo 2.9 reads hwloc format 2 only.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=benches/lib.sh
. "$ROOT/benches/lib.sh"
NS=$(find_numascope "$ROOT")
XML=${1:?give an hwloc XML file}
PAIRS=${PAIRS:-11}
[[ -n $NS ]] || { echo "no numascope binary: cargo build --release" >&2; exit 2; }
command -v lstopo-no-graphics >/dev/null || { echo "lstopo-no-graphics is not installed (tests/install-deps.sh)" >&2; exit 2; }

secs() { # secs CMD...: wall seconds of one run, output discarded
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    python3 -c "print($t1 - $t0)"
}

ns=() lt=()
for ((i = 0; i < PAIRS; i++)); do
    if ((i % 2 == 0)); then
        ns+=("$(secs "$NS" topo --json --sysfs-root "$XML")")
        lt+=("$(secs lstopo-no-graphics -i "$XML" --of xml -)")
    else
        lt+=("$(secs lstopo-no-graphics -i "$XML" --of xml -)")
        ns+=("$(secs "$NS" topo --json --sysfs-root "$XML")")
    fi
done
python3 - "${ns[*]}" "${lt[*]}" <<'PY'
import statistics, sys
ns = [float(x) for x in sys.argv[1].split()]
lt = [float(x) for x in sys.argv[2].split()]
a, b = statistics.median(ns), statistics.median(lt)
print(f"numascope topo: median {a:.4f} s over {len(ns)} runs")
print(f"lstopo:         median {b:.4f} s over {len(lt)} runs")
print(f"ratio numascope/lstopo: {a / b:.2f}")
PY
