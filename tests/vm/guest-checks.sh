#!/bin/sh
# Runs inside the QEMU guest (busybox sh), started by the initramfs /init with the shape name.
#
# It asserts nothing itself: it runs numascope (and reads sysfs) and prints every raw output
# between fixed markers on the serial console, where tests/vm/check.py on the host parses and
# judges them. Keeping the judgement on the host keeps it in one testable Python file.
#
# Wire format (one line each, the host strips the console's CR):
#   NSFACT <shape> <key> <value...>          a raw sysfs/procfs fact
#   NSBLOCK-BEGIN <shape> <name>             a command's output follows
#   NSSTDOUT / NSSTDERR                      section separators inside a block
#   NSBLOCK-END <shape> <name> rc=<status> secs=<guest seconds it took>
#   NSFILE-BEGIN <shape> <name> / NSFILE-END <shape> <name>   base64 of a tar.gz
#   NSCHECK-END <shape>                      the guest finished (missing = failure)
#
# Usage (from /init): guest-checks.sh SHAPE [TASKSET_CPU_LIST] [OFFLINE_CPU_LIST]
# The shape's CPUs to take offline and the CPU list numascope runs under come from
# tests/vm/shapes.py through the kernel command line.
set -u
SHAPE=$1
TASKSET=${2:-}    # numascope runs under `taskset -c $TASKSET` when set
OFFLINE=${3:-}    # comma-separated CPUs taken offline before anything runs
NS=/bin/numascope
CMD_TIMEOUT=240   # seconds for one command: a hang fails that check, not the whole shape

fact() { echo "NSFACT $SHAPE $*"; }

# run NAME CMD...: runs numascope-related CMD (under the shape's taskset, if any) and prints
# stdout, stderr and exit status in one block.
run() {
    name=$1; shift
    t0=$(cut -d' ' -f1 /proc/uptime)
    if [ -n "$TASKSET" ]; then
        timeout "$CMD_TIMEOUT" taskset -c "$TASKSET" "$@" >/tmp/ns.out 2>/tmp/ns.err </dev/null
    else
        timeout "$CMD_TIMEOUT" "$@" >/tmp/ns.out 2>/tmp/ns.err </dev/null
    fi
    rc=$?
    [ $rc -eq 143 ] && echo "(killed after ${CMD_TIMEOUT}s by the harness)" >>/tmp/ns.err
    # SIGKILL that the harness did not send: the kernel's OOM report says which node ran out.
    if [ $rc -eq 137 ]; then
        echo "(SIGKILL; the kernel log's last OOM lines and each node's free memory follow)" >>/tmp/ns.err
        dmesg 2>/dev/null | grep -iE -A4 "out of memory|oom-kill|invoked oom" | tail -40 >>/tmp/ns.err
        grep -h MemFree /sys/devices/system/node/node*/meminfo >>/tmp/ns.err
    fi
    echo "NSBLOCK-BEGIN $SHAPE $name"
    echo "NSSTDOUT"
    cat /tmp/ns.out; echo
    echo "NSSTDERR"
    cat /tmp/ns.err; echo
    echo "NSBLOCK-END $SHAPE $name rc=$rc secs=$(awk -v a="$t0" '{ printf "%.2f", $1 - a }' /proc/uptime)"
}

node_kb() { # node_kb NODE MemFree|MemTotal
    awk -v k="$2:" '$3 == k { print $4 }' "/sys/devices/system/node/node$1/meminfo"
}

