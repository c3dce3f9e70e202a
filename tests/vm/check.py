#!/usr/bin/env python3
"""Judges one QEMU guest run: parses the serial log written by tests/vm/guest-checks.sh and
asserts, on the host, that numascope's outputs match the shape the guest was booted with
(tests/vm/shapes.py) and the raw sysfs facts the guest printed.

All assertion logic lives here (stdlib only), so the guest side stays a dumb printer and a
failure always names the check, the expected value and what was seen. Every check prints one
line `NSCHECK <shape> <name> PASS|FAIL|SKIP <detail>`; a block or marker the guest should have
printed and did not is a FAIL, never a silent pass. Exit status: 0 when nothing failed.

    python3 tests/vm/check.py --shape A --log target/vm-logs/A.log --kernel 6.12.95+deb12-amd64
"""

import argparse
import base64
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shapes import SHAPES, parse_list  # noqa: E402

MIB = 1 << 20
PAGE = 4096


# ---- parsing the serial log ---------------------------------------------------------------------

class Block:
    def __init__(self, name):
        self.name = name
        self.stdout = []
        self.stderr = []
        self.rc = None
        self.secs = None  # guest seconds the command took

    @property
    def out(self):
        return "\n".join(self.stdout).strip()

    def err_lines(self):
        return [line for line in self.stderr if line.strip()]

    def first_error(self):
        lines = self.err_lines()
        return lines[0] if lines else "(no stderr)"


class Guest:
    """Everything the guest printed for one shape."""

    def __init__(self):
        self.facts = {}
        self.blocks = {}
        self.files = {}
        self.began = False
        self.ended = False
        self.errors = []


def parse_log(text, shape):
    g = Guest()
    block = None
    section = None
    file_name = None
    file_lines = []
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        words = line.split(" ", 3)
        tag = words[0]
        mine = len(words) >= 2 and words[1] == shape
        if file_name is not None:
            if tag == "NSFILE-END" and mine:
                g.files[file_name] = "".join(file_lines)
                file_name = None
            else:
                file_lines.append(line.strip())
            continue
        if block is not None:
            if tag == "NSBLOCK-END" and mine and len(words) >= 4:
                kv = dict(w.split("=", 1) for w in words[3].split() if "=" in w)
                rc = kv.get("rc", "")
                block.rc = int(rc) if rc.lstrip("-").isdigit() else None
                try:
                    block.secs = float(kv["secs"])
                except (KeyError, ValueError):
                    block.secs = None
                g.blocks[block.name] = block
                block = None
            elif line == "NSSTDOUT":
                section = block.stdout
            elif line == "NSSTDERR":
                section = block.stderr
            elif section is not None:
                section.append(line)
            continue
        if not mine:
            continue
        if tag == "NSGUEST-BEGIN":
            g.began = True
        elif tag == "NSCHECK-END":
            g.ended = True
        elif tag == "NSGUEST-ERROR":
            g.errors.append(" ".join(words[2:]))
        elif tag == "NSFACT" and len(words) >= 3:
            g.facts[words[2]] = words[3].strip() if len(words) > 3 else ""
        elif tag == "NSBLOCK-BEGIN" and len(words) >= 3:
            block = Block(words[2])
            section = None
        elif tag == "NSFILE-BEGIN" and len(words) >= 3:
            file_name = words[2]
            file_lines = []
    return g


# ---- reporting ----------------------------------------------------------------------------------

class Report:
    def __init__(self, shape, quiet=False):
        self.shape = shape
        self.quiet = quiet
        self.counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
        self.results = {}  # check name -> (status, detail)

    def emit(self, name, status, detail):
        self.counts[status] += 1
        self.results[name] = (status, detail)
        if not self.quiet:
            print(f"NSCHECK {self.shape} {name} {status} {detail}".rstrip(), flush=True)

    def note(self, text):
        if not self.quiet:
            print(f"   {text}")

    def check(self, name, ok, detail=""):
        self.emit(name, "PASS" if ok else "FAIL", detail)
        return ok

    def fail(self, name, detail):
        self.emit(name, "FAIL", detail)

    def skip(self, name, reason):
        self.emit(name, "SKIP", reason)


