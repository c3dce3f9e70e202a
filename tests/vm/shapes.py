#!/usr/bin/env python3
"""The guest machine shapes of the QEMU test harness, in one place.

Each shape is a NUMA layout that a developer machine with one node cannot show: QEMU builds it
(SLIT, HMAT, memory-only and memory-less nodes) and a real Debian kernel runs on it. This file
holds both halves of a shape, so they cannot drift apart: the QEMU command line that makes it
(`qemu_args`) and what the guest must then report (`nodes`, `distances`, `hmat_initiators`,
`offline_cpus`, `taskset`), which check.py compares against numascope's output and against the
raw sysfs facts the guest prints.

Run as a script, it prints the QEMU arguments of a shape one per line (for run.sh):
    python3 tests/vm/shapes.py qemu-args A
    python3 tests/vm/shapes.py kernel A        # "backports" or "stock"
    python3 tests/vm/shapes.py taskset B       # CPU list numascope runs under, or empty
    python3 tests/vm/shapes.py offline B       # CPUs taken offline in the guest, or empty
    python3 tests/vm/shapes.py list
"""

import sys

MIB = 1 << 20


class Node:
    def __init__(self, node_id, cpus, mem_mib, initiator=None):
        self.id = node_id
        self.cpus = list(cpus)
        self.mem_mib = mem_mib  # 0: a node with CPUs and no memory
        self.initiator = initiator  # HMAT initiator of a CPU-less node

    @property
    def has_memory(self):
        return self.mem_mib > 0


class Shape:
    def __init__(self, name, summary, kernel, sockets, cores, nodes, distances,
                 hmat_lb=None, hmat_cache=None, offline_cpus=(), taskset=None):
        self.name = name
        self.summary = summary
        self.kernel = kernel  # "backports" (>= 6.9, weighted interleave) or "stock" (6.1)
        self.sockets = sockets
        self.cores = cores
        self.nodes = nodes
        self.distances = distances  # full matrix, distances[i][j] from node i to node j
        # {(initiator, target): (latency_ns, bandwidth_gb_s)}; None: no HMAT.
        self.hmat_lb = hmat_lb
        self.hmat_cache = hmat_cache  # [(node, size_mib)] memory-side caches
        self.offline_cpus = list(offline_cpus)  # taken offline in the guest before the checks
        self.taskset = taskset  # CPU list numascope runs under (busybox taskset -c), or None

    @property
    def cpus(self):
        return sorted(c for n in self.nodes for c in n.cpus)

    def node(self, node_id):
        return next(n for n in self.nodes if n.id == node_id)

    def memory_nodes(self):
        return [n.id for n in self.nodes if n.has_memory]

    def allowed_cpus(self):
        """CPUs numascope is expected to be allowed on, per the taskset list."""
        if self.taskset is None:
            return self.cpus
        return parse_list(self.taskset)

    def hmat_initiators(self):
        """Expected access0 initiators per target node: the initiators with the lowest
        latency to it (the kernel keeps the best-performing ones)."""
        if not self.hmat_lb:
            return {}
        best = {}
        for (ini, tgt), (lat, _bw) in self.hmat_lb.items():
            best.setdefault(tgt, []).append((lat, ini))
        out = {}
        for tgt, pairs in best.items():
            lowest = min(lat for lat, _ in pairs)
            out[tgt] = sorted(ini for lat, ini in pairs if lat == lowest)
        return out

    def qemu_args(self):
        total = sum(n.mem_mib for n in self.nodes)
        a = ["-accel", "tcg", "-cpu", "max", "-m", f"{total}M",
             "-smp", f"{len(self.cpus)},sockets={self.sockets},cores={self.cores},threads=1"]
        if self.hmat_lb:
            a += ["-machine", "hmat=on"]
        for n in self.nodes:
            if n.has_memory:
                a += ["-object", f"memory-backend-ram,id=m{n.id},size={n.mem_mib}M"]
        for n in self.nodes:
            spec = f"node,nodeid={n.id}"
            if n.cpus:
                spec += f",cpus={n.cpus[0]}-{n.cpus[-1]}"
            if n.has_memory:
                spec += f",memdev=m{n.id}"
            if n.initiator is not None:
                spec += f",initiator={n.initiator}"
            a += ["-numa", spec]
        ids = [n.id for n in self.nodes]
        for i, src in enumerate(ids):
            for j, dst in enumerate(ids):
                if i != j:
                    a += ["-numa", f"dist,src={src},dst={dst},val={self.distances[i][j]}"]
        for (ini, tgt), (lat, bw) in sorted((self.hmat_lb or {}).items()):
            a += ["-numa", f"hmat-lb,initiator={ini},target={tgt},hierarchy=memory,"
                           f"data-type=access-latency,latency={lat}"]
            a += ["-numa", f"hmat-lb,initiator={ini},target={tgt},hierarchy=memory,"
                           f"data-type=access-bandwidth,bandwidth={bw}G"]
        for node, size_mib in self.hmat_cache or []:
            a += ["-numa", f"hmat-cache,node-id={node},size={size_mib}M,level=1,"
                           "associativity=direct,policy=write-back,line=64"]
        return a


