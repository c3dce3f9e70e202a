#!/usr/bin/env python3
"""Tests of check.py's judgement without booting anything: a synthetic serial log of what a
correct numascope would print in each shape must pass every check, and each kind of wrong
output (a histogram off by pages, a noisy error, a missing marker, a wrong topology) must fail
the check that guards it. Run: python3 tests/vm/test_check.py
"""

import base64
import io
import json
import os
import sys
import tarfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check  # noqa: E402
from shapes import SHAPES  # noqa: E402

MIB = 1 << 20


def facts(shape):
    """The sysfs facts a guest of this shape prints (as seen in real boots)."""
    s = SHAPES[shape]
    f = {"uptime_at_start": "9.5", "uname": "6.12.95+deb12-amd64",
         "node_online": f"0-{len(s.nodes) - 1}",
         "node_has_memory": ",".join(str(n) for n in s.memory_nodes()),
         "mems_allowed": ",".join(str(n) for n in s.memory_nodes())}
    for i, n in enumerate(s.nodes):
        f[f"node{n.id}.cpulist"] = ",".join(str(c) for c in n.cpus if c not in s.offline_cpus)
        f[f"node{n.id}.distance"] = " ".join(str(d) for d in s.distances[i])
        f[f"node{n.id}.memtotal_kb"] = str(int(n.mem_mib * 1024 * 0.8))
        f[f"node{n.id}.memfree_kb"] = str(int(n.mem_mib * 1024 * 0.7))
    for tgt, inis in s.hmat_initiators().items():
        lat = s.hmat_lb[(inis[0], tgt)][0]
        f[f"node{tgt}.access0.initiator_nodes"] = " ".join(f"node{i}" for i in inis)
        f[f"node{tgt}.access0.read_latency"] = str(lat)
        f[f"node{tgt}.access0.write_latency"] = str(lat)
    for c in s.cpus:
        f[f"cpu{c}.online"] = "0" if c in s.offline_cpus else "1"
    if s.kernel == "backports":
        f["weighted_interleave"] = " ".join(f"node{n.id}" for n in s.nodes)
        if shape == "A":
            f["run.weights_before"] = f["run.weights_after"] = "1 1 1 "
            f["memory_tier4.nodelist"] = "0-1"
            f["memory_tier45.nodelist"] = "2"
            tiering_facts(f)
    else:
        f["weighted_interleave"] = "absent"
    if s.taskset:
        f["taskset_cpus_allowed"] = s.taskset
    f["node2.memfree_kb_before_spill"] = "100000"
    f["node2.nr_hugepages_2m"] = "4"
    f["transparent_hugepage"] = "[always] madvise never"
    f["uptime_at_end"] = "20.0"
    return f


def topo(shape):
    s = SHAPES[shape]
    allowed = s.allowed_cpus()
    return {
        "schema_version": 1, "live": True, "source": "/",
        "nodes": [{"id": n.id, "cpus": list(n.cpus), "has_cpu": bool(n.cpus), "has_memory": n.has_memory,
                   "memory_total_bytes": int(n.mem_mib * 1024 * 0.8) * 1024,
                   "memory_free_bytes": 1, "hugepages": []} for n in s.nodes],
        "distances": [list(row) for row in s.distances],
        "cpus": [{"id": c, "node": next(n.id for n in s.nodes if c in n.cpus), "online":
                  c not in s.offline_cpus, "allowed": c in allowed, "package": 0, "core": 0,
                  "siblings": [c]} for c in s.cpus],
        "caches": [],
        "hmat": [{"node": t, "access_class": 0, "initiators": i,
                  "read_latency_ns": s.hmat_lb[(i[0], t)][0],
                  "write_latency_ns": s.hmat_lb[(i[0], t)][0],
                  "read_bandwidth_mb_s": None, "write_bandwidth_mb_s": None}
                 for t, i in sorted(s.hmat_initiators().items())],
        "memory_side_caches": [{"node": n, "level": 1, "size_bytes": m * MIB, "line_bytes": 64,
                                "indexing": 0, "write_policy": 0} for n, m in s.hmat_cache or []],
        "allowed_cpus": allowed,
        "allowed_nodes": s.memory_nodes(),
        "environment": {},
        "node_memory": [{"node": n, "tier": {"A": {0: 4, 1: 4, 2: 45}}.get(shape, {}).get(n)}
                        for n in s.memory_nodes()],
    }


def placement(hist, intended, cpu=None, size=8 * MIB):
    pages = size // 4096
    on = sum(p for n, p in hist.items() if n in intended)
    return {"schema_version": 1, "policy": "x", "nodes": intended, "weights": None, "cpu": cpu,
            "ran_on_cpu": cpu if cpu is not None else 0,
            "report": {"size_bytes": size, "page_size": "4k", "pages": pages,
                       "histogram": [{"node": n, "pages": p} for n, p in sorted(hist.items())],
                       "not_present": 0, "intended_nodes": intended,
                       "fraction_on_intended": on / pages, "huge_bytes": 0, "huge_fraction": 0.0},
            "matches": on == pages, "verdict": "ok"}