class Checker:
    """Shared assertion helpers over one guest's output."""

    def __init__(self, shape, guest, report, opts):
        self.s = shape
        self.g = guest
        self.r = report
        self.opts = opts

    # -- access to blocks --
    def block(self, check, name):
        b = self.g.blocks.get(name)
        if b is None:
            self.r.fail(check, f"the guest printed no '{name}' block (crash or timeout? see the log)")
        return b

    def json_ok(self, check, name):
        """The JSON stdout of a block that must have succeeded, else None (after a FAIL)."""
        b = self.block(check, name)
        if b is None:
            return None
        if b.rc != 0:
            self.r.fail(check, f"`{name}` exited {b.rc}: {b.first_error()}")
            return None
        try:
            return json.loads(b.out)
        except ValueError as e:
            self.r.fail(check, f"`{name}` printed no valid JSON ({e}): {b.out[:200]!r}")
            return None

    def clear_error(self, check, name, keywords):
        """A refused command: non-zero exit, nothing on stdout, exactly one stderr line that
        starts with `numascope: error:` and mentions every keyword (case-insensitive)."""
        b = self.block(check, name)
        if b is None:
            return False
        lines = b.err_lines()
        if b.rc == 0:
            return self.r.check(check, False, f"exited 0; expected a refusal ({b.out[:120]!r})")
        if b.out:
            return self.r.check(check, False, f"exit {b.rc} but stdout not empty: {b.out[:120]!r}")
        # With --json an error is one JSON object {"error", "exit_code", "kind"} instead.
        sentence = None
        if len(lines) == 1 and lines[0].startswith("numascope: error:"):
            sentence = lines[0]
        elif len(lines) == 1 and lines[0].startswith("{"):
            try:
                e = json.loads(lines[0])
                if isinstance(e, dict) and e.get("exit_code") == b.rc and e.get("error"):
                    sentence = e["error"]
            except ValueError:
                pass
        if sentence is None:
            return self.r.check(check, False, f"exit {b.rc}; stderr is not one "
                                f"`numascope: error:` line or JSON error object: {lines[:3]!r}")
        # Each keyword is a string or a tuple of acceptable spellings.
        low = sentence.lower()
        missing = [k for k in keywords
                   if not any(a.lower() in low for a in (k if isinstance(k, tuple) else (k,)))]
        return self.r.check(check, not missing,
                            f"exit {b.rc}: {lines[0]}" +
                            (f" (does not mention {missing})" if missing else ""))

    # -- placement reports --
    def histogram(self, check, name, size_bytes):
        """{node: pages} of a successful placement, after checking its accounting."""
        j = self.json_ok(check, name)
        if j is None:
            return None, None
        try:
            rep = j["report"]
            hist = {int(h["node"]): int(h["pages"]) for h in rep["histogram"]}
            pages, absent = int(rep["pages"]), int(rep["not_present"])
        except (KeyError, TypeError, ValueError) as e:
            self.r.fail(check, f"placement JSON lacks {e}: {json.dumps(j)[:200]}")
            return None, None
        if size_bytes is not None and pages != size_bytes // PAGE:
            self.r.fail(check, f"report.pages = {pages}, expected {size_bytes // PAGE}")
            return None, None
        if sum(hist.values()) + absent != pages or absent != 0:
            self.r.fail(check, f"histogram {hist} + not_present {absent} != pages {pages}")
            return None, None
        return j, hist

    def all_on(self, check, name, nodes, size_bytes):
        j, hist = self.histogram(check, name, size_bytes)
        if hist is None:
            return
        total = sum(hist.values())
        on = sum(p for n, p in hist.items() if n in nodes)
        ok = on == total and j.get("matches") is True and j["report"]["fraction_on_intended"] == 1.0
        self.r.check(check, ok, f"{fmt_hist(hist)}; want all on {nodes}; matches={j.get('matches')}"
                     f" fraction_on_intended={j['report']['fraction_on_intended']}")

    def huge(self, check, name, node, min_fraction):
        """A huge-page placement: every page on `node` and at least `min_fraction` of the
        buffer backed by huge pages, as the report's huge_fraction says."""
        j, hist = self.histogram(check, name, 8 * MIB)
        if hist is None:
            return
        total = sum(hist.values())
        frac = j["report"].get("huge_fraction")
        ok = hist.get(node, 0) == total and isinstance(frac, (int, float)) and frac >= min_fraction
        self.r.check(check, ok, f"{fmt_hist(hist)}; huge_fraction={frac} huge_bytes="
                     f"{j['report'].get('huge_bytes')}; want all on node{node}, "
                     f"huge_fraction >= {min_fraction}")

    def pinned(self, check, name, cpu):
        j = self.json_ok(check, name)
        if j is None:
            return
        ok = j.get("cpu") == cpu and j.get("ran_on_cpu") == cpu
        self.r.check(check, ok, f"cpu={j.get('cpu')} ran_on_cpu={j.get('ran_on_cpu')}; want {cpu}")

    def weighted(self, check, name, expect):
        """Weighted interleave 0:3,1:1: 75 %/25 % within 1 %, or the refusal on old kernels."""
        if self.opts.no_weighted:
            self.r.skip(check, f"weighted interleave not checked: {self.opts.no_weighted}")
            return
        if self.opts.expect_weighted_refused:
            self.clear_error(check, name, ["weighted interleave", "6.9"])
            return
        j, hist = self.histogram(check, name, 8 * MIB)
        if hist is None:
            return
        total = sum(hist.values())
        fr = {n: hist.get(n, 0) / total for n in expect}
        ok = all(abs(fr[n] - f) <= 0.01 for n, f in expect.items()) and \
            sum(hist.get(n, 0) for n in expect) == total
        self.r.check(check, ok, f"{fmt_hist(hist)} = " +
                     " ".join(f"node{n}:{fr[n]:.1%}" for n in sorted(fr)) +
                     f"; want {' '.join(f'node{n}:{f:.0%}' for n, f in sorted(expect.items()))} ±1%")

    def interleave(self, check, name, nodes):
        j, hist = self.histogram(check, name, 8 * MIB)
        if hist is None:
            return
        total = sum(hist.values())
        share = total / len(nodes)
        ok = all(abs(hist.get(n, 0) - share) <= 1 for n in nodes) and \
            sum(hist.get(n, 0) for n in nodes) == total
        self.r.check(check, ok, f"{fmt_hist(hist)}; equal share {share:.2f} pages ±1 on {nodes}")

    def inspect_bound(self, check, name, node, size_bytes):
        j = self.json_ok(check, name)
        if j is None:
            holder = self.g.blocks.get("inspect-holder")
            if holder is not None and holder.err_lines():
                self.r.note(f"(the --hold process said: {holder.first_error()})")
            return
        try:
            per_node = {int(n["node"]): int(n["bytes"]) for n in j["nodes"]}
        except (KeyError, TypeError, ValueError) as e:
            self.r.fail(check, f"inspect JSON lacks {e}: {json.dumps(j)[:200]}")
            return
        got = per_node.get(node, 0)
        self.r.check(check, got >= size_bytes,
                     f"node{node} holds {got / MIB:.1f} MiB of the process; want >= "
                     f"{size_bytes / MIB:.0f} MiB (all nodes: " +
                     ", ".join(f"node{n}={b / MIB:.1f}MiB" for n, b in sorted(per_node.items())) + ")")

    def capture(self, check):
        b = self.block(check, "capture")
        if b is None:
            return
        if b.rc != 0:
            self.r.fail(check, f"`capture` exited {b.rc}: {b.first_error()}")
            return
        data = self.g.files.get("capture")  # base64 of a tar.gz
        if not data:
            self.r.fail(check, "no capture archive between NSFILE markers")
            return
        try:
            tar = tarfile.open(fileobj=io.BytesIO(base64.b64decode(data)), mode="r:gz")
            names = tar.getnames()
        except (ValueError, tarfile.TarError, OSError) as e:
            self.r.fail(check, f"capture archive unreadable: {e}")
            return
        want = [f"sys/devices/system/node/node{n.id}/distance" for n in self.s.nodes]
        # The kernel's memory tiers, when it has them, so a replay shows each node's tier.
        want += [f"sys/devices/virtual/memory_tiering/{k[:-len('.nodelist')]}/nodelist"
                 for k in sorted(self.g.facts) if k.startswith("memory_tier") and k.endswith(".nodelist")]
        missing = [w for w in want if not any(x.lstrip("./").endswith(w) for x in names)]
        self.r.check(check, not missing, f"{len(names)} entries" +
                     (f"; missing {missing}" if missing else "; every node's distance file present"))
        if missing:
            return
        replay = self.capture_replay("capture-replay", tar) if self.opts.numascope else None
        if self.opts.save_fixtures:
            self.save(tar, replay)

    def save(self, tar, replay):
        """Stores the capture as a topology fixture; its `<dir>.expected.json` (the format of
        tests/topology_fixtures.rs) only when the replay equals the live topology and every
        topo check passed, so a wrong reading is never blessed into an expectation."""
        dest = self.opts.save_fixtures.rstrip("/")
        save_fixture(tar, dest)
        expected = dest + ".expected.json"
        topo_ok = all(st == "PASS" for name, (st, _) in self.r.results.items()
                      if name.startswith("topo-") or name == "capture-replay")
        if replay is not None and topo_ok:
            replay["source"] = "<snapshot>"
            with open(expected, "w") as fh:
                fh.write(json.dumps(replay, indent=2, sort_keys=True) + "\n")
            self.r.note(f"capture saved to {dest}, expectation to {expected}")
        else:
            if os.path.exists(expected):
                os.remove(expected)
            self.r.note(f"capture saved to {dest}; NO {os.path.basename(expected)} written: "
                        "a topo check or the replay failed (fix, then run --save-fixtures again)")

    def capture_replay(self, check, tar):
        """The guest's capture, replayed on the host with --sysfs-root, must give the same
        topology as `topo --json` gave live in the guest (live figures aside)."""
        b = self.g.blocks.get("topo")
        try:
            live = json.loads(b.out) if b is not None and b.rc == 0 else None
        except ValueError:
            live = None
        if live is None:
            self.r.fail(check, "no valid live `topo --json` from the guest to compare with")
            return
        with tempfile.TemporaryDirectory() as d:
            root = os.path.join(d, "capture")
            save_fixture(tar, root)
            cmd = [self.opts.numascope, "--sysfs-root", root, "topo", "--json"]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            except (OSError, subprocess.TimeoutExpired) as e:
                self.r.fail(check, f"{' '.join(cmd)}: {e}")
                return
        if p.returncode != 0:
            self.r.fail(check, f"replay exited {p.returncode}: {p.stderr.strip()[:200]}")
            return
        try:
            replay = json.loads(p.stdout)
        except ValueError as e:
            self.r.fail(check, f"replay printed no valid JSON: {e}")
            return
        diffs = [d for d in json_diff(comparable(live), comparable(replay), "") if d]
        self.r.check(check, not diffs, "replayed topology equals the live one" if not diffs else
                     f"{len(diffs)} differences, live vs replay: " + "; ".join(diffs[:4]))
        return None if diffs else replay


def comparable(topo):
    """A topology without what legitimately differs between a live read and its replay."""
    t = dict(topo)
    t.pop("live", None)
    t.pop("source", None)
    # The hypervisor vendor comes from CPUID on the running machine, which no snapshot file
    # holds; a replay says what the snapshot's DMI files say.
    env = dict(t.get("environment") or {})
    plat = dict(env.get("platform") or {})
    for k in ("hypervisor_vendor", "hypervisor_source"):
        plat.pop(k, None)
    if "platform" in env:
        env["platform"] = plat
        t["environment"] = env
    t["nodes"] = [{k: v for k, v in n.items() if k not in ("memory_free_bytes", "memory_available_bytes")}
                  for n in t.get("nodes", [])]
    return t


