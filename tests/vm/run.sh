#!/usr/bin/env bash
# Boots numascope's release binary in QEMU guests with real multi-node NUMA layouts (the shapes
# of tests/vm/shapes.py), runs tests/vm/guest-checks.sh in each, and judges the serial output
# with tests/vm/check.py. Exits non-zero when any check fails or any marker is missing.
#
#   tests/vm/run.sh [--save-fixtures] [--no-build] [--timeout SECONDS] [SHAPE...]
#
# Shapes default to all of them (A B C). Logs: target/vm-logs/<shape>.log (serial console)
# and <shape>.qemu.log (QEMU's own messages). See tests/vm/README.md.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CACHE=${NUMASCOPE_VM_CACHE:-$HERE/cache}
WORK=$ROOT/target/vm
LOGS=$ROOT/target/vm-logs
TIMEOUT=${NUMASCOPE_VM_TIMEOUT:-900}
SAVE_FIXTURES=0
BUILD=1
SHAPES=()

die() { echo "tests/vm/run.sh: error: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case "$1" in
        --save-fixtures) SAVE_FIXTURES=1 ;;
        --no-build) BUILD=0 ;;
        --timeout) shift; TIMEOUT=${1:?--timeout needs a number of seconds} ;;
        -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) SHAPES+=("$1") ;;
    esac
    shift
done
# The shapes and the judge are Python: say so before anything runs them.
command -v python3 >/dev/null 2>&1 \
    || die "python3 is not installed and the guest suite needs it for tests/vm/shapes.py and check.py; install it (apt-get install python3, or tests/install-deps.sh)"