def capture_tar(shape):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        files = [(f"./sys/devices/system/node/node{n.id}/distance", b"10\n")
                 for n in SHAPES[shape].nodes]
        if shape == "A":
            files += [("./sys/devices/virtual/memory_tiering/memory_tier4/nodelist", b"0-1\n"),
                      ("./sys/devices/virtual/memory_tiering/memory_tier45/nodelist", b"2\n")]
        for name, data in files:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        for name, target in (("./sys/devices/system/cpu/cpu1/node0", "../../node/node0"),
                             ("./sys/devices/system/cpu/cpu1/evil", "../../../../../../etc"),
                             ("./sys/devices/system/cpu/cpu1/abs", "/etc")):
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            t.addfile(info)
    return base64.b64encode(buf.getvalue()).decode()


class Log:
    """Builds a serial log the way guest-checks.sh prints it (CRLF, like the console)."""

    def __init__(self, shape):
        self.shape = shape
        self.lines = [f"NSGUEST-BEGIN {shape}"]
        self.blocks = {}
        self.files = {}  # NSFILE name -> base64 text, besides the capture

    def file(self, name, b64):
        self.files[name] = b64
        return self

    def block(self, name, out="", err="", rc=0):
        self.blocks[name] = (out if isinstance(out, str) else json.dumps(out, indent=2), err, rc)
        return self

    def text(self, facts_=None, end=True, drop=()):
        lines = list(self.lines)
        for k, v in (facts_ or facts(self.shape)).items():
            lines.append(f"NSFACT {self.shape} {k} {v}")
        for name, (out, err, rc) in self.blocks.items():
            if name in drop:
                continue
            lines += [f"NSBLOCK-BEGIN {self.shape} {name}", "NSSTDOUT", out, "",
                      "NSSTDERR", err, "", f"NSBLOCK-END {self.shape} {name} rc={rc} secs=0.25"]
        lines += [f"NSFILE-BEGIN {self.shape} capture", capture_tar(self.shape),
                  f"NSFILE-END {self.shape} capture"]
        for name, b64 in self.files.items():
            if name not in drop:
                lines += [f"NSFILE-BEGIN {self.shape} {name}", b64, f"NSFILE-END {self.shape} {name}"]
        if end:
            lines.append(f"NSCHECK-END {self.shape}")
        return "\r\n".join(lines) + "\r\n"


def latency_matrix(shape, leak=None, skip=None):
    """A `latency --matrix --json` a correct numascope prints in this shape."""
    s = SHAPES[shape]
    best = s.hmat_initiators()
    cells = []
    for i in [n.id for n in s.nodes if n.cpus]:
        for m in s.memory_nodes():
            if (i, m) == skip:
                continue
            cells.append({
                "initiator_node": i, "memory_node": m,
                "result": {"cpu": s.node(i).cpus[0], "memory_node": m,
                           "placement_fraction": 0.99 if (i, m) == leak else 1.0,
                           "ns_per_load": {"median": 90.0, "min": 80.0, "max": 99.0,
                                           "p90": 95.0, "p99": 99.0, "samples": 6},
                           "blocks": {"blocks": 6, "samples_per_block": 3}},
                "slit_distance": s.distances[i][m],
                "hmat_read_latency_ns": s.hmat_lb[(i, m)][0] if i in best.get(m, []) else None,
                "measured_ratio": 1.0 if i == m else 1.3,
                "measured_ratio_interval": {"ratio": 1.0, "ci_low": 1.0, "ci_high": 1.0, "pairs": 6}
                if i == m else {"ratio": 1.3, "ci_low": 1.25, "ci_high": 1.35, "pairs": 6},
            })
    return {"schema_version": 1, "matrix": {"working_set_bytes": 8 * MIB, "cells": cells}}


def bandwidth_matrix(shape, leak=None):
    """A `bandwidth --matrix --json` a correct numascope prints in this shape."""
    s = SHAPES[shape]
    cells = [{"initiator": i, "target": m, "threads": len(s.node(i).cpus),
              "mb_per_s": 1000.0,
              "placement_fraction": 0.98 if (i, m) == leak else 1.0}
             for i in [n.id for n in s.nodes if n.cpus] for m in s.memory_nodes()]
    return {"schema_version": 1, "matrix": [{"kernel": "read", "cells": cells}]}


def bandwidth_scaling(shape, leak=False):
    """A `bandwidth --scaling --json` a correct numascope prints in this shape."""
    s = SHAPES[shape]
    series, results = [], []
    for n in (n for n in s.nodes if n.cpus):
        pts = [{"threads": t, "cpus": n.cpus[:t], "mb_per_s": 1000.0 * t} for t in range(1, len(n.cpus) + 1)]
        series.append({"mode": "packed", "node": n.id, "points": pts})
        results += [{"placement_fraction": 1.0} for _ in pts]
    if leak:
        results[0]["placement_fraction"] = 0.9
    return {"schema_version": 1, "results": results, "scaling": [{"kernel": "read", "series": series}]}