def json_diff(a, b, path):
    """Paths (and values) where two JSON values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            yield from json_diff(a.get(k), b.get(k), f"{path}.{k}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            yield from json_diff(x, y, f"{path}[{i}]")
    elif a != b:
        yield f"{path or '.'}: {json.dumps(a)[:60]} vs {json.dumps(b)[:60]}"


def fmt_hist(hist):
    return " ".join(f"node{n}={p}" for n, p in sorted(hist.items())) or "(empty)"


def save_fixture(tar, dest):
    """Unpacks the guest's capture into dest (replacing it): files, directories and the
    relative symlinks sysfs is made of (node links of CPUs, HMAT initiators), refusing any
    member or link target that would land outside dest."""
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    top = os.path.realpath(dest)
    for m in tar.getmembers():
        name = os.path.normpath(m.name)
        if name.startswith("..") or os.path.isabs(name) or name == ".":
            continue
        target = os.path.join(dest, name)
        if m.isdir():
            os.makedirs(target, exist_ok=True)
        elif m.isfile():
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(tar.extractfile(m).read())
        elif m.issym():
            pointee = os.path.normpath(os.path.join(os.path.dirname(os.path.join(top, name)),
                                                    m.linkname))
            if os.path.isabs(m.linkname) or not pointee.startswith(top + os.sep):
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.symlink(m.linkname, target)


# ---- the VM itself: does the guest kernel see the configured shape? -----------------------------

def check_vm_shape(c):
    """Raw sysfs facts against shapes.py: a FAIL here is the harness or QEMU, not numascope."""
    s, f, r = c.s, c.g.facts, c.r
    ids = [n.id for n in s.nodes]
    r.check("vm-nodes-online", parse_list(f.get("node_online", "")) == ids,
            f"node/online = {f.get('node_online')!r}; want {ids}")
    r.check("vm-has-memory", parse_list(f.get("node_has_memory", "")) == s.memory_nodes(),
            f"has_memory = {f.get('node_has_memory')!r}; want {s.memory_nodes()}")
    # A node's cpulist in sysfs lists its online CPUs only: an offline CPU drops out of it.
    bad = [n.id for n in s.nodes if parse_list(f.get(f"node{n.id}.cpulist", ""))
           != [x for x in n.cpus if x not in s.offline_cpus]]
    r.check("vm-node-cpus", not bad, "every node's cpulist as configured (online CPUs)" if not bad
            else f"nodes {bad} differ: " + ", ".join(f"{n}: {f.get(f'node{n}.cpulist')!r}" for n in bad))
    rows = [[int(x) for x in f.get(f"node{n}.distance", "").split()] for n in ids]
    r.check("vm-distances", rows == s.distances, f"SLIT {rows}; want {s.distances}")
    bad = []
    for n in s.nodes:
        kb = int(f.get(f"node{n.id}.memtotal_kb") or 0)
        if n.has_memory and not (n.mem_mib * 1024 * 0.5 < kb <= n.mem_mib * 1024):
            bad.append(f"node{n.id} MemTotal {kb} kB for {n.mem_mib} MiB")
        if not n.has_memory and kb != 0:
            bad.append(f"node{n.id} MemTotal {kb} kB, want 0")
    r.check("vm-node-memory", not bad, "; ".join(bad) or "MemTotal per node as configured")
    offline = [int(k[3:-7]) for k, v in f.items() if k.startswith("cpu") and k.endswith(".online")
               and v == "0"]
    r.check("vm-offline-cpus", sorted(offline) == s.offline_cpus,
            f"offline {sorted(offline)}; want {s.offline_cpus}")
    want_hmat = s.hmat_initiators()
    got_hmat = {n: parse_ids(f[f"node{n}.access0.initiator_nodes"]) for n in ids
                if f"node{n}.access0.initiator_nodes" in f}
    r.check("vm-hmat", got_hmat == want_hmat, f"access0 initiators {got_hmat}; want {want_hmat}")
    if s.taskset:
        got = f.get("taskset_cpus_allowed", "")
        # The kernel keeps an offline CPU of the requested list in the mask or drops it
        # depending on cpuset state; the online part must be exact.
        online_want = [x for x in parse_list(s.taskset) if x not in s.offline_cpus]
        got_l = parse_list(got)
        r.check("vm-taskset", [x for x in got_l if x not in s.offline_cpus] == online_want,
                f"Cpus_allowed_list under taskset -c {s.taskset}: {got!r}")
    wi = f.get("weighted_interleave", "")
    if c.opts.expect_weighted_refused or c.opts.no_weighted:
        r.check("vm-weighted-sysfs", wi == "absent",
                f"/sys/kernel/mm/mempolicy/weighted_interleave: {wi!r}; want absent on {c.opts.kernel}")
    else:
        # One weight file per node, memory-less nodes included (seen on 6.12).
        want = " ".join(f"node{n}" for n in ids)
        r.check("vm-weighted-sysfs", wi == want, f"weighted_interleave lists {wi!r}; want {want!r}")


def parse_ids(text):
    return sorted(int(w[4:]) for w in text.split() if w.startswith("node"))


# ---- numascope topo --json against the shape -----------------------------------------------------

def check_topo(c):
    s, f, r = c.s, c.g.facts, c.r
    t = c.json_ok("topo", "topo")
    if t is None:
        return
    try:
        nodes = {n["id"]: n for n in t["nodes"]}
        ids = [n.id for n in s.nodes]
        r.check("topo-schema", t["schema_version"] == 1 and t["live"] is True,
                f"schema_version={t['schema_version']} live={t['live']}")
        r.check("topo-node-ids", sorted(nodes) == ids, f"nodes {sorted(nodes)}; want {ids}")
        bad = []
        for n in s.nodes:
            j = nodes.get(n.id)
            if j is None:
                continue
            if j["cpus"] != n.cpus:
                bad.append(f"node{n.id} cpus {j['cpus']} want {n.cpus}")
            if j["has_memory"] != n.has_memory:
                bad.append(f"node{n.id} has_memory {j['has_memory']} want {n.has_memory}")
            if j["has_cpu"] != bool(n.cpus):
                bad.append(f"node{n.id} has_cpu {j['has_cpu']} want {bool(n.cpus)}")
            kb = int(f.get(f"node{n.id}.memtotal_kb") or 0)
            if j["memory_total_bytes"] != kb * 1024:
                bad.append(f"node{n.id} memory_total_bytes {j['memory_total_bytes']} "
                           f"want {kb * 1024} (sysfs MemTotal)")
        r.check("topo-nodes", not bad, "; ".join(bad) or
                "cpus, has_cpu, has_memory, memory_total_bytes of every node as configured")
        check_topo_tiers(c, t)
        r.check("topo-distances", t["distances"] == s.distances,
                f"{t['distances']}; want {s.distances}")
        cpus = {cpu["id"]: cpu for cpu in t["cpus"]}
        bad = []
        if sorted(cpus) != s.cpus:
            bad.append(f"cpu ids {sorted(cpus)} want {s.cpus}")
        for cid, cpu in cpus.items():
            want_online = cid not in s.offline_cpus
            if cpu["online"] != want_online:
                bad.append(f"cpu{cid} online={cpu['online']}")
            want_node = next((n.id for n in s.nodes if cid in n.cpus), None)
            if cpu["node"] != want_node:
                bad.append(f"cpu{cid} node={cpu['node']} want {want_node}")
        r.check("topo-cpus", not bad, "; ".join(bad) or
                f"{len(cpus)} CPUs, offline {s.offline_cpus}, nodes as configured")
        # The allowed set: the kernel's own answer under the same taskset is the reference.
        want_allowed = parse_list(f["taskset_cpus_allowed"]) if s.taskset else s.cpus
        flags = sorted(cid for cid, cpu in cpus.items() if cpu["allowed"])
        r.check("topo-allowed-cpus", t["allowed_cpus"] == want_allowed and flags == want_allowed,
                f"allowed_cpus {t['allowed_cpus']}, cpus[].allowed {flags}; want {want_allowed}")
        want_nodes = parse_list(f.get("mems_allowed", ""))
        r.check("topo-allowed-nodes", t["allowed_nodes"] == want_nodes,
                f"allowed_nodes {t['allowed_nodes']}; want {want_nodes} (Mems_allowed_list)")
        check_topo_hmat(c, t)
    except (KeyError, TypeError, ValueError) as e:
        r.fail("topo-contract", f"topo JSON lacks or mistypes {e!r}")


def check_topo_tiers(c, t):
    """Each memory node's tier in `topo --json` is the memory_tierN whose nodelist holds it
    (sysfs, printed by the guest); no tiers in sysfs: none in topo."""
    f, r = c.g.facts, c.r
    want = {}
    for k, v in f.items():
        if k.startswith("memory_tier") and k.endswith(".nodelist"):
            for n in parse_list(v):
                want[n] = int(k[len("memory_tier"):-len(".nodelist")])
    got = {m["node"]: m.get("tier") for m in t.get("node_memory") or []}
    expect = {n: want.get(n) for n in c.s.memory_nodes()}
    r.check("topo-memory-tiers", got == expect,
            f"tiers {got}; want {expect} (sysfs memory_tiering)")


def check_topo_hmat(c, t):
    s, f, r = c.s, c.g.facts, c.r
    want = s.hmat_initiators()
    if not want:
        r.check("topo-hmat", t["hmat"] == [], f"hmat {t['hmat'][:2]}; want [] (no HMAT)")
        return
    bad = []
    for tgt, inis in sorted(want.items()):
        e = [h for h in t["hmat"] if h["node"] == tgt and h["access_class"] == 0]
        if len(e) != 1:
            bad.append(f"node{tgt}: {len(e)} access0 entries")
            continue
        e = e[0]
        if e["initiators"] != inis:
            bad.append(f"node{tgt} initiators {e['initiators']} want {inis}")
        for key, fact in (("read_latency_ns", "read_latency"), ("write_latency_ns", "write_latency"),
                          ("read_bandwidth_mb_s", "read_bandwidth"),
                          ("write_bandwidth_mb_s", "write_bandwidth")):
            raw = f.get(f"node{tgt}.access0.{fact}", "")
            if raw.isdigit() and e[key] != int(raw):
                bad.append(f"node{tgt} {key} {e[key]} want {raw} (sysfs)")
    r.check("topo-hmat", not bad, "; ".join(bad) or
            "access0 initiators and figures of every target as in sysfs: " +
            ", ".join(f"node{tgt}<-{inis}" for tgt, inis in sorted(want.items())))
    for node, size_mib in s.hmat_cache or []:
        e = [m for m in t["memory_side_caches"] if m["node"] == node]
        r.check(f"topo-memory-side-cache-node{node}",
                len(e) == 1 and e[0]["size_bytes"] == size_mib * MIB and e[0]["level"] == 1,
                f"{e}; want one level-1 cache of {size_mib} MiB")


# ---- checks per shape ----------------------------------------------------------------------------
# One function per shape, matching checks_A/B/C of guest-checks.sh. Later issues add their
# assertions HERE (latency --matrix and run --quick on A; bandwidth --matrix/--scaling,
# loaded-latency and c2c on B), next to the guest command, once the command exists on main.

def checks_A(c):
    check_topo(c)
    c.capture("capture")
    for n in (0, 1, 2):
        c.all_on(f"bind-node{n}", f"bind-node{n}", [n], 8 * MIB)
    c.interleave("interleave-3", "interleave", [0, 1, 2])
    c.weighted("weighted-3:1", "weighted", {0: 0.75, 1: 0.25})
    check_weighted_sigterm(c)
    c.all_on("preferred", "preferred", [2], 8 * MIB)
    c.all_on("preferred-many", "preferred-many", [1, 2], 8 * MIB)
    check_preferred_spill(c)
    c.clear_error("bind-beyond-free", "bind-too-big", [("node 2", "node2", "node(s) 2"), ("free", "available", "memory")])
    c.pinned("pinned-cpu1", "pinned-cpu1", 1)
    if "[never]" in c.g.facts.get("transparent_hugepage", ""):
        c.r.skip("thp-node2", "THP is disabled in this guest kernel ([never])")
    else:
        # 8 MiB = 4 huge pages; 3 of 4 if the mapping were not 2 MiB aligned.
        c.huge("thp-node2", "thp-node2", 2, 0.75)
    c.clear_error("hugetlb-unreserved", "hugetlb-unreserved", [("huge page", "hugepage"),
                                                               ("reserve", "nr_hugepages")])
    if c.g.facts.get("node2.nr_hugepages_2m") != "4":
        c.r.fail("hugetlb-2m-node2", "the guest could not reserve 4 huge pages on node 2 "
                 f"(nr_hugepages = {c.g.facts.get('node2.nr_hugepages_2m')!r})")
    else:
        c.huge("hugetlb-2m-node2", "hugetlb-2m-node2", 2, 1.0)
    c.inspect_bound("inspect-node2", "inspect-bound-node2", 2, 16 * MIB)
    check_latency_matrix(c)
    check_bandwidth_matrix(c)
    check_bandwidth_scaling(c)
    check_app_stream(c)
    check_app_weighted(c)
    check_app_tiering(c)
    check_run(c)


# The candidates of the `app-stream` block and the nodes each must put the program's
# anonymous memory on (bind: all of it; interleave: a share on every node).
APP_CANDIDATES = {"bind:0": ("bind", [0]), "bind:1": ("bind", [1]), "interleave": ("interleave", [0, 1, 2])}


def check_app_stream(c):
    """`numascope app` with the streaming program under bind:0, bind:1 and interleave: each
    candidate run (not merged: they place differently here), exit 0, and the program's
    anonymous memory (anon, heap, stack; file pages were cached before it ran) sampled from
    numa_maps where the policy puts it: all on the node for bind (threads on that node's
    CPUs), at least a quarter on each of 0-2 for interleave. No timing is checked."""
    j = c.json_ok("app-stream", "app-stream")
    if j is None:
        return
    bad, seen = [], []
    cands = {x["id"]: x for x in j.get("candidates", [])}
    for cid, (kind, nodes) in APP_CANDIDATES.items():
        x = cands.get(cid)
        if x is None:
            bad.append(f"no candidate {cid}")
            continue
        if x.get("same_as") is not None:
            bad.append(f"{cid} merged into {x['same_as']}")
        runs = x.get("runs", [])
        if len(runs) != 1 or runs[0].get("exit_code") != 0:
            bad.append(f"{cid} runs {runs}")
        o = x.get("observed")
        if not o or not o.get("samples"):
            bad.append(f"{cid} has no numa_maps sample")
            continue
        anon = {}
        for k in o.get("kinds", []):
            if k["kind"] in ("anon", "heap", "stack"):
                for n in k["nodes"]:
                    anon[int(n["node"])] = anon.get(int(n["node"]), 0) + int(n["bytes"])
        total = sum(anon.values())
        seen.append(f"{cid}: " + " ".join(f"node{n}={b / MIB:.1f}MiB" for n, b in sorted(anon.items())))
        if total < 8 * MIB:
            bad.append(f"{cid} anonymous memory {total / MIB:.1f} MiB < the 8 MiB buffer")
            continue
        if kind == "bind":
            if anon.get(nodes[0], 0) != total:
                bad.append(f"{cid} anonymous memory not all on node {nodes[0]}: {anon}")
            cpus = set(c.s.node(nodes[0]).cpus)
            if not set(o.get("thread_cpus", [])) <= cpus:
                bad.append(f"{cid} threads on CPUs {o.get('thread_cpus')} outside node {nodes[0]}'s {sorted(cpus)}")
        else:
            low = [n for n in nodes if anon.get(n, 0) < total / 4]
            if low or set(anon) - set(nodes):
                bad.append(f"{cid} not spread over {nodes}: {anon}")
        if o.get("overriding"):
            bad.append(f"{cid} reported as overriding: {o['overriding']}")
    c.r.check("app-stream", not bad, "; ".join(bad) or "; ".join(seen))


def check_app_weighted(c):
    """`numascope app --candidates weighted:measured`: the weights come from the measured
    per-node bandwidth (named in the label), the program ran and its anonymous memory is on
    every memory node (every node gets a weight of at least 1), and the system-wide weights
    are what they were before. No timing is checked."""
    f = c.g.facts
    if "app_weighted.before" not in f:
        c.r.skip("app-weighted", "no weighted interleave in this guest kernel")
        return
    j = c.json_ok("app-weighted", "app-weighted")
    if j is None:
        return
    bad = []
    x = {y["id"]: y for y in j.get("candidates", [])}.get("weighted:measured")
    if x is None:
        c.r.check("app-weighted", False, "no candidate weighted:measured")
        return
    if "measured here (all CPUs reading each node" not in x.get("label", ""):
        bad.append(f"label does not name measured weights: {x.get('label')}")
    runs = x.get("runs", [])
    if len(runs) != 1 or runs[0].get("exit_code") != 0:
        bad.append(f"runs {runs}")
    o = x.get("observed") or {}
    anon = {}
    for k in o.get("kinds", []):
        if k["kind"] in ("anon", "heap", "stack"):
            for n in k["nodes"]:
                anon[int(n["node"])] = anon.get(int(n["node"]), 0) + int(n["bytes"])
    if set(anon) != {0, 1, 2}:
        bad.append(f"anonymous memory not on every memory node: {anon}")
    if f.get("app_weighted.after") != f["app_weighted.before"]:
        bad.append(f"weights before {f['app_weighted.before']!r}, after {f.get('app_weighted.after')!r}")
    c.r.check("app-weighted", not bad, "; ".join(bad) or f"{x.get('label')}; pages {anon}")


def tiering_totals(x):
    """A kernel-managed candidate's counters summed over its measured runs."""
    tot = {}
    for run in ((x or {}).get("kernel") or {}).get("runs", []):
        if run.get("warmup"):
            continue
        for name, v in run.get("counters", []):
            tot[name] = tot.get(name, 0) + int(v)
    return tot