def parse_list(text):
    """`0-3,6` -> [0, 1, 2, 3, 6]."""
    out = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            out += range(int(lo), int(hi) + 1)
        elif part:
            out.append(int(part))
    return sorted(out)


SHAPES = {
    "A": Shape(
        "A",
        "2 CPU nodes + 1 memory-only node, SLIT and HMAT, kernel 6.12",
        kernel="backports", sockets=2, cores=2,
        nodes=[Node(0, [0, 1], 512), Node(1, [2, 3], 384), Node(2, [], 192, initiator=0)],
        distances=[[10, 21, 30],
                   [21, 10, 30],
                   [30, 30, 10]],
        # latency ns, bandwidth GB/s for every initiator/target pair
        hmat_lb={(0, 0): (80, 200), (0, 1): (130, 100), (0, 2): (200, 50),
                 (1, 0): (130, 100), (1, 1): (80, 200), (1, 2): (250, 40)},
        hmat_cache=[(2, 16)],
    ),
    "B": Shape(
        "B",
        "4 nodes, asymmetric SLIT, node 3 with CPUs and no memory, CPU 5 offline, "
        "numascope under taskset -c 0-3,5,6; kernel 6.12",
        kernel="backports", sockets=4, cores=2,
        nodes=[Node(0, [0, 1], 256), Node(1, [2, 3], 256), Node(2, [4, 5], 256),
               Node(3, [6, 7], 0)],
        distances=[[10, 16, 22, 28],
                   [20, 10, 16, 22],
                   [26, 20, 10, 16],
                   [32, 26, 20, 10]],
        offline_cpus=[5],
        taskset="0-3,5,6",
    ),
    "C": Shape(
        "C",
        "stock bookworm kernel 6.1, 2 nodes: weighted interleave must be refused",
        kernel="stock", sockets=2, cores=2,
        nodes=[Node(0, [0, 1], 256), Node(1, [2, 3], 256)],
        distances=[[10, 20],
                   [20, 10]],
    ),
}


def main(argv):
    if len(argv) >= 2 and argv[1] == "list":
        for s in SHAPES.values():
            print(f"{s.name}\t{s.summary}")
        return 0
    if len(argv) != 3 or argv[1] not in ("qemu-args", "kernel", "taskset", "offline") \
            or argv[2] not in SHAPES:
        print(f"usage: {argv[0]} list | qemu-args|kernel|taskset|offline {'|'.join(SHAPES)}",
              file=sys.stderr)
        return 2
    shape = SHAPES[argv[2]]
    if argv[1] == "qemu-args":
        print("\n".join(shape.qemu_args()))
    elif argv[1] == "kernel":
        print(shape.kernel)
    elif argv[1] == "taskset":
        print(shape.taskset or "")
    else:
        print(",".join(str(c) for c in shape.offline_cpus))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