def c2c_result(line_node=1):
    pair = lambda a, b: {"from": a, "to": b, "ns_one_way": {"median": 80.0, "p99": 120.0}}
    return {"schema_version": 1, "line_node": line_node, "placement_fraction": 1.0,
            "pairs": [pair(0, 2), pair(2, 0)]}


def loaded_result(fraction=1.0):
    return {"schema_version": 1, "chaser_cpu": 0, "load_cpus": [2], "mem_node": 1, "load_mem_node": 1,
            "chaser_placement": {"intended_nodes": [1], "fraction_on_intended": fraction},
            "load_placement_fraction": 1.0, "points": [{}, {}, {}]}


def app_stream(leak=False):
    """A `numascope app --json` a correct numascope prints in shape A for the streaming
    program under bind:0, bind:1 and interleave."""
    def cand(cid, anon, cpus):
        return {"id": cid, "same_as": None, "runs": [{"round": 0, "exit_code": 0}],
                "observed": {"samples": 12, "thread_cpus": cpus, "overriding": None,
                             "kinds": [{"kind": "anon", "bytes": sum(anon.values()),
                                        "nodes": [{"node": n, "bytes": b} for n, b in anon.items()]},
                                       {"kind": "file", "bytes": MIB,
                                        "nodes": [{"node": 0, "bytes": MIB}]}]}}
    on1 = {1: 9 * MIB, 0: 4096} if leak else {1: 9 * MIB}
    return {"schema_version": 1, "candidates": [
        cand("bind:0", {0: 9 * MIB}, [0, 1]),
        cand("bind:1", on1, [2]),
        cand("interleave", {0: 3 * MIB, 1: 3 * MIB, 2: 3 * MIB}, [1])]}


def app_tiering(demote=False, promoted=3000, damon=True):
    """An `app --tiering --json` a correct numascope prints in shape A: the default candidate
    and the three kernel-managed ones, with their settings, counters and a timeline."""
    def cand(cid, settings, counters):
        return {"id": cid, "same_as": None, "unavailable": None,
                "runs": [{"round": 0, "warmup": False, "exit_code": 0}],
                "kernel": {"mode": cid, "settings": [{"file": f, "value": v, "was": w} for f, v, w in settings],
                           "runs": [{"round": 0, "warmup": False, "counters": counters}],
                           "timeline": [{"sample": 0, "pages": [[2, 4096]]},
                                        {"sample": 1, "pages": [[0, 2000], [2, 2096]]}]}}
    nb = "/proc/sys/kernel/numa_balancing"
    dem = "/sys/kernel/mm/numa/demotion_enabled"
    k = "/sys/kernel/mm/damon/admin/kdamonds"
    tier_counters = [["pgdemote_kswapd", 5000 if demote else 0], ["numa_hint_faults", 4000]] + \
        ([] if demote else [["pgpromote_success", promoted]])
    out = [{"id": "default", "same_as": None, "runs": [{"round": 0, "exit_code": 0}]},
           cand("kernel:numa-balancing", [(nb, "1", "0")], [["numa_hint_faults", 3000], ["numa_pages_migrated", 2500]]),
           cand("kernel:tiering", [(dem, "true", "false"), (nb, "2", "0")], tier_counters)]
    if damon:
        out.append(cand("kernel:damon", [(f"{k}/nr_kdamonds", "1", "0"), (f"{k}/0/state", "on", "off")],
                        [["pgmigrate_success", 100]]))
    return {"schema_version": 1, "candidates": out}


def tiering_facts(f, after=None):
    """The knob facts around app --tiering; `after` overrides the values seen after it."""
    knobs = {"numa_balancing": "0", "demotion_enabled": "false", "nr_kdamonds": "0"}
    for k, v in knobs.items():
        f[f"tiering.before.{k}"] = v
        for phase in ("after_promote", "after_demote"):
            f[f"tiering.{phase}.{k}"] = (after or {}).get(k, v)
    f["damon_sysfs"] = "present"
    f["tiering.node0_free_kb"] = "300000"
    f["tiering.pressure_mib"] = "356"
    return f


RUN_PARTS = ["topology", "latency", "latency-matrix", "bandwidth", "bandwidth-matrix", "scaling",
             "loaded-latency", "c2c", "scenarios", "advisor"]
RUN_SUMMARY = "(none) | QEMU | 3 NUMA node(s)\n  latency ... ns\n"


def pages(hist):
    return [{"node": n, "pages": p} for n, p in sorted(hist.items())]