def check_app_tiering(c):
    """`app --tiering` in guest A (node 2 in a lower memory tier). The program that
    first touches its pages on node 2 shows promotions under memory-tiering mode
    (pgpromote_success), the memory-pressure run demotions (pgdemote_*), each kernel-managed
    candidate records the settings it wrote and a pages-per-node timeline, every knob is
    back to its value afterwards, and where the guest kernel has DAMON's sysfs interface the
    daemon was created for the runs and removed after them. No timing is checked."""
    f, r = c.g.facts, c.r
    before = {k: f.get(f"tiering.before.{k}") for k in ("numa_balancing", "demotion_enabled", "nr_kdamonds")}
    for phase in ("after_promote", "after_demote"):
        after = {k: f.get(f"tiering.{phase}.{k}") for k in before}
        r.check(f"tiering-restored-{phase}", after == before, f"before {before}, {phase} {after}")
    runs = {}
    for name in ("app-tiering-promote", "app-tiering-demote"):
        j = c.json_ok(name, name)
        runs[name] = {y["id"]: y for y in (j or {}).get("candidates", [])}
    prom = runs["app-tiering-promote"]
    t = prom.get("kernel:tiering")
    tiers = [k for k in f if k.startswith("memory_tier") and k.endswith(".nodelist")]
    if len(tiers) < 2:
        r.skip("tiering-promotes", f"the guest kernel puts all memory in one tier ({tiers})")
        r.skip("tiering-demotes", "one memory tier: nothing to demote to")
    elif t is None:
        r.fail("tiering-promotes", "no candidate kernel:tiering in app --tiering")
    elif t.get("unavailable"):
        r.fail("tiering-promotes", f"kernel:tiering unavailable here: {t['unavailable']}")
    else:
        k = t.get("kernel") or {}
        sets = {s["file"]: (s["value"], s["was"]) for s in k.get("settings", [])}
        tot = tiering_totals(t)
        bad = []
        if sets.get("/proc/sys/kernel/numa_balancing", ("",))[0] != "2" or \
                sets.get("/sys/kernel/mm/numa/demotion_enabled", ("",))[0] != "true":
            bad.append(f"settings {sets}")
        if tot.get("pgpromote_success", 0) <= 0:
            bad.append(f"no promotion counted: {tot}")
        if not k.get("timeline"):
            bad.append("no pages-per-node timeline")
        r.check("tiering-promotes", not bad, "; ".join(bad) or
                f"pgpromote_success +{tot.get('pgpromote_success')}, numa_hint_faults +{tot.get('numa_hint_faults')}; "
                f"timeline {len(k['timeline'])} samples, first {k['timeline'][0]['pages']}, last {k['timeline'][-1]['pages']}")
    nb = prom.get("kernel:numa-balancing")
    tot = tiering_totals(nb)
    r.check("numa-balancing-counts", nb is not None and not nb.get("unavailable") and tot.get("numa_hint_faults", 0) > 0,
            f"kernel:numa-balancing counters {tot}" if nb else "no candidate kernel:numa-balancing")
    d = runs["app-tiering-demote"].get("kernel:tiering")
    tot = tiering_totals(d)
    dem = sum(v for k, v in tot.items() if k.startswith("pgdemote_"))
    if len(tiers) >= 2:
        r.check("tiering-demotes", d is not None and dem > 0,
                f"pressure run ({f.get('tiering.pressure_mib')} MiB from node 0's CPUs, node 0 had "
                f"{f.get('tiering.node0_free_kb')} kB free): pgdemote_* +{dem}; counters {tot}")
    dm = prom.get("kernel:damon")
    if "damon_sysfs" not in f:
        r.skip("damon-created-removed", "no DAMON sysfs interface in this guest kernel")
    elif dm is None or dm.get("unavailable"):
        r.fail("damon-created-removed", f"kernel:damon not run: {(dm or {}).get('unavailable')}")
    else:
        k = dm.get("kernel") or {}
        files = [s["file"] for s in k.get("settings", [])]
        ok = any(x.endswith("/kdamonds/nr_kdamonds") for x in files) and \
            any(x.endswith("/kdamonds/0/state") for x in files) and \
            dm.get("runs") and dm["runs"][0].get("exit_code") == 0 and \
            f.get("tiering.after_promote.nr_kdamonds") == f.get("tiering.before.nr_kdamonds")
        r.check("damon-created-removed", bool(ok),
                f"{len(files)} DAMON files written, nr_kdamonds {f.get('tiering.before.nr_kdamonds')} before, "
                f"{f.get('tiering.after_promote.nr_kdamonds')} after; counters {tiering_totals(dm)}")