if [ ${#SHAPES[@]} -eq 0 ]; then
    mapfile -t SHAPES < <(python3 "$HERE/shapes.py" list | cut -f1)
fi
for s in "${SHAPES[@]}"; do
    python3 "$HERE/shapes.py" kernel "$s" >/dev/null 2>&1 \
        || die "unknown shape '$s'; known: $(python3 "$HERE/shapes.py" list | cut -f1 | tr '\n' ' ')"
done

# The judge first: its own tests take a fraction of a second and need no guest.
python3 "$HERE/test_check.py" >/dev/null 2>&1 \
    || die "tests/vm/test_check.py fails: run it to see why (check.py is broken)"
"$HERE/setup.sh"
# shellcheck disable=SC1091
. "$CACHE/kernels.env"

cd "$ROOT"
if [ "$BUILD" = 1 ]; then
    cargo build --release --quiet || die "cargo build --release failed"
    cargo build --release --quiet --example app_stream --example app_slowfirst || die "cargo build --release --example app_stream --example app_slowfirst failed"
fi
BIN=$ROOT/target/release/numascope
[ -x "$BIN" ] || die "$BIN is missing: run cargo build --release (or drop --no-build)"
# The streaming test program `numascope app` runs in shape A.
APP_STREAM=$ROOT/target/release/examples/app_stream
[ -x "$APP_STREAM" ] || die "$APP_STREAM is missing: run cargo build --release --example app_stream (or drop --no-build)"
# The program that first touches its pages on a slow node (`app --tiering`, shape A).
APP_SLOWFIRST=$ROOT/target/release/examples/app_slowfirst
[ -x "$APP_SLOWFIRST" ] || die "$APP_SLOWFIRST is missing: run cargo build --release --example app_slowfirst (or drop --no-build)"

# ---- initramfs: busybox, numascope, numactl (for humans reading the log), their libraries ----
rm -rf "$WORK/root"
mkdir -p "$WORK/root"/{bin,proc,sys,dev,tmp}
cp /bin/busybox "$WORK/root/bin/"
cp "$BIN" "$WORK/root/bin/numascope"
cp "$APP_STREAM" "$WORK/root/bin/app_stream"
cp "$APP_SLOWFIRST" "$WORK/root/bin/app_slowfirst"
bins=("$BIN" "$APP_STREAM" "$APP_SLOWFIRST")
if command -v numactl >/dev/null 2>&1; then
    cp "$(command -v numactl)" "$WORK/root/bin/numactl"
    bins+=("$(command -v numactl)")
fi
for b in "${bins[@]}"; do
    for lib in $(ldd "$b" | grep -o '/[^ ]*'); do
        mkdir -p "$WORK/root$(dirname "$lib")"
        cp -L "$lib" "$WORK/root$lib"
    done
done
cp "$HERE/init" "$WORK/root/init"
cp "$HERE/guest-checks.sh" "$WORK/root/guest-checks.sh"
chmod +x "$WORK/root/init"
(cd "$WORK/root" && find . | cpio -o -H newc --quiet | gzip -1) > "$WORK/initrd.gz"

# ---- boot each shape ---------------------------------------------------------------------------
mkdir -p "$LOGS"
failed=()
summary=()
for s in "${SHAPES[@]}"; do
    kind=$(python3 "$HERE/shapes.py" kernel "$s")
    kernel=$KERNEL_STOCK version=$KERNEL_STOCK_VERSION note=""
    check_args=()
    if [ "$kind" = backports ]; then
        if [ -n "$KERNEL_BACKPORTS" ]; then
            kernel=$KERNEL_BACKPORTS version=$KERNEL_BACKPORTS_VERSION
        else
            note="no backports kernel: fell back to $version"
            check_args+=(--no-weighted "the backports kernel (>= 6.9) was unavailable; booted $version")
        fi
    else
        check_args+=(--expect-weighted-refused)
    fi
    mapfile -t qargs < <(python3 "$HERE/shapes.py" qemu-args "$s")
    append="console=ttyS0 quiet loglevel=1 panic=-1 nsshape=$s"
    ts=$(python3 "$HERE/shapes.py" taskset "$s")
    off=$(python3 "$HERE/shapes.py" offline "$s")
    [ -n "$ts" ] && append="$append nstaskset=$ts"
    [ -n "$off" ] && append="$append nsoffline=$off"
    log=$LOGS/$s.log
    rm -f "$log" "$LOGS/$s.qemu.log"
    echo "== shape $s: $(python3 "$HERE/shapes.py" list | awk -F'\t' -v s="$s" '$1 == s { print $2 }')"
    echo "   kernel $version${note:+ ($note)}; log $log"
    start=$(date +%s.%N)
    set +e
    timeout --kill-after=10 "$TIMEOUT" qemu-system-x86_64 "${qargs[@]}" \
        -kernel "$CACHE/$kernel" -initrd "$WORK/initrd.gz" -append "$append" \
        -display none -monitor none -serial "file:$log" -no-reboot \
        </dev/null >"$LOGS/$s.qemu.log" 2>&1
    qrc=$?
    set -e
    secs=$(echo "$(date +%s.%N) $start" | awk '{ printf "%.1f", $1 - $2 }')
    if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
        echo "   QEMU ran past ${TIMEOUT}s and was killed"
        check_args+=(--note "QEMU timed out after ${TIMEOUT}s")
    elif [ $qrc -ne 0 ]; then
        echo "   QEMU exited with status $qrc: $(head -c 600 "$LOGS/$s.qemu.log")"
        check_args+=(--note "QEMU exited with status $qrc")
    fi
    [ "$SAVE_FIXTURES" = 1 ] && check_args+=(--save-fixtures "$ROOT/tests/fixtures/topology/guest-$s")
    set +e
    python3 "$HERE/check.py" --shape "$s" --log "$log" --kernel "$version" \
        --wall-seconds "$secs" --numascope "$BIN" "${check_args[@]}"
    crc=$?
    set -e
    if [ $crc -ne 0 ] || [ $qrc -ne 0 ]; then
        failed+=("$s")
        summary+=("shape $s: FAIL (${secs}s, kernel $version)")
    else
        summary+=("shape $s: PASS (${secs}s, kernel $version)")
    fi
done

echo "== summary"
printf '   %s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
    echo "tests/vm/run.sh: FAILED shapes: ${failed[*]} (logs in $LOGS)" >&2
    exit 1
fi
echo "tests/vm/run.sh: all shapes passed"