def run_results(weighted=True):
    """The results.json a correct `numascope run` writes in shape A with the guest-sized
    budget: 16 MiB over all threads (at least 16 MiB = 4096 pages a thread)."""
    def row(letter, cpus, hist, pinned=True, same_as=None, unavailable=None):
        return {"letter": letter, "cpus": cpus, "pinned": pinned, "threads": max(1, len(cpus)),
                "mb_per_s": None if unavailable else {"median": 900.0},
                "placement_fraction": None if unavailable else 1.0,
                "unavailable": unavailable, "same_as": same_as,
                "pages_per_node": [] if unavailable else pages(hist)}
    every = [0, 1, 2, 3]
    g = row("g", every, {0: 3277, 1: 5898, 2: 7209}) if weighted else \
        row("g", every, {}, unavailable="weighted interleave needs Linux 6.9 or newer")
    h = row("h", every, {0: 6554, 1: 6554, 2: 3276}) if weighted else \
        row("h", every, {}, unavailable="weighted interleave needs Linux 6.9 or newer")
    h["policy"] = "weighted interleave 0:2,1:2,2:1"
    kinds = [{"node": 0, "kind": "dram", "tier": 4}, {"node": 1, "kind": "dram", "tier": 4},
             {"node": 2, "kind": "dram", "tier": 22}]
    curve = {"chaser_cpu": 0, "load_cpus": [1, 2, 3], "load_placement_fraction": 1.0,
             "mem_node": 0, "points": [{}] * 9,
             "chaser_placement": {"intended_nodes": [0], "fraction_on_intended": 1.0}}
    node2 = dict(curve, mem_node=2,
                 chaser_placement={"intended_nodes": [2], "fraction_on_intended": 1.0})
    adv_checks = [
        {"policy": "bind to node 1", "mb_per_s": 2000.0, "unavailable": None,
         "pages_per_node": pages({1: 8192})},
        {"policy": "interleave 0-2", "mb_per_s": 1100.0, "unavailable": None,
         "pages_per_node": pages({0: 2731, 1: 2731, 2: 2730})},
        {"policy": "weighted interleave 0:3,1:10,2:8", "mb_per_s": 1200.0 if weighted else None,
         "unavailable": None if weighted else "weighted interleave needs Linux 6.9 or newer",
         "pages_per_node": pages({0: 1170, 1: 3901, 2: 3121}) if weighted else []},
    ]
    return {
        "partial": False, "failed": [], "completed": list(RUN_PARTS),
        "plan": {"parts": [{"part": p, "detail": "8 load-delay steps, one chasing thread"
                            if p == "loaded-latency" else "x"} for p in RUN_PARTS]},
        "latency": {"matrix": latency_matrix("A")["matrix"]},
        "bandwidth": {"results": [{"kernel": "read", "placement_fraction": 1.0}],
                      "matrix": bandwidth_matrix("A")["matrix"]},
        "scaling": bandwidth_scaling("A"),
        "topology": {"node_memory": kinds},
        "loaded_latency": curve,
        "loaded_latency_kinds": [{"kind": "dram", "node": 2, "curve": node2}],
        "c2c": c2c_result(0),
        "scenarios": {"home_node": 0, "weights": [[0, 5], [1, 9], [2, 11]] if weighted else [],
                      "scenarios": [dict(row("a", [0, 1], {0: 4096}), threads=1),
                                    row("b", [], {0: 4096}, pinned=False),
                                    row("c", [0, 2], {0: 4096, 1: 4096}),
                                    row("d", every, {0: 16384}), row("e", every, {0: 8192, 1: 8192}),
                                    row("f", every, {0: 5461, 1: 5461, 2: 5462}), g, h],
                      "auto_weights": [[0, 2], [1, 2], [2, 1]] if weighted else []},
        "advisor": {"initiator_node": 0, "measured_mb_per_s": [[0, 500.0], [1, 1600.0], [2, 1300.0]],
                    "weights": [[0, 3], [1, 10], [2, 8]], "checks": adv_checks},
    }


def run_tar(res, summary=RUN_SUMMARY, leave_out=()):
    """base64 of the tar.gz of a run's output directory holding `res` as results.json."""
    files = {"results.json": json.dumps(res).encode(), "summary.txt": summary.encode(),
             "report.html": b"<!DOCTYPE html><html><body>report</body></html>"}
    for name in ("latency_sweep.csv", "latency_matrix.csv", "bandwidth.csv", "bandwidth_matrix.csv",
                 "scaling.csv", "loaded_latency.csv", "scenarios.csv", "recommendations.csv"):
        files[name] = b"a,b\n1,2\n"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for name, data in files.items():
            if name in leave_out:
                continue
            info = tarfile.TarInfo(f"./{name}")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return base64.b64encode(buf.getvalue()).decode()


def with_run(L, res=None, rc=0, summary=RUN_SUMMARY, leave_out=()):
    res = run_results() if res is None else res
    return L.block("run", summary, "", rc).file("run-output", run_tar(res, summary, leave_out))