def check_weighted_sigterm(c):
    """After SIGTERM during a weighted placement, node0's weight is what it was,
    and the command exited 143 (stopped) or 0 (finished before the signal)."""
    f = c.g.facts
    if "weighted_sigterm.before" not in f:
        c.r.skip("weighted-sigterm-restores", "no weighted interleave in this guest kernel")
        return
    before, after, rc = f["weighted_sigterm.before"], f.get("weighted_sigterm.after"), f.get("weighted_sigterm.rc")
    c.r.check("weighted-sigterm-restores", before == after and rc in ("143", "0"),
              f"node0 weight {before} before, {after} after; exit {rc}")


def check_latency_matrix(c):
    """`latency --matrix`: one cell per (initiator node with CPUs) x (memory node), the
    memory-only node included as a target and never as an initiator; every cell's buffer
    entirely on its memory node; SLIT and HMAT beside it as sysfs declares; measured in interleaved rounds (at least six,
    n = rounds, one block each) with every cell's ratio to its row's local cell paired over
    those rounds (the local cell's own: exactly 1). No timing checks."""
    j = c.json_ok("latency-matrix", "latency-matrix")
    if j is None:
        return
    s = c.s
    cells = j["matrix"]["cells"]
    inits = sorted(n.id for n in s.nodes if n.cpus)
    mems = sorted(s.memory_nodes())
    got = sorted((x["initiator_node"], x["memory_node"]) for x in cells)
    want = sorted((i, m) for i in inits for m in mems)
    best = s.hmat_initiators()
    bad = []
    if got != want:
        bad.append(f"cells {got} want {want}")
    for x in cells:
        r = x["result"]
        i, m = x["initiator_node"], x["memory_node"]
        pair = f"{i}->{m}"
        if r["placement_fraction"] != 1.0 or r["memory_node"] != m:
            bad.append(f"{pair} placement {r['placement_fraction']} on node {r['memory_node']}")
        if r["cpu"] not in s.node(i).cpus:
            bad.append(f"{pair} measured from CPU {r['cpu']}, not a CPU of node {i}")
        if x["slit_distance"] != s.distances[i][m]:
            bad.append(f"{pair} SLIT {x['slit_distance']} want {s.distances[i][m]}")
        n = r["ns_per_load"]["samples"]
        if not (n >= 6 and r["ns_per_load"]["median"] > 0):
            bad.append(f"{pair} ns_per_load {r['ns_per_load']}")
        if (r.get("blocks") or {}).get("blocks") != n:
            bad.append(f"{pair} rounds {(r.get('blocks') or {}).get('blocks')} want n={n}")
        p = x.get("measured_ratio_interval")
        if p is None or p["pairs"] != n or p["ratio"] != x["measured_ratio"]:
            bad.append(f"{pair} paired ratio {p} (measured_ratio {x['measured_ratio']}, n={n})")
        elif i == m and (p.get("ci_low"), p.get("ci_high")) != (1.0, 1.0):
            bad.append(f"{pair} local paired ratio {p}")
        if i == m and x["measured_ratio"] != 1.0:
            bad.append(f"{pair} local ratio {x['measured_ratio']}")
        want_hmat = s.hmat_lb[(i, m)][0] if s.hmat_lb and i in best.get(m, []) else None
        if x["hmat_read_latency_ns"] != want_hmat:
            bad.append(f"{pair} HMAT read latency {x['hmat_read_latency_ns']} want {want_hmat}")
    c.r.check("latency-matrix", not bad, "; ".join(bad) or
              f"{len(cells)} cells ({len(inits)} initiators x {len(mems)} memory nodes, memory-only included), "
              "every buffer 100% on its node, SLIT/HMAT as in sysfs, ratios paired over the rounds")


def check_bandwidth_matrix(c):
    """`bandwidth --matrix`: one cell per (initiator node with CPUs) x (memory node), the
    memory-only node included as a target; every cell's buffers entirely on its node."""
    j = c.json_ok("bandwidth-matrix", "bandwidth-matrix")
    if j is None:
        return
    s = c.s
    cells = j["matrix"][0]["cells"]
    inits = sorted(n.id for n in s.nodes if n.cpus)
    mems = sorted(s.memory_nodes())
    got = sorted((x["initiator"], x["target"]) for x in cells)
    want = sorted((i, m) for i in inits for m in mems)
    bad = [] if got == want else [f"cells {got} want {want}"]
    for x in cells:
        if x["placement_fraction"] != 1.0:
            bad.append(f"{x['initiator']}->{x['target']} placement {x['placement_fraction']}")
        if not x["mb_per_s"] > 0:
            bad.append(f"{x['initiator']}->{x['target']} no bandwidth measured")
    c.r.check("bandwidth-matrix", not bad, "; ".join(bad) or
              f"{len(cells)} cells ({len(inits)} initiators x {len(mems)} memory nodes), every buffer 100% on its node")


def check_bandwidth_scaling(c):
    """`bandwidth --scaling`: a packed curve per node with CPUs, 1..N threads of that node,
    and every run's buffers verified on their nodes."""
    j = c.json_ok("bandwidth-scaling", "bandwidth-scaling")
    if j is None:
        return
    s = c.s
    series = j["scaling"][0]["series"]
    bad = []
    for n in (n for n in s.nodes if n.cpus):
        curve = [x for x in series if x["mode"] == "packed" and x.get("node") == n.id]
        if not curve:
            bad.append(f"no packed curve for node {n.id}")
            continue
        threads = [p["threads"] for p in curve[0]["points"]]
        if threads != list(range(1, len(n.cpus) + 1)):
            bad.append(f"node {n.id} curve threads {threads}")
        for p in curve[0]["points"]:
            if not set(p["cpus"]) <= set(n.cpus):
                bad.append(f"node {n.id} point on CPUs {p['cpus']}")
    fracs = [r["placement_fraction"] for r in j["results"]]
    if any(f != 1.0 for f in fracs):
        bad.append(f"placement fractions {fracs}")
    c.r.check("bandwidth-scaling", not bad, "; ".join(bad) or
              f"{len(series)} curves, a packed one per CPU node, {len(fracs)} runs all 100% placed")


def check_c2c(c):
    """`c2c --cpus 0,2 --line-node 1`: both ordered pairs measured, the line on node 1."""
    j = c.json_ok("c2c", "c2c")
    if j is None:
        return
    pairs = sorted((p["from"], p["to"]) for p in j["pairs"])
    bad = []
    if pairs != [(0, 2), (2, 0)]:
        bad.append(f"pairs {pairs} want [(0, 2), (2, 0)]")
    if j["line_node"] != 1 or j["placement_fraction"] != 1.0:
        bad.append(f"line on node {j['line_node']} with placement {j['placement_fraction']}, want node 1 at 1.0")
    if any(not p["ns_one_way"]["median"] > 0 for p in j["pairs"]):
        bad.append("a pair has no round trip")
    c.r.check("c2c", not bad, "; ".join(bad) or "2 ordered pairs, line homed and verified on node 1")


