#!/usr/bin/env python3
"""Summarizes the raw measurements of the benches/ comparison scripts into ratio tables.

The shell scripts append one line per measurement to a TSV file (tool, case, threads or page
size, run number, value, note); this file computes medians, spreads and ratios and prints the
table, so the statistics are in one place and can be checked on a fake file
(`summarize.py selftest`). Standard library only.

Spread is (max - min) / median over the runs, in percent. Ratios are ratios of medians;
"paired" is the median over runs of the per-run ratio (numascope's run r against the
reference's run r, measured back to back), which drifting background load disturbs less.
"""

import statistics
import sys
from collections import defaultdict


def load(path):
    """Reads the TSV into {(tool, case, variant): [values]} and {(tool, case, variant): notes}."""
    values = defaultdict(list)
    notes = defaultdict(list)
    global RUNS
    RUNS = defaultdict(dict)
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) < 5:
                continue
            tool, case, variant, _run, value = parts[:5]
            note = parts[5] if len(parts) > 5 else ""
            try:
                v = float(value)
            except ValueError:
                continue
            values[(tool, case, variant)].append(v)
            RUNS[(tool, case, variant)][_run] = v
            if note:
                notes[(tool, case, variant)].append(note)
    return values, notes


def stat(vals):
    """(median, spread %, n) or None."""
    if not vals:
        return None
    med = statistics.median(vals)
    spread = (max(vals) - min(vals)) / med * 100.0 if med else float("nan")
    return med, spread, len(vals)


def cell(s, fmt):
    if s is None:
        return "SKIP"
    med, spread, n = s
    return f"{fmt.format(med)} ±{spread:.0f}% (n={n})"


RUNS = defaultdict(dict)


def paired(key_a, key_b):
    """Median over the runs both keys have of value_a / value_b, as text."""
    a, b = RUNS.get(key_a, {}), RUNS.get(key_b, {})
    rs = [a[r] / b[r] for r in a if r in b and b[r]]
    return f"{statistics.median(rs):.3f}" if rs else "-"


def verdict(key_a, key_b):
    """The target column from the per-run paired ratios (a sign test, not the medians alone):
    ">=1" when every run's ratio is at least 1, "<1" when every run's is below, else
    "undecided" with the count of runs at or above 1: the machine's noise is larger than the
    difference, and the medians' ratio alone would name a side by chance."""
    a, b = RUNS.get(key_a, {}), RUNS.get(key_b, {})
    rs = [a[r] / b[r] for r in a if r in b and b[r]]
    if not rs:
        return "-"
    up = sum(1 for x in rs if x >= 1.0)
    if up == len(rs):
        return f">=1 ({up}/{len(rs)} runs)"
    if up == 0:
        return f"<1 (0/{len(rs)} runs)"
    return f"undecided ({up}/{len(rs)} runs >=1)"


def ratio(a, b):
    if a is None or b is None or b[0] == 0:
        return "-"
    return f"{a[0] / b[0]:.3f}"


def fmt_size(b):
    b = int(b)
    for unit, mult in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= mult and b % mult == 0:
            return f"{b // mult} {unit}"
    return f"{b} B"


def table(rows, header):
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths))
    out = [line(header), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out)


def latency(path, tolerance=0.03):
    values, notes = load(path)
    cases = sorted({(int(c), v) for (_t, c, v) in values if c.isdigit()})
    rows = []
    for size, page in cases:
        key = lambda tool: (tool, str(size), page)
        ns = stat(values.get(key("numascope"), []))
        mc = stat(values.get(key("multichase"), []))
        lm = stat(values.get(key("lat_mem_rd"), []))
        verdict = []
        for ref in (mc, lm):
            if ns and ref:
                verdict.append("ok" if abs(ns[0] / ref[0] - 1) <= tolerance else "off")
        rows.append(
            [
                fmt_size(size),
                page,
                cell(ns, "{:.1f}"),
                cell(mc, "{:.1f}"),
                cell(lm, "{:.1f}"),
                ratio(ns, mc),
                paired(key("numascope"), key("multichase")),
                ratio(ns, lm),
                paired(key("numascope"), key("lat_mem_rd")),
                "/".join(verdict) or "-",
            ]
        )
    header = [
        "size",
        "page",
        "numascope ns",
        "multichase ns",
        "lat_mem_rd ns",
        "ns/mc",
        "paired",
        "ns/lm",
        "paired",
        f"within {tolerance * 100:.0f}%",
    ]
    print(table(rows, header))
    hp = {k: v for k, v in notes.items() if v}
    if hp:
        print("\nhuge pages seen (AnonHugePages kB sampled during each reference run, or"
              " numascope's huge_fraction):")
        for (tool, size, page), ns in sorted(hp.items()):
            print(f"  {tool:10s} {fmt_size(size):8s} {page:4s} {' '.join(ns)}")


