#!/usr/bin/env bash
# After the test suite: nothing it made may be left in /tmp, and no process it started may
# still run. Usage: check-leftovers.sh BEFORE, where BEFORE lists /tmp's entries (ls -A, sorted)
# taken before the tests. Prints every leftover and exits 1 when there is one.
set -euo pipefail
before=$1
cd "$(dirname "$0")/.."
bad=0
new=$(ls -A /tmp | sort | comm -13 "$before" - || true)
if [ -n "$new" ]; then
  echo "left in /tmp by the test suite:" >&2
  echo "$new" | sed 's/^/  /' >&2
  bad=1
fi
# Processes started from this checkout's builds or from a test's temporary directory (the
# engine tests' daemons and the programs `app` runs).
procs=$(pgrep -a -f "$PWD/target/|/tmp/\.tmp" | grep -v -e "^$$ " -e pgrep || true)
if [ -n "$procs" ]; then
  echo "still running after the test suite:" >&2
  echo "$procs" | sed 's/^/  /' >&2
  bad=1
fi
[ "$bad" -eq 0 ] && echo "leftovers: none in /tmp, no process behind"
exit "$bad"