def check_loaded_latency(c):
    """`loaded-latency` with the chased and the load buffers on node 1: placement verified,
    a no-load point plus the requested loaded points."""
    j = c.json_ok("loaded-latency", "loaded-latency")
    if j is None:
        return
    cp = j["chaser_placement"]
    bad = []
    if cp["intended_nodes"] != [1] or cp["fraction_on_intended"] != 1.0:
        bad.append(f"chased buffer {cp['fraction_on_intended']} on {cp['intended_nodes']}, want all on [1]")
    if j["load_placement_fraction"] != 1.0 or j["load_mem_node"] != 1:
        bad.append(f"load buffers {j['load_placement_fraction']} on node {j['load_mem_node']}")
    if j["chaser_cpu"] != 0 or j["load_cpus"] != [2]:
        bad.append(f"chaser on {j['chaser_cpu']}, load on {j['load_cpus']}")
    if len(j["points"]) != 3:
        bad.append(f"{len(j['points'])} points, want 3 (no load + 2)")
    c.r.check("loaded-latency", not bad, "; ".join(bad) or
              "chaser CPU 0, load CPU 2, every buffer 100% on node 1, 3 points")


def checks_B(c):
    check_topo(c)
    c.capture("capture")
    for n in (0, 1, 2):
        c.all_on(f"bind-node{n}", f"bind-node{n}", [n], 8 * MIB)
    c.interleave("interleave-3", "interleave", [0, 1, 2])
    c.weighted("weighted-3:1", "weighted", {0: 0.75, 1: 0.25})
    c.all_on("first-touch-cpu2", "first-touch-cpu2", [1], 4 * MIB)
    c.pinned("pinned-cpu6-memoryless-node", "pinned-cpu6", 6)
    c.clear_error("err-bind-memoryless-node", "err-memoryless-node3", [("node 3", "node3"), "memory"])
    c.clear_error("err-cpu-not-allowed", "err-cpu-not-allowed", [("cpu 4", "cpu4"), "allowed"])
    c.clear_error("err-cpu-offline", "err-cpu-offline", [("cpu 5", "cpu5"), "offline"])
    c.inspect_bound("inspect-node2", "inspect-bound-node2", 2, 16 * MIB)
    check_c2c(c)
    check_loaded_latency(c)


def checks_C(c):
    check_topo(c)
    c.capture("capture")
    for n in (0, 1):
        c.all_on(f"bind-node{n}", f"bind-node{n}", [n], 8 * MIB)
    c.interleave("interleave-2", "interleave", [0, 1])
    c.weighted("weighted-refused", "weighted", {0: 0.75, 1: 0.25})
    c.pinned("pinned-cpu3", "pinned-cpu3", 3)
    c.inspect_bound("inspect-node1", "inspect-bound-node1", 1, 16 * MIB)


def check_preferred_spill(c):
    """Preferred beyond node 2's free memory: the rest spills elsewhere, node 2 fills up."""
    check = "preferred-spill"
    free_kb = int(c.g.facts.get("node2.memfree_kb_before_spill") or 0)
    b = c.block(check, "preferred-spill")
    if b is None:
        return
    if b.rc != 0 and "free" in b.first_error().lower():
        c.r.skip(check, f"numascope refused a preferred size beyond free memory ({b.first_error()}); "
                        "preferred should fall back, not refuse")
        return
    j, hist = c.histogram(check, "preferred-spill", (free_kb + 32768) * 1024)
    if hist is None:
        return
    on2 = hist.get(2, 0) * PAGE
    others = sum(p for n, p in hist.items() if n != 2)
    ok = on2 >= 0.9 * free_kb * 1024 and others > 0
    c.r.check(check, ok, f"{fmt_hist(hist)}; node2 got {on2 / MIB:.1f} MiB of its "
                         f"{free_kb / 1024:.1f} MiB free (want >= 90%), {others} pages spilled")


# ---- numascope run, end to end with a guest-sized budget ------------------------------------

# The CSV tables each part writes into the output directory (render::run_files).
RUN_CSVS = {"latency": ["latency_sweep.csv"], "latency-matrix": ["latency_matrix.csv"],
            "bandwidth": ["bandwidth.csv"], "bandwidth-matrix": ["bandwidth_matrix.csv"],
            "scaling": ["scaling.csv"], "loaded-latency": ["loaded_latency.csv"],
            "scenarios": ["scenarios.csv", "recommendations.csv"]}


def run_output(c):
    """(results.json as a dict, {file name: bytes}) of the `run` block's output directory,
    or (None, None) after a FAIL."""
    check = "run-exit"
    b = c.block(check, "run")
    if b is None:
        return None, None
    data = c.g.files.get("run-output")
    if not data:
        c.r.fail(check, f"`run` exited {b.rc} and left no output directory: {b.first_error()}")
        return None, None
    try:
        tar = tarfile.open(fileobj=io.BytesIO(base64.b64decode(data)), mode="r:gz")
        files = {os.path.basename(m.name): tar.extractfile(m).read()
                 for m in tar.getmembers() if m.isfile()}
    except (ValueError, tarfile.TarError, OSError) as e:
        c.r.fail(check, f"the run's output archive is unreadable: {e}")
        return None, None
    try:
        res = json.loads(files["results.json"])
    except (KeyError, ValueError) as e:
        c.r.fail(check, f"no readable results.json in the output directory ({e!r}); "
                        f"files: {sorted(files)}")
        return None, None
    planned = [p["part"] for p in res["plan"]["parts"]]
    ok = b.rc == 0 and res["partial"] is False and not res["failed"] and \
        res["completed"] == planned
    c.r.check(check, ok, f"exit {b.rc}, partial={res['partial']}, failed={res['failed']}, "
                         f"completed {len(res['completed'])} of the {len(planned)} planned parts"
              + ("" if ok else f": {b.first_error()}"))
    return res, files


def check_run_files(c, res, files, stdout):
    """summary.txt is what `run` printed, report.html is a page that names the host, and each
    part that ran left its CSV table (a header and at least one row)."""
    bad = []
    summary = files.get("summary.txt", b"").decode("utf-8", "replace")
    if not summary.strip():
        bad.append("summary.txt missing or empty")
    elif summary.strip() != stdout.strip():
        bad.append("summary.txt differs from what `run` printed")
    html = files.get("report.html", b"").decode("utf-8", "replace")
    if "<html" not in html.lower() or "</html>" not in html.lower():
        bad.append(f"report.html is not a whole HTML page ({len(html)} bytes)")
    for part in res["completed"]:
        for name in RUN_CSVS.get(part, []):
            lines = files.get(name, b"").decode("utf-8", "replace").strip().splitlines()
            if len(lines) < 2:
                bad.append(f"{name} ({part}) has {len(lines)} lines")
    c.r.check("run-files", not bad, "; ".join(bad) or
              f"summary.txt (as printed), report.html ({len(html)} bytes) and "
              f"{sum(1 for n in files if n.endswith('.csv'))} CSV tables written")


def cells_want(s):
    inits = sorted(n.id for n in s.nodes if n.cpus)
    return sorted((i, m) for i in inits for m in s.memory_nodes())


def check_run_latency_matrix(c, res):
    m = res["latency"]["matrix"]
    want = cells_want(c.s)
    got = sorted((x["initiator_node"], x["memory_node"]) for x in m["cells"])
    bad = [] if got == want else [f"cells {got} want {want}"]
    for x in m["cells"]:
        r, i, t = x["result"], x["initiator_node"], x["memory_node"]
        if r["placement_fraction"] != 1.0 or r["memory_node"] != t:
            bad.append(f"{i}->{t} placement {r['placement_fraction']} on node {r['memory_node']}")
        if r["cpu"] not in c.s.node(i).cpus:
            bad.append(f"{i}->{t} measured from CPU {r['cpu']}")
        if not r["ns_per_load"]["median"] > 0:
            bad.append(f"{i}->{t} no latency")
        # Remote cells carry their ratio to local paired over the matrix's rounds, unless the
        # run said it measured the matrix cell after cell (its buffers did not fit together).
        after = any("measured cell after cell" in w for w in res["latency"].get("warnings", []))
        if i != t and not after and x.get("measured_ratio_interval") is None:
            bad.append(f"{i}->{t} no paired ratio to local")
    c.r.check("run-latency-matrix", not bad, "; ".join(bad) or
              f"all {len(want)} initiator x memory cells, each buffer 100% on its node, remote ratios paired")