# numascope kernel, the figure of numascope compared, and why; per likwid-bench kernel.
LIKWID_MAP = {
    "load_avx": ("read", "mb_per_s.median"),
    "store_avx": ("write", "mb_per_s.median"),
    "store_mem_avx": ("write-nt", "mb_per_s.median"),
    "copy_avx": ("copy", "mb_per_s.median"),
    "copy_mem_avx": ("copy-nt", "mb_per_s.median"),
    "triad_avx": ("triad", "mb_per_s.median"),
}
STREAM_KERNELS = ["copy", "scale", "add", "triad"]


def bandwidth(path):
    values, _notes = load(path)
    threads = sorted({int(v) for (_t, _c, v) in values if v.isdigit()})
    rows = []
    have = {tool for (tool, _c, _v) in values}
    for lk, (nk, field) in LIKWID_MAP.items():
        if "likwid" not in have:
            break
        for t in threads:
            ref = stat(values.get(("likwid", lk, str(t)), []))
            ns = stat(values.get(("numascope", nk, str(t)), []))
            if ref is None and ns is None:
                continue
            rows.append(
                [
                    f"likwid {lk}",
                    nk,
                    t,
                    cell(ref, "{:.0f}"),
                    cell(ns, "{:.0f}"),
                    ratio(ns, ref),
                    paired(("numascope", nk, str(t)), ("likwid", lk, str(t))),
                    field,
                    verdict(("numascope", nk, str(t)), ("likwid", lk, str(t))),
                ]
            )
    for sk in STREAM_KERNELS:
        if "stream" not in have:
            break
        for t in threads:
            ref = stat(values.get(("stream", sk, str(t)), []))
            # STREAM prints its best iteration, so numascope's best repetition is its match.
            ns = stat(values.get(("numascope-max", sk, str(t)), []))
            if ref is None and ns is None:
                continue
            rows.append(
                [
                    f"STREAM {sk}",
                    sk,
                    t,
                    cell(ref, "{:.0f}"),
                    cell(ns, "{:.0f}"),
                    ratio(ns, ref),
                    paired(("numascope-max", sk, str(t)), ("stream", sk, str(t))),
                    "mb_per_s.max",
                    verdict(("numascope-max", sk, str(t)), ("stream", sk, str(t))),
                ]
            )
    header = [
        "reference",
        "numascope kernel",
        "threads",
        "reference MB/s",
        "numascope MB/s",
        "ratio",
        "paired",
        "numascope figure",
        "target",
    ]
    print(table(rows, header))
    dram = {k: v for k, v in values.items() if k[0] == "numascope-dram"}
    if dram:
        print("\nnumascope dram_mb_per_s_estimate (write-allocate included; for information):")
        for (_t, k, th), v in sorted(dram.items()):
            s = stat(v)
            print(f"  {k:9s} threads={th}  {cell(s, '{:.0f}')}")


def selftest():
    """Checks the statistics and tables on a fake TSV; exits non-zero on a mismatch."""
    import tempfile

    lines = [
        "numascope\t268435456\t4k\t1\t100\t",
        "numascope\t268435456\t4k\t2\t102\t",
        "numascope\t268435456\t4k\t3\t98\t",
        "multichase\t268435456\t4k\t1\t101\t0",
        "lat_mem_rd\t268435456\t4k\t1\t110\t0",
        "likwid\tload_avx\t1\t1\t10000\t",
        "numascope\tread\t1\t1\t10500\t",
        "stream\ttriad\t2\t1\t9000\t",
        "numascope\ttriad\t2\t1\t8100\t",
        "numascope-max\ttriad\t2\t1\t9900\t",
        "numascope\t1024\t4k\t1\t100\t",
        "multichase\t1024\t4k\t1\t90\t0",
        "numascope\t1024\t4k\t2\t100\t",
        "multichase\t1024\t4k\t2\t110\t0",
        "# a comment\n",
        "garbage line",
    ]
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    v, _ = load(path)
    assert stat(v[("numascope", "268435456", "4k")]) == (100, 4.0, 3), v
    assert ratio((100, 0, 1), (101, 0, 1)) == "0.990"
    assert paired(("numascope", "268435456", "4k"), ("multichase", "268435456", "4k")) == "0.990"
    assert paired(("numascope", "read", "1"), ("likwid", "load_avx", "1")) == "1.050"
    assert verdict(("numascope", "read", "1"), ("likwid", "load_avx", "1")) == ">=1 (1/1 runs)"
    assert verdict(("numascope", "268435456", "4k"), ("multichase", "268435456", "4k")) == (
        "<1 (0/1 runs)"
    )
    assert verdict(("numascope", "1024", "4k"), ("multichase", "1024", "4k")) == (
        "undecided (1/2 runs >=1)"
    )
    assert fmt_size(1 << 30) == "1 GiB" and fmt_size(256 << 20) == "256 MiB"
    assert stat(v[("numascope-max", "triad", "2")]) == (9900, 0.0, 1)
    latency(path)
    bandwidth(path)
    print("selftest ok")


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "selftest":
        selftest()
    elif len(sys.argv) == 3 and sys.argv[1] in ("latency", "bandwidth"):
        {"latency": latency, "bandwidth": bandwidth}[sys.argv[1]](sys.argv[2])
    else:
        sys.exit("usage: summarize.py latency|bandwidth FILE.tsv | summarize.py selftest")