# Raw facts straight from sysfs/procfs, so the host can tell a wrong QEMU shape from a wrong
# numascope.
facts() {
    fact uname "$(uname -r)"
    for f in online possible has_memory has_cpu has_normal_memory; do
        fact "node_$f" "$(cat /sys/devices/system/node/$f 2>/dev/null)"
    done
    for d in /sys/devices/system/node/node[0-9]*; do
        n=${d##*/node}
        fact "node$n.cpulist" "$(cat "$d/cpulist")"
        fact "node$n.distance" "$(cat "$d/distance")"
        fact "node$n.memtotal_kb" "$(node_kb "$n" MemTotal)"
        fact "node$n.memfree_kb" "$(node_kb "$n" MemFree)"
        for a in "$d"/access[0-9]*; do
            [ -d "$a" ] || continue
            c=${a##*/access}
            fact "node$n.access$c.initiator_nodes" "$(ls "$a/initiators" | grep '^node' | tr '\n' ' ')"
            fact "node$n.access$c.target_nodes" "$(ls "$a/targets" 2>/dev/null | grep '^node' | tr '\n' ' ')"
            for v in read_latency write_latency read_bandwidth write_bandwidth; do
                fact "node$n.access$c.$v" "$(cat "$a/initiators/$v" 2>/dev/null)"
            done
        done
        for i in "$d"/memory_side_cache/index*; do
            [ -d "$i" ] || continue
            for v in size line_size indexing write_policy; do
                fact "node$n.${i##*/}.$v" "$(cat "$i/$v" 2>/dev/null)"
            done
        done
    done
    for c in /sys/devices/system/cpu/cpu[0-9]*; do
        if [ -f "$c/online" ]; then on=$(cat "$c/online"); else on=1; fi
        fact "${c##*/}.online" "$on"
        fact "${c##*/}.node_link" "$(ls "$c" | grep '^node[0-9]' | tr '\n' ' ')"
    done
    if [ -d /sys/kernel/mm/mempolicy/weighted_interleave ]; then
        fact weighted_interleave "$(ls /sys/kernel/mm/mempolicy/weighted_interleave | tr '\n' ' ')"
        for w in /sys/kernel/mm/mempolicy/weighted_interleave/node*; do
            fact "weighted_interleave.${w##*/}" "$(cat "$w")"
        done
    else
        fact weighted_interleave absent
    fi
    # The kernel's memory tiers (6.1+ with HMAT): which nodes each tier holds.
    for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
        [ -f "$t/nodelist" ] && fact "${t##*/}.nodelist" "$(cat "$t/nodelist")"
    done
    fact numa_balancing "$(cat /proc/sys/kernel/numa_balancing 2>/dev/null)"
    fact transparent_hugepage "$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
    fact mems_allowed "$(awk '/^Mems_allowed_list/ { print $2 }' /proc/self/status)"
    if [ -n "$TASKSET" ]; then
        fact taskset_cpus_allowed "$(taskset -c "$TASKSET" awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)"
    fi
}

# Saves numascope's capture of this guest as base64 of a tar.gz between markers; run.sh
# --save-fixtures unpacks it under tests/fixtures/topology/guest-<shape>/.
capture() {
    rm -rf /tmp/cap
    run capture "$NS" capture /tmp/cap
    if [ -d /tmp/cap ]; then
        echo "NSFILE-BEGIN $SHAPE capture"
        tar -C /tmp/cap -cf - . | gzip -c | base64
        echo "NSFILE-END $SHAPE capture"
    fi
}

# The command line every placement check uses; the host reads the JSON.
place() { # place NAME ARGS...
    name=$1; shift
    run "$name" "$NS" placement "$@" --json
}

# inspect of a process whose 16 MiB buffer is bound to NODE, kept alive with --hold.
inspect_bound() { # inspect_bound NODE
    rm -f /tmp/hold.out /tmp/hold.err
    if [ -n "$TASKSET" ]; then
        taskset -c "$TASKSET" "$NS" placement --policy bind --nodes "$1" --size 16MiB --hold 30 --json \
            >/tmp/hold.out 2>/tmp/hold.err </dev/null &
    else
        "$NS" placement --policy bind --nodes "$1" --size 16MiB --hold 30 --json \
            >/tmp/hold.out 2>/tmp/hold.err </dev/null &
    fi
    pid=$!
    i=0
    # Wait until the holder printed its report (its buffer is then placed and faulted in).
    while [ ! -s /tmp/hold.out ] && [ $i -lt 60 ] && kill -0 $pid 2>/dev/null; do
        usleep 500000; i=$((i + 1))
    done
    run "inspect-bound-node$1" "$NS" inspect "$pid" --json
    echo "NSBLOCK-BEGIN $SHAPE inspect-holder"
    echo "NSSTDOUT"; cat /tmp/hold.out; echo
    echo "NSSTDERR"; cat /tmp/hold.err; echo
    echo "NSBLOCK-END $SHAPE inspect-holder rc=0"
    kill $pid 2>/dev/null
    wait $pid 2>/dev/null
}

# SIGTERM while `placement --policy weighted` has set its weights (during the
# fault-in) must put node0's system-wide weight back. Prints the weight before and after and
# the exit status (143: stopped; 0: it finished before the signal); check.py compares them.
weighted_sigterm() {
    w=/sys/kernel/mm/mempolicy/weighted_interleave/node0
    [ -f "$w" ] || return 0
    fact weighted_sigterm.before "$(cat "$w")"
    "$NS" placement --policy weighted --weights 0:7,1:1 --size 256MiB >/dev/null 2>/tmp/wt.err </dev/null &
    pid=$!
    i=0
    while [ "$(cat "$w")" != 7 ] && [ $i -lt 500 ] && kill -0 $pid 2>/dev/null; do
        usleep 10000; i=$((i + 1))
    done
    kill -TERM $pid 2>/dev/null
    wait $pid
    fact weighted_sigterm.rc "$?"
    fact weighted_sigterm.after "$(cat "$w")"
}

# `numascope run` end to end with a guest-sized budget: the default budget (every matrix
# cell on a 3-node machine) with 16 MiB working sets, 20 ms repetitions, 0.5 ms latency
# samples, a sweep to 4 MiB, one bandwidth kernel and c2c on one CPU of each node. Its
# output directory comes back as base64 of a tar.gz; check.py reads results.json from it.
# The system-wide weighted-interleave weights are printed before and after (the scenarios
# and the advisor set them while measuring and must put them back).
RUN_TIMEOUT=${RUN_TIMEOUT:-900}
run_guest_sized() {
    wi=/sys/kernel/mm/mempolicy/weighted_interleave
    [ -d $wi ] && fact run.weights_before "$(cat $wi/node* | tr '\n' ' ')"
    rm -rf /tmp/run
    saved=$CMD_TIMEOUT; CMD_TIMEOUT=$RUN_TIMEOUT
    run run "$NS" run --output /tmp/run --size 16MiB --duration 20ms --sample-ms 0.5 \
        --sweep 4KiB..4MiB --kernel read --mode random --page-size 4k --cpus 0,2
    CMD_TIMEOUT=$saved
    [ -d $wi ] && fact run.weights_after "$(cat $wi/node* | tr '\n' ' ')"
    if [ -d /tmp/run ]; then
        echo "NSFILE-BEGIN $SHAPE run-output"
        tar -C /tmp/run -cf - . | gzip -c | base64
        echo "NSFILE-END $SHAPE run-output"
    fi
    rm -rf /tmp/run
}

# ---- checks per shape ----------------------------------------------------------------------
# Each function lists the commands of one shape; check.py has the matching assertions
# (checks_A/B/C there). Later issues add their commands HERE, next to the matching assertion
# in check.py, and only once the command exists on main.

checks_A() {
    run topo "$NS" topo --json
    capture
    for n in 0 1 2; do
        place "bind-node$n" --policy bind --nodes "$n" --size 8MiB
    done
    place interleave --policy interleave --nodes 0-2 --size 8MiB
    place weighted --policy weighted --weights 0:3,1:1 --size 8MiB
    weighted_sigterm
    place preferred --policy preferred --nodes 2 --size 8MiB
    place preferred-many --policy preferred-many --nodes 1,2 --size 8MiB
    # Beyond node 2's free memory: preferred must spill to other nodes, bind must be refused.
    free_kb=$(node_kb 2 MemFree)
    fact node2.memfree_kb_before_spill "$free_kb"
    place preferred-spill --policy preferred --nodes 2 --size "$((free_kb + 32768))KiB"
    fact node2.memfree_kb_before_bind_too_big "$(node_kb 2 MemFree)"
    place bind-too-big --policy bind --nodes 2 --size "$((free_kb + 32768))KiB"
    place pinned-cpu1 --policy bind --nodes 0 --cpu 1 --size 4MiB
    # Page sizes: THP on the memory-only node; hugetlb refused while none are reserved, then
    # placed from 4 reserved 2 MiB pages on node 2 (released again afterwards).
    place thp-node2 --policy bind --nodes 2 --size 8MiB --page-size thp
    place hugetlb-unreserved --policy bind --nodes 1 --size 4MiB --page-size 2m
    h=/sys/devices/system/node/node2/hugepages/hugepages-2048kB/nr_hugepages
    echo 4 > "$h"
    fact node2.nr_hugepages_2m "$(cat "$h")"
    place hugetlb-2m-node2 --policy bind --nodes 2 --size 8MiB --page-size 2m
    echo 0 > "$h"
    inspect_bound 2
    # Latency matrix: every initiator node x every memory node (node 2 memory-only), placement
    # verified per cell. Timings under TCG are meaningless; only the shape is checked.
    run latency-matrix "$NS" latency --matrix --size 8MiB --samples 3 --warmup 1 --sample-ms 0.5 --json
    # Bandwidth matrix: every initiator node x every memory node, placement verified per cell.
    run bandwidth-matrix "$NS" bandwidth --matrix --kernel read --size 8MiB --duration 20ms --repetitions 1 --warmup 0 --json
    run bandwidth-scaling "$NS" bandwidth --scaling --kernel read --size 8MiB --duration 20ms --repetitions 1 --warmup 0 --json
    # numascope app: the streaming test program (a cargo example, /bin/app_stream) under bind
    # to node 0, bind to node 1 and interleave over 0-2, one run each; it streams 8 MiB once
    # and stays alive 1 s so the sampler sees its pages. Only placement is checked.
    run app-stream "$NS" app --json --runs 1 --warmup 0 --sample-interval 5ms \
        --candidates bind:0,bind:1,interleave -- /bin/app_stream 8 1 1000
    # weighted:measured: weights derived from measured per-node bandwidth, set only while the
    # program runs; the system-wide weights must be back afterwards.
    if [ -d /sys/kernel/mm/mempolicy/weighted_interleave ]; then
        fact app_weighted.before "$(cat /sys/kernel/mm/mempolicy/weighted_interleave/node* | tr '\n' ' ')"
        run app-weighted "$NS" app --json --runs 1 --warmup 0 --sample-interval 5ms \
            --candidates weighted:measured -- /bin/app_stream 8 1 1000
        fact app_weighted.after "$(cat /sys/kernel/mm/mempolicy/weighted_interleave/node* | tr '\n' ' ')"
    fi
    app_tiering
    run_guest_sized
}

# The kernel's tiering knobs, as one fact each (printed before and after `app --tiering`).
tiering_knobs() { # tiering_knobs PREFIX
    fact "$1.numa_balancing" "$(cat /proc/sys/kernel/numa_balancing 2>/dev/null)"
    fact "$1.demotion_enabled" "$(cat /sys/kernel/mm/numa/demotion_enabled 2>/dev/null)"
    fact "$1.nr_kdamonds" "$(cat /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds 2>/dev/null)"
}

# `app --tiering`. The first program first touches 16 MiB on the slow node 2 (tier
# below nodes 0-1) and streams it for 12 s: under memory-tiering mode the kernel promotes its
# hot pages (pgpromote_success), under NUMA balancing it migrates them. The second binds its
# fill to node 0 and asks 48 MiB more than node 0 has free when demotion_enabled is on, so
# reclaim on node 0 demotes to node 2 (pgdemote_*); 48 MiB less when it is off (no swap here:
# no OOM kill). Every knob must be back afterwards, and a DAMON daemon
# created and removed where the kernel has DAMON's sysfs interface.
app_tiering() {
    tiering_knobs tiering.before
    [ -d /sys/kernel/mm/damon/admin ] && fact damon_sysfs present
    run app-tiering-promote "$NS" app --json --tiering --runs 1 --warmup 0 --sample-interval 500ms \
        --candidates default -- /bin/app_slowfirst 2 16 12
    tiering_knobs tiering.after_promote
    fact tiering.node0_free_kb "$(node_kb 0 MemFree)"
    fact tiering.pressure_mib "node 0 free + 48 (demotion on) or - 48 (off)"
    run app-tiering-demote "$NS" app --json --tiering --runs 1 --warmup 0 --sample-interval 500ms \
        --candidates default -- /bin/app_slowfirst 0 pressure 3
    tiering_knobs tiering.after_demote
}

checks_B() {
    run topo "$NS" topo --json
    capture
    for n in 0 1 2; do
        place "bind-node$n" --policy bind --nodes "$n" --size 8MiB
    done
    place interleave --policy interleave --nodes 0-2 --size 8MiB
    place weighted --policy weighted --weights 0:3,1:1 --size 8MiB
    place first-touch-cpu2 --policy first-touch --cpu 2 --size 4MiB
    place pinned-cpu6 --policy bind --nodes 0 --cpu 6 --size 4MiB
    place err-memoryless-node3 --policy bind --nodes 3 --size 4MiB
    place err-cpu-not-allowed --policy bind --nodes 0 --cpu 4 --size 4MiB
    place err-cpu-offline --policy bind --nodes 0 --cpu 5 --size 4MiB
    inspect_bound 2
    # Core to core with the line homed on node 1, and loaded latency with memory on node 1,
    # from CPUs of node 0 and node 1 (timings meaningless under TCG; placement is checked).
    run c2c "$NS" c2c --cpus 0,2 --line-node 1 --samples 3 --json
    run loaded-latency "$NS" loaded-latency --chaser-cpu 0 --load-cpus 2 --mem-node 1 --size 4MiB --points 2 --duration 20ms --json
}

checks_C() {
    run topo "$NS" topo --json
    capture
    for n in 0 1; do
        place "bind-node$n" --policy bind --nodes "$n" --size 8MiB
    done
    place interleave --policy interleave --nodes 0-1 --size 8MiB
    place weighted --policy weighted --weights 0:3,1:1 --size 8MiB
    place pinned-cpu3 --policy bind --nodes 0 --cpu 3 --size 4MiB
    inspect_bound 1
}

# ---- main ----------------------------------------------------------------------------------
echo "NSGUEST-BEGIN $SHAPE"
fact uptime_at_start "$(cut -d' ' -f1 /proc/uptime)"
for c in $(echo "$OFFLINE" | tr ',' ' '); do
    echo 0 > "/sys/devices/system/cpu/cpu$c/online" || echo "NSGUEST-ERROR $SHAPE cannot offline cpu$c"
done
facts
if command -v numactl >/dev/null 2>&1; then
    echo "NSBLOCK-BEGIN $SHAPE numactl-H"; echo "NSSTDOUT"
    numactl -H 2>&1; echo "NSSTDERR"; echo "NSBLOCK-END $SHAPE numactl-H rc=0"
fi
case "$SHAPE" in
    A) checks_A ;;
    B) checks_B ;;
    C) checks_C ;;
    *) echo "NSGUEST-ERROR $SHAPE unknown shape" ;;
esac
fact uptime_at_end "$(cut -d' ' -f1 /proc/uptime)"
echo "NSCHECK-END $SHAPE"