def check_run_bandwidth(c, res):
    bw = res["bandwidth"]
    bad = [f"result {k} ({r.get('kernel')}) placement {r.get('placement_fraction')}"
           for k, r in enumerate(bw["results"]) if r.get("placement_fraction") != 1.0]
    cells = bw["matrix"][0]["cells"] if bw["matrix"] else []
    want = cells_want(c.s)
    got = sorted((x["initiator"], x["target"]) for x in cells)
    if got != want:
        bad.append(f"matrix cells {got} want {want}")
    for x in cells:
        if x["placement_fraction"] != 1.0 or not x["mb_per_s"] > 0:
            bad.append(f"{x['initiator']}->{x['target']} placement {x['placement_fraction']} "
                       f"{x['mb_per_s']} MB/s")
    c.r.check("run-bandwidth-matrix", not bad, "; ".join(bad) or
              f"all {len(want)} cells and {len(bw['results'])} runs, every buffer 100% on its node")


def check_run_scaling(c, res):
    sc = res["scaling"]
    series = sc["scaling"][0]["series"]
    bad = []
    for n in (n for n in c.s.nodes if n.cpus):
        curve = [x for x in series if x["mode"] == "packed" and x.get("node") == n.id]
        if not curve:
            bad.append(f"no packed curve for node {n.id}")
            continue
        pts = curve[0]["points"]
        if [p["threads"] for p in pts] != list(range(1, len(n.cpus) + 1)) or \
                any(not set(p["cpus"]) <= set(n.cpus) for p in pts):
            bad.append(f"node {n.id} points {[(p['threads'], p['cpus']) for p in pts]}")
    fr = [r["placement_fraction"] for r in sc["results"]]
    if any(f != 1.0 for f in fr):
        bad.append(f"placement fractions {fr}")
    c.r.check("run-scaling", not bad, "; ".join(bad) or
              f"a packed curve per CPU node, {len(fr)} runs 100% placed")


def check_run_loaded(c, res):
    import re
    l = res["loaded_latency"]
    home = res["scenarios"]["home_node"] if res.get("scenarios") else 0
    detail = next(p["detail"] for p in res["plan"]["parts"] if p["part"] == "loaded-latency")
    steps = re.search(r"(\d+) load-delay steps", detail)
    bad = []
    cp = l["chaser_placement"]
    if cp["intended_nodes"] != [home] or cp["fraction_on_intended"] != 1.0 or \
            l["load_placement_fraction"] != 1.0:
        bad.append(f"chased buffer {cp['fraction_on_intended']} on {cp['intended_nodes']}, "
                   f"load buffers {l['load_placement_fraction']}; want all on node {home}")
    others = [x for x in c.s.allowed_cpus() if x != l["chaser_cpu"]]
    if l["chaser_cpu"] not in c.s.node(home).cpus or sorted(l["load_cpus"]) != others:
        bad.append(f"chaser on CPU {l['chaser_cpu']}, load on {l['load_cpus']}")
    if steps is None or len(l["points"]) != int(steps.group(1)) + 1:
        bad.append(f"{len(l['points'])} points for the plan's {detail!r}")
    c.r.check("run-loaded-latency", not bad, "; ".join(bad) or
              f"chaser CPU {l['chaser_cpu']}, load CPUs {l['load_cpus']}, buffers 100% on node "
              f"{home}, {len(l['points'])} points (idle + {steps.group(1)} delay steps)")


def check_run_c2c(c, res):
    j = res["c2c"]
    pairs = sorted((p["from"], p["to"]) for p in j["pairs"])
    bad = [] if pairs == [(0, 2), (2, 0)] else [f"pairs {pairs}, want (0,2) and (2,0)"]
    if j["placement_fraction"] != 1.0:
        bad.append(f"line placement {j['placement_fraction']}")
    if any(not p["ns_one_way"]["median"] > 0 for p in j["pairs"]):
        bad.append("a pair has no round trip")
    patient = [f"{p['from']}->{p['to']}: {p['patience']}" for p in j["pairs"] if p.get("patience")]
    c.r.check("run-c2c", not bad, "; ".join(bad) or
              f"2 ordered pairs across the nodes, line on node {j['line_node']} 100%"
              + (f" (smaller batches needed: {'; '.join(patient)})" if patient else ""))


def pages_of(x):
    return {int(h["node"]): int(h["pages"]) for h in x.get("pages_per_node") or []}


def expected_pages(total, weights):
    """{node: pages} that weights {node: w} give `total` pages, before rounding."""
    w = sum(weights.values())
    return {n: total * k / w for n, k in weights.items()}


def pages_match(pages, weights, buffers):
    """True when the histogram is what the weights give its pages: each buffer's last partial
    round of the (weighted) interleave can leave node n up to its weight off, so `buffers`
    buffers allow buffers x weight pages either way; no page elsewhere."""
    if set(pages) - set(weights):
        return False
    total = sum(pages.values())
    want = expected_pages(total, weights)
    return total > 0 and all(abs(pages.get(n, 0) - want[n]) <= buffers * weights[n] for n in weights)


def weighted_expected(c):
    """True when this guest's kernel has weighted interleave (6.9+)."""
    return not (c.opts.no_weighted or c.opts.expect_weighted_refused)


def node_of_cpu(s, cpu):
    return next((n.id for n in s.nodes if cpu in n.cpus), None)


def check_run_scenarios(c, res):
    """The policy scenarios on 2 CPU nodes and a memory-only node: every row measured (or the
    same placement as a measured one), 100 % on the intended nodes, (c)-(g) with threads on
    both CPU nodes, and each row's pages where its policy puts them."""
    s = c.s
    t = res["scenarios"]
    home = t["home_node"]
    cpu_nodes = sorted(n.id for n in s.nodes if n.cpus)
    mem = s.memory_nodes()
    rows = {r["letter"]: r for r in t["scenarios"]}
    weights = {int(n): int(w) for n, w in t.get("weights") or []}
    bad, seen = [], []
    for letter in "abcdefg":
        r = rows.get(letter)
        if r is None:
            bad.append(f"({letter}) missing")
            continue
        if letter == "g" and not weighted_expected(c):
            # No weighted interleave in this kernel: (g) must say so instead of measuring.
            if r.get("mb_per_s") is not None or "6.9" not in (r.get("unavailable") or ""):
                bad.append(f"(g) measured or without the kernel reason: {r.get('unavailable')!r}")
            seen.append("(g) unavailable (kernel)")
            continue
        if r.get("unavailable") or r.get("mb_per_s") is None:
            bad.append(f"({letter}) not measured: {r.get('unavailable')}")
            continue
        if r.get("placement_fraction") != 1.0:
            bad.append(f"({letter}) placement {r.get('placement_fraction')}")
        pages = pages_of(r)
        threads = r["cpus"]
        nodes = sorted({node_of_cpu(s, x) for x in threads})
        # Where each row's threads run and its pages go.
        if letter == "a":
            # One thread bound to the home node: its CPUs are that node's, as with
            # numactl --cpunodebind.
            ok = r["threads"] == 1 and nodes == [home] and \
                sorted(threads) == sorted(x for x in s.node(home).cpus if x not in s.offline_cpus) \
                and set(pages) == {home}
        elif letter == "b":
            ok = not r["pinned"] and set(pages) == {home}
        elif letter == "c":
            # One copy per CPU node, each on its own node: equal buffers, one per node.
            ok = nodes == cpu_nodes and len(threads) == len(cpu_nodes) and \
                pages_match(pages, {n: 1 for n in cpu_nodes}, 0)
        elif letter == "d":
            ok = nodes == cpu_nodes and set(pages) == {home}
        elif letter == "e":
            per = {n: sum(1 for x in threads if node_of_cpu(s, x) == n) for n in cpu_nodes}
            ok = nodes == cpu_nodes and pages_match(pages, per, 0)
        elif letter == "f":
            ok = nodes == cpu_nodes and pages_match(pages, {n: 1 for n in mem}, len(threads))
        else:
            ok = nodes == cpu_nodes and sorted(weights) == mem and \
                pages_match(pages, weights, len(threads))
        if not ok:
            bad.append(f"({letter}) threads on CPUs {threads} (nodes {nodes}), pages {pages}")
        seen.append(f"({letter}) " + " ".join(f"n{n}={p}" for n, p in sorted(pages.items())))
    c.r.check("run-scenarios", not bad, "; ".join(bad) or
              f"(a)-(g) measured 100% placed, (c)-(g) on CPU nodes {cpu_nodes}; weights "
              f"{weights}; pages " + ", ".join(seen))