def good_a():
    L = Log("A").block("topo", topo("A")).block("capture")
    for n in (0, 1, 2):
        L.block(f"bind-node{n}", placement({n: 2048}, [n]))
    L.block("interleave", placement({0: 683, 1: 683, 2: 682}, [0, 1, 2]))
    L.block("weighted", placement({0: 1536, 1: 512}, [0, 1]))
    L.block("preferred", placement({2: 2048}, [2]))
    L.block("preferred-many", placement({1: 10, 2: 2038}, [1, 2]))
    spill = (100000 + 32768) * 1024
    L.block("preferred-spill", placement({2: 24000, 0: spill // 4096 - 24000}, [2], size=spill))
    L.block("bind-too-big", "", "numascope: error: 129 MiB does not fit in the 97 MiB free on "
            "node 2; use a smaller --size", 2)
    L.block("pinned-cpu1", placement({0: 1024}, [0], cpu=1, size=4 * MIB))
    thp = placement({2: 2048}, [2])
    thp["report"].update(huge_bytes=8 * MIB, huge_fraction=1.0)
    L.block("thp-node2", thp).block("hugetlb-2m-node2", thp)
    L.block("hugetlb-unreserved", "", "numascope: error: 2m needs 2 free 2 MiB huge pages on "
            "node(s) 1 but 0 are free; reserve them with `echo 2 | sudo tee ...`", 2)
    L.block("inspect-bound-node2", {"pid": 99, "nodes": [{"node": 2, "pages": 4096,
                                                          "bytes": 16 * MIB}]})
    L.block("latency-matrix", latency_matrix("A"))
    L.block("bandwidth-matrix", bandwidth_matrix("A"))
    L.block("bandwidth-scaling", bandwidth_scaling("A"))
    L.block("app-stream", app_stream())
    L.block("app-tiering-promote", app_tiering())
    L.block("app-tiering-demote", app_tiering(demote=True))
    return with_run(L)


def good_b():
    L = Log("B").block("topo", topo("B")).block("capture")
    for n in (0, 1, 2):
        L.block(f"bind-node{n}", placement({n: 2048}, [n]))
    L.block("interleave", placement({0: 683, 1: 682, 2: 683}, [0, 1, 2]))
    L.block("weighted", placement({0: 1536, 1: 512}, [0, 1]))
    L.block("first-touch-cpu2", placement({1: 1024}, [1], cpu=2, size=4 * MIB))
    L.block("pinned-cpu6", placement({0: 1024}, [0], cpu=6, size=4 * MIB))
    L.block("err-memoryless-node3", "", "numascope: error: node 3 has no memory; bind to 0-2", 2)
    L.block("err-cpu-not-allowed", "", "numascope: error: CPU 4 is not in the allowed set 0-3,5-6", 2)
    L.block("err-cpu-offline", "", "numascope: error: CPU 5 is offline; pick an online CPU", 2)
    L.block("inspect-bound-node2", {"pid": 9, "nodes": [{"node": 2, "bytes": 17 * MIB}]})
    L.block("c2c", c2c_result())
    L.block("loaded-latency", loaded_result())
    return L


def good_c():
    L = Log("C").block("topo", topo("C")).block("capture")
    for n in (0, 1):
        L.block(f"bind-node{n}", placement({n: 2048}, [n]))
    L.block("interleave", placement({0: 1024, 1: 1024}, [0, 1]))
    L.block("weighted", "", "numascope: error: weighted interleave needs Linux 6.9 or newer; "
            "this kernel is 6.1", 2)
    L.block("pinned-cpu3", placement({0: 1024}, [0], cpu=3, size=4 * MIB))
    L.block("inspect-bound-node1", {"pid": 9, "nodes": [{"node": 1, "bytes": 16 * MIB}]})
    return L


def judge(shape, text, *extra):
    opts = check.parser().parse_args(["--shape", shape, "--log", "-", *extra])
    report, _ = check.judge(text, opts, quiet=True)
    return report


def fails(report):
    return {k: d for k, (st, d) in report.results.items() if st == "FAIL"}


class GoodLogs(unittest.TestCase):
    def test_a_passes(self):
        r = judge("A", good_a().text())
        self.assertEqual(fails(r), {})
        self.assertGreater(r.counts["PASS"], 20)

    def test_b_passes(self):
        self.assertEqual(fails(judge("B", good_b().text())), {})

    def test_c_passes(self):
        self.assertEqual(fails(judge("C", good_c().text(), "--expect-weighted-refused")), {})

    def test_save_fixtures_unpacks_capture(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            dest = os.path.join(d, "guest-A")
            r = judge("A", good_a().text(), "--save-fixtures", dest)
            self.assertEqual(fails(r), {})
            with open(os.path.join(dest, "sys/devices/system/node/node2/distance")) as fh:
                self.assertEqual(fh.read(), "10\n")
            cpu1 = os.path.join(dest, "sys/devices/system/cpu/cpu1")
            self.assertEqual(os.readlink(os.path.join(cpu1, "node0")), "../../node/node0")
            self.assertFalse(os.path.lexists(os.path.join(cpu1, "evil")))
            self.assertFalse(os.path.lexists(os.path.join(cpu1, "abs")))

    def fake_numascope(self, d, topo_json):
        """A stand-in binary for the host-side replay: prints the given topology."""
        path = os.path.join(d, "fake-numascope")
        with open(os.path.join(d, "topo.json"), "w") as fh:
            json.dump(topo_json, fh)
        with open(path, "w") as fh:
            fh.write(f"#!/bin/sh\ncat '{d}/topo.json'\n")
        os.chmod(path, 0o755)
        return path

    def test_save_fixtures_writes_expectation_when_replay_matches(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            replay = topo("A")
            replay["live"], replay["source"] = False, "/somewhere"
            dest = os.path.join(d, "guest-A")
            r = judge("A", good_a().text(), "--save-fixtures", dest,
                      "--numascope", self.fake_numascope(d, replay))
            self.assertEqual(fails(r), {})
            with open(dest + ".expected.json") as fh:
                self.assertEqual(json.load(fh)["source"], "<snapshot>")

    def test_no_expectation_when_replay_differs(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            replay = topo("A")
            replay["cpus"][1]["node"] = None  # a capture that lost a node link
            dest = os.path.join(d, "guest-A")
            r = judge("A", good_a().text(), "--save-fixtures", dest,
                      "--numascope", self.fake_numascope(d, replay))
            self.assertIn("capture-replay", fails(r))
            self.assertTrue(os.path.isdir(dest))
            self.assertFalse(os.path.exists(dest + ".expected.json"))

    def test_fallback_kernel_skips_weighted(self):
        f = facts("A")
        f["weighted_interleave"] = "absent"
        L = with_run(good_a(), run_results(weighted=False))
        r = judge("A", L.text(f), "--no-weighted", "no 6.12 kernel")
        self.assertEqual(fails(r), {})
        self.assertEqual(r.results["weighted-3:1"][0], "SKIP")
        # A kernel with weighted interleave must measure (g) and the advisor's check.
        self.assertIn("run-scenarios", fails(judge("A", L.text())))


class BadRuns(unittest.TestCase):
    """`numascope run` in shape A: each kind of wrong run fails the check that guards it."""

    def bad(self, mutate, check_name, **kw):
        res = run_results()
        mutate(res)
        self.assertIn(check_name, fails(judge("A", with_run(good_a(), res, **kw).text())))

    def test_partial_run_fails(self):
        def m(res):
            res["partial"] = True
            res["failed"] = [{"part": "c2c", "error": "no round trip"}]
            res["completed"].remove("c2c")
        self.bad(m, "run-exit", rc=4)
        self.bad(m, "run-c2c", rc=4)

    def test_missing_output_fails(self):
        L = good_a()
        self.assertIn("run-exit", fails(judge("A", L.text(drop=("run-output",)))))

    def test_missing_csv_or_other_summary_fails(self):
        L = with_run(good_a(), leave_out=("scaling.csv",))
        self.assertIn("run-files", fails(judge("A", L.text())))
        L = with_run(good_a())
        L.block("run", "another summary\n")
        self.assertIn("run-files", fails(judge("A", L.text())))

    def test_matrix_cell_missing_or_off_node_fails(self):
        self.bad(lambda r: r["latency"]["matrix"]["cells"].pop(), "run-latency-matrix")
        # A remote cell without its paired ratio to local.
        self.bad(lambda r: r["latency"]["matrix"]["cells"][1].pop("measured_ratio_interval"),
                 "run-latency-matrix")
        self.bad(lambda r: r["bandwidth"]["matrix"][0]["cells"][5].update(placement_fraction=0.99),
                 "run-bandwidth-matrix")

    def rows(self, res):
        return {r["letter"]: r for r in res["scenarios"]["scenarios"]}

    def test_weighted_pages_not_in_the_weights_proportion_fail(self):
        # Off by more than one weight per buffer (4 buffers x weight 5 = 20 pages).
        self.bad(lambda r: self.rows(r)["g"].update(pages_per_node=pages({0: 3300, 1: 5875, 2: 7209})),
                 "run-scenarios")
        # Plain interleave where weighted was asked.
        self.bad(lambda r: r["advisor"]["checks"][2].update(
            pages_per_node=pages({0: 2731, 1: 2731, 2: 2730})), "run-advisor")

    def test_weighted_pages_within_rounding_pass(self):
        res = run_results()
        self.rows(res)["g"]["pages_per_node"] = pages({0: 3290, 1: 5885, 2: 7209})
        self.assertNotIn("run-scenarios", fails(judge("A", with_run(good_a(), res).text())))

    def test_scenario_threads_on_one_node_or_pages_elsewhere_fail(self):
        self.bad(lambda r: self.rows(r)["e"].update(cpus=[0, 1]), "run-scenarios")
        # (a)'s one thread bound to only part of its node, or to another node's CPUs.
        self.bad(lambda r: self.rows(r)["a"].update(cpus=[0]), "run-scenarios")
        self.bad(lambda r: self.rows(r)["a"].update(cpus=[2, 3]), "run-scenarios")
        self.bad(lambda r: self.rows(r)["c"].update(pages_per_node=pages({0: 8192})), "run-scenarios")
        self.bad(lambda r: self.rows(r)["d"].update(pages_per_node=pages({0: 16000, 2: 384})),
                 "run-scenarios")
        self.bad(lambda r: self.rows(r)["f"].update(placement_fraction=0.98), "run-scenarios")

    def test_auto_weights_row_missing_or_misplaced_fails(self):
        self.bad(lambda r: r["scenarios"]["scenarios"].pop(), "run-auto-weights")
        self.bad(lambda r: self.rows(r)["h"].update(pages_per_node=pages({0: 5461, 1: 5461, 2: 5462})),
                 "run-auto-weights")
        self.bad(lambda r: self.rows(r)["h"].update(mb_per_s=None, unavailable="x"),
                 "run-auto-weights")
        # Placed as (g) here: it names the row instead of its own pages.
        res = run_results()
        self.rows(res)["h"].update(same_as="all-weighted-interleave", pages_per_node=[])
        self.assertNotIn("run-auto-weights", fails(judge("A", with_run(good_a(), res).text())))

    def test_loaded_curve_per_tier_missing_or_off_node_fails(self):
        self.bad(lambda r: r.pop("loaded_latency_kinds"), "run-loaded-kinds")
        self.bad(lambda r: r["loaded_latency_kinds"][0]["curve"].update(load_placement_fraction=0.5),
                 "run-loaded-kinds")
        # A node of the home node's kind and tier gets no curve of its own.
        self.bad(lambda r: r["loaded_latency_kinds"].append({"node": 1, "curve": r["loaded_latency"]}),
                 "run-loaded-kinds")

    def test_loaded_latency_off_node_fails(self):
        self.bad(lambda r: r["loaded_latency"].update(load_placement_fraction=0.5), "run-loaded-latency")

    def test_weights_not_restored_fails(self):
        f = facts("A")
        f["run.weights_after"] = "5 9 11 "
        self.assertIn("run-weights-restored", fails(judge("A", good_a().text(f))))


class BadLogs(unittest.TestCase):
    def test_missing_end_marker_fails(self):
        self.assertIn("guest-finished", fails(judge("A", good_a().text(end=False))))

    def test_missing_block_fails(self):
        self.assertIn("inspect-node2", fails(judge("A", good_a().text(drop=("inspect-bound-node2",)))))

    def test_empty_log_fails(self):
        self.assertIn("guest-started", fails(judge("A", "")))

    def test_interleave_two_pages_off_fails(self):
        L = good_a().block("interleave", placement({0: 685, 1: 681, 2: 682}, [0, 1, 2]))
        self.assertIn("interleave-3", fails(judge("A", L.text())))

    def test_weighted_off_by_two_percent_fails(self):
        L = good_a().block("weighted", placement({0: 1577, 1: 471}, [0, 1]))
        self.assertIn("weighted-3:1", fails(judge("A", L.text())))

    def test_latency_matrix_without_memory_only_target_fails(self):
        L = good_a().block("bandwidth-matrix", bandwidth_matrix("A", leak=(1, 2)))
        self.assertIn("bandwidth-matrix", fails(judge("A", L.text())))
        L = good_a().block("bandwidth-scaling", bandwidth_scaling("A", leak=True))
        self.assertIn("bandwidth-scaling", fails(judge("A", L.text())))
        L = good_b().block("c2c", c2c_result(line_node=0))
        self.assertIn("c2c", fails(judge("B", L.text())))
        L = good_b().block("loaded-latency", loaded_result(fraction=0.5))
        self.assertIn("loaded-latency", fails(judge("B", L.text())))
        L = good_a().block("latency-matrix", latency_matrix("A", skip=(1, 2)))
        self.assertIn("latency-matrix", fails(judge("A", L.text())))

    def test_latency_matrix_without_paired_ratio_fails(self):
        j = latency_matrix("A")
        del j["matrix"]["cells"][1]["measured_ratio_interval"]
        L = good_a().block("latency-matrix", j)
        self.assertIn("latency-matrix", fails(judge("A", L.text())))
        j = latency_matrix("A")
        j["matrix"]["cells"][0]["result"]["blocks"]["blocks"] = 5
        L = good_a().block("latency-matrix", j)
        self.assertIn("latency-matrix", fails(judge("A", L.text())))

    def test_latency_matrix_cell_off_node_fails(self):
        L = good_a().block("latency-matrix", latency_matrix("A", leak=(0, 2)))
        self.assertIn("latency-matrix", fails(judge("A", L.text())))

    def test_app_page_off_node_fails(self):
        L = good_a().block("app-stream", app_stream(leak=True))
        self.assertIn("app-stream", fails(judge("A", L.text())))

    def test_app_candidates_merged_or_threads_elsewhere_fail(self):
        j = app_stream()
        j["candidates"][1]["same_as"] = "bind:0"
        self.assertIn("app-stream", fails(judge("A", good_a().block("app-stream", j).text())))
        j = app_stream()
        j["candidates"][0]["observed"]["thread_cpus"] = [2]
        self.assertIn("app-stream", fails(judge("A", good_a().block("app-stream", j).text())))
        j = app_stream()
        j["candidates"][2]["observed"]["kinds"][0]["nodes"] = [{"node": 0, "bytes": 9 * MIB}]
        self.assertIn("app-stream", fails(judge("A", good_a().block("app-stream", j).text())))

    def test_tiering_without_promotion_or_restore_fails(self):
        L = good_a().block("app-tiering-promote", app_tiering(promoted=0))
        self.assertIn("tiering-promotes", fails(judge("A", L.text())))
        f = tiering_facts(facts("A"), after={"numa_balancing": "2"})
        r = fails(judge("A", good_a().text(f)))
        self.assertIn("tiering-restored-after_promote", r)
        L = good_a().block("app-tiering-demote", app_tiering())
        self.assertIn("tiering-demotes", fails(judge("A", L.text())))
        L = good_a().block("app-tiering-promote", app_tiering(damon=False))
        self.assertIn("damon-created-removed", fails(judge("A", L.text())))

    def test_tiering_skips_on_a_one_tier_kernel(self):
        f = facts("A")
        del f["memory_tier45.nodelist"]
        f["memory_tier4.nodelist"] = "0-2"
        j = app_tiering()
        j["candidates"][2]["unavailable"] = "this kernel puts all memory in tier 4"
        r = judge("A", good_a().block("app-tiering-promote", j).text(f))
        self.assertNotIn("tiering-promotes", fails(r))

    def test_bind_leak_fails(self):
        L = good_a().block("bind-node2", placement({2: 2047, 0: 1}, [2]))
        self.assertIn("bind-node2", fails(judge("A", L.text())))

    def test_pinned_elsewhere_fails(self):
        p = placement({0: 1024}, [0], cpu=1, size=4 * MIB)
        p["ran_on_cpu"] = 0
        self.assertIn("pinned-cpu1", fails(judge("A", good_a().block("pinned-cpu1", p).text())))

    def test_error_with_usage_text_fails(self):
        L = good_b().block("err-cpu-offline", "", "numascope: error: CPU 5 is offline\nUsage: x", 2)
        self.assertIn("err-cpu-offline", fails(judge("B", L.text())))

    def test_error_success_fails(self):
        L = good_b().block("err-memoryless-node3", placement({0: 2048}, [0]))
        self.assertIn("err-bind-memoryless-node", fails(judge("B", L.text())))

    def test_weighted_accepted_on_old_kernel_fails(self):
        L = good_c().block("weighted", placement({0: 1536, 1: 512}, [0, 1]))
        self.assertIn("weighted-refused", fails(judge("C", L.text(), "--expect-weighted-refused")))

    def test_spill_that_did_not_fill_node2_fails(self):
        spill = (100000 + 32768) * 1024
        L = good_a().block("preferred-spill",
                           placement({2: 1000, 0: spill // 4096 - 1000}, [2], size=spill))
        self.assertIn("preferred-spill", fails(judge("A", L.text())))

    def test_thp_not_obtained_fails(self):
        p = placement({2: 2048}, [2])  # huge_fraction 0.0
        self.assertIn("thp-node2", fails(judge("A", good_a().block("thp-node2", p).text())))

    def test_inspect_on_wrong_node_fails(self):
        L = good_a().block("inspect-bound-node2", {"pid": 1, "nodes": [{"node": 0, "bytes": 16 * MIB}]})
        self.assertIn("inspect-node2", fails(judge("A", L.text())))

    def test_topo_without_the_memory_tier_fails(self):
        t = topo("A")
        t["node_memory"][2]["tier"] = None  # a snapshot or reading that lost the tiers
        self.assertIn("topo-memory-tiers", fails(judge("A", good_a().block("topo", t).text())))

    def test_topo_wrong_distance_fails(self):
        t = topo("B")
        t["distances"][0][1] = 20  # symmetrised by mistake
        self.assertIn("topo-distances", fails(judge("B", good_b().block("topo", t).text())))

    def test_topo_offline_cpu_missing_node_fails(self):
        t = topo("B")
        t["cpus"][5]["node"] = None
        self.assertIn("topo-cpus", fails(judge("B", good_b().block("topo", t).text())))

    def test_topo_wrong_hmat_initiators_fails(self):
        t = topo("A")
        t["hmat"][2]["initiators"] = [0, 1]
        self.assertIn("topo-hmat", fails(judge("A", good_a().block("topo", t).text())))

    def test_vm_shape_wrong_distance_fails(self):
        f = facts("A")
        f["node0.distance"] = "10 20 30"
        self.assertIn("vm-distances", fails(judge("A", good_a().text(f))))


if __name__ == "__main__":
    unittest.main()