def check_run_auto_weights(c, res):
    """Row (h), the kernel's auto weights: measured in the rounds beside (g) with its pages in
    the proportions of `auto_weights` (or placed as another row, which it then names), or,
    where weighted interleave or the firmware's bandwidth is missing, not measured with why."""
    t = res["scenarios"]
    rows = {r["letter"]: r for r in t["scenarios"]}
    h = rows.get("h")
    if h is None:
        c.r.fail("run-auto-weights", "row (h) missing")
        return
    auto = {int(n): int(w) for n, w in t.get("auto_weights") or []}
    if not weighted_expected(c) or not c.s.hmat_lb:
        ok = h.get("mb_per_s") is None and bool(h.get("unavailable"))
        c.r.check("run-auto-weights", ok, f"(h) not measured: {h.get('unavailable')!r}")
        return
    mem = c.s.memory_nodes()
    bad = []
    if sorted(auto) != mem:
        bad.append(f"auto weights {auto} for memory nodes {mem}")
    if h.get("unavailable") or h.get("mb_per_s") is None:
        bad.append(f"(h) not measured: {h.get('unavailable')}")
    elif h.get("same_as"):
        pass
    elif h.get("placement_fraction") != 1.0 or not pages_match(pages_of(h), auto, len(h["cpus"])):
        bad.append(f"(h) placement {h.get('placement_fraction')}, pages {pages_of(h)}")
    c.r.check("run-auto-weights", not bad, "; ".join(bad) or
              f"(h) auto weights {auto} ({h['policy']}), "
              + (f"placed as ({h['same_as']})" if h.get("same_as") else f"pages {pages_of(h)}"))


def check_run_kinds(c, res):
    """A loaded-latency curve on each memory node of another kind or tier than the home
    node's: its buffers all on that node, the chaser and load CPUs those of the run's curve."""
    topo = res["topology"]
    kinds = {m["node"]: (m["kind"], m.get("tier")) for m in topo.get("node_memory", [])}
    home = res["loaded_latency"]["mem_node"]
    want = sorted({n for n, k in kinds.items()
                   if n != home and (k[0] != kinds[home][0] or
                                     (k[1] is not None and k[1] != kinds[home][1]))})
    got = {k["node"]: k["curve"] for k in res.get("loaded_latency_kinds", [])}
    bad = []
    # One curve per kind: nodes of one kind and tier share one.
    if not set(got) <= set(want) or (want and not got):
        bad.append(f"curves on nodes {sorted(got)}, nodes of another kind or tier {want}")
    for n, cv in got.items():
        cp = cv["chaser_placement"]
        if cp["intended_nodes"] != [n] or cp["fraction_on_intended"] != 1.0 or \
                cv["load_placement_fraction"] != 1.0 or len(cv["points"]) < 2:
            bad.append(f"node {n}: chased {cp['fraction_on_intended']} on {cp['intended_nodes']}, "
                       f"load {cv['load_placement_fraction']}, {len(cv['points'])} points")
        if cv["chaser_cpu"] != res["loaded_latency"]["chaser_cpu"]:
            bad.append(f"node {n}: chaser on CPU {cv['chaser_cpu']}")
    c.r.check("run-loaded-kinds", not bad, "; ".join(bad) or
              "curves on " + ", ".join(f"node {n} ({'/'.join(map(str, kinds[n]))})" for n in sorted(got))
              + f" beside node {home}'s")


def check_run_advisor(c, res):
    """The advisor: a bandwidth per memory node from the home node's threads, weights for
    every memory node, and its three checks placed as they say: bind all on the best node,
    interleave even, weighted interleave in the weights' proportions."""
    import re
    s = c.s
    a = res["advisor"]
    mem = s.memory_nodes()
    threads = len(s.node(a["initiator_node"]).cpus)
    weights = {int(n): int(w) for n, w in a["weights"]}
    measured = sorted(int(n) for n, _ in a["measured_mb_per_s"])
    bad = []
    if measured != mem or (weighted_expected(c) or weights) and \
            (sorted(weights) != mem or min(weights.values(), default=0) < 1):
        bad.append(f"measured nodes {measured}, weights {weights}; want every memory node {mem}")
    checks = a["checks"]
    if len(checks) != 3:
        bad.append(f"{len(checks)} checks, want 3")
    seen = []
    for ch in checks:
        pages = pages_of(ch)
        pol = ch["policy"]
        seen.append(f"{pol}: " + " ".join(f"n{n}={p}" for n, p in sorted(pages.items())))
        if pol.startswith("weighted interleave") and not weighted_expected(c):
            if ch.get("mb_per_s") is not None or not ch.get("unavailable"):
                bad.append(f"{pol} measured on a kernel without weighted interleave")
            continue
        if ch.get("mb_per_s") is None or ch.get("unavailable"):
            bad.append(f"{pol} not measured: {ch.get('unavailable')}")
            continue
        m = re.match(r"bind to node (\d+)$", pol)
        if m:
            ok = set(pages) == {int(m.group(1))}
        elif pol.startswith("interleave"):
            ok = pages_match(pages, {n: 1 for n in mem}, threads)
        elif pol.startswith("weighted interleave"):
            ok = pages_match(pages, weights, threads)
        else:
            ok = False
        if not ok:
            bad.append(f"{pol}: pages {pages}")
    c.r.check("run-advisor", not bad, "; ".join(bad) or
              f"node {a['initiator_node']}'s {threads} threads, weights {weights}; " + "; ".join(seen))


def check_run(c):
    res, files = run_output(c)
    if res is None:
        return
    f = c.g.facts
    try:
        check_run_files(c, res, files, c.g.blocks["run"].out)
        for part, fn in (("latency-matrix", check_run_latency_matrix),
                         ("bandwidth-matrix", check_run_bandwidth),
                         ("scaling", check_run_scaling),
                         ("loaded-latency", check_run_loaded),
                         ("c2c", check_run_c2c),
                         ("scenarios", check_run_scenarios),
                         ("scenarios", check_run_auto_weights),
                         ("loaded-latency", check_run_kinds),
                         ("advisor", check_run_advisor)):
            if part not in res["completed"]:
                c.r.fail(f"run-{part}", f"the part did not complete: {res['failed']}")
                continue
            try:
                fn(c, res)
            except (KeyError, TypeError, ValueError, IndexError, StopIteration) as e:
                c.r.fail(f"run-{part}", f"results.json lacks or mistypes {e!r}")
    except (KeyError, TypeError, ValueError) as e:
        c.r.fail("run-contract", f"results.json lacks or mistypes {e!r}")
    if "run.weights_before" in f:
        c.r.check("run-weights-restored", f.get("run.weights_after") == f["run.weights_before"],
                  f"system-wide weights {f['run.weights_before']!r} before, "
                  f"{f.get('run.weights_after')!r} after")


CHECKS = {"A": checks_A, "B": checks_B, "C": checks_C}


def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", required=True, choices=sorted(SHAPES))
    ap.add_argument("--log", required=True)
    ap.add_argument("--kernel", default="?", help="the guest kernel version (for messages)")
    ap.add_argument("--no-weighted", metavar="REASON",
                    help="skip weighted-interleave checks, saying REASON")
    ap.add_argument("--expect-weighted-refused", action="store_true",
                    help="the kernel is older than 6.9: weighted interleave must be refused")
    ap.add_argument("--save-fixtures", metavar="DIR", help="unpack the guest capture into DIR")
    ap.add_argument("--numascope", metavar="BIN",
                    help="the same binary on the host: replays the guest's capture with it")
    ap.add_argument("--wall-seconds", type=float, help="QEMU wall time, for the summary")
    ap.add_argument("--note", action="append", default=[], help="a harness problem (fails)")
    return ap


def main():
    opts = parser().parse_args()

    try:
        with open(opts.log, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError as e:
        print(f"NSCHECK {opts.shape} log FAIL cannot read {opts.log}: {e}")
        return 1
    report, guest = judge(text, opts)
    f = guest.facts
    boot = f.get("uptime_at_start")
    end = f.get("uptime_at_end")
    timing = []
    if boot:
        timing.append(f"guest reached init at {float(boot):.1f}s")
    if boot and end:
        timing.append(f"checks took {float(end) - float(boot):.1f}s")
    if opts.wall_seconds is not None:
        timing.append(f"QEMU wall {opts.wall_seconds:.1f}s")
    slow = sorted((b for b in guest.blocks.values() if b.secs is not None),
                  key=lambda b: -b.secs)[:3]
    if slow:
        timing.append("slowest: " + ", ".join(f"{b.name} {b.secs:.1f}s" for b in slow))
    n = report.counts
    print(f"   shape {opts.shape} (kernel {opts.kernel}): {n['PASS']} passed, {n['FAIL']} failed, "
          f"{n['SKIP']} skipped; {', '.join(timing) or 'no timing'}")
    return 1 if n["FAIL"] else 0


def judge(text, opts, quiet=False):
    """Runs every check of opts.shape over one serial log; returns (Report, Guest)."""
    shape = SHAPES[opts.shape]
    report = Report(opts.shape, quiet)
    guest = parse_log(text, opts.shape)
    for note in opts.note:
        report.fail("qemu", note)
    if not guest.began:
        report.fail("guest-started", "no NSGUEST-BEGIN marker: the guest never ran the checks "
                    f"(see {opts.log} and the .qemu.log beside it)")
    for err in guest.errors:
        report.fail("guest-error", err)
    c = Checker(shape, guest, report, opts)
    if guest.began:
        check_vm_shape(c)
        CHECKS[opts.shape](c)
    report.check("guest-finished", guest.ended,
                 "NSCHECK-END seen" if guest.ended else
                 "no NSCHECK-END marker: the guest crashed, hung or timed out mid-way")
    return report, guest


if __name__ == "__main__":
    sys.exit(main())
