#!/usr/bin/env python3
"""Reads the figures of headline-latency-vs-multichase.sh and summarizes them.

  headline_places.py run RESULTS.json ROUND        TSV lines: every place of the run that
                                                   reports local idle latency or local read
                                                   bandwidth, with its interval
  headline_places.py standalone LATENCY.json ROUND TSV line: the standalone command's figure
  headline_places.py multichase OUTPUT ROUND       TSV lines: multichase's median over its
                                                   0.5 s samples (-v rows, the first sample
                                                   already dropped by multichase) with the
                                                   same order-statistic interval numascope
                                                   uses, and its own printed best (minimum)
  headline_places.py summarize FILE.tsv            the table, the paired ratios, the agreement

TSV columns: place, round, median, ci_low, ci_high, note. The places and the rule follow
numascope's results/agreement.rs: a place under the reference's conditions either shows the
reference's figure itself ("same") or measured its own, and then its interval must overlap the
reference's; a place under other conditions says which.
"""
import json
import re
import statistics
import sys


def fig(s):
    """(median, low, high) of a Summary or Rates object."""
    if not s:
        return None
    return (s.get("median"), s.get("ci_low"), s.get("ci_high"))


def line(place, rnd, f, note=""):
    if f is None:
        return
    m, lo, hi = f
    cell = lambda v: "" if v is None else (str(v) if isinstance(v, int) else f"{v:.6g}")
    print(f"{place}\t{rnd}\t{cell(m)}\t{cell(lo)}\t{cell(hi)}\t{note}")


def run_places(path, rnd):
    r = json.load(open(path))
    ref = (r.get("reference") or {})
    lat = ref.get("latency")
    if lat:
        q = lat.get("quality") or {}
        note = "DISTURBED" if q.get("disturbed") else ""
        line("reference", rnd, fig(lat["ns_per_load"]), note)
        ws = lat["working_set_bytes"]
        line("reference_ws", rnd, (ws, None, None))
        reps = [x["ns_per_load"] for x in ref.get("repetitions", [])
                if x.get("latency_kept") and x.get("ns_per_load")]
        if reps:
            # The spread of the repetitions themselves (one 20 ms figure each), over the run.
            line("reference_reps", rnd, (statistics.median(reps), min(reps), max(reps)))
        pr = lat.get("probe")
        if pr:
            # The idle probe's verdict: blocks judged disturbed of those probed, and whether
            # they (with any kept short of CPU) were left out of the figure.
            line("reference_probe", rnd, (pr["blocks_disturbed"], pr["blocks_probed"], None),
                 "left out" if pr.get("left_out") else "")
    # Places whose blocks the reference pooled into its figure (one estimate): their own
    # figure is shown marked "pooled", and is not a second figure of the quantity.
    names = [(p.get("figure"), p.get("place", "")) for p in ref.get("pooled", [])]
    is_pooled = lambda fig_, start: any(f == fig_ and n.startswith(start) for f, n in names)
    loaded = r.get("loaded_latency")
    if loaded and loaded.get("points"):
        p = loaded["points"][0]
        cond = "" if not lat or loaded.get("chaser_size_bytes") == lat["working_set_bytes"] else \
            f"{loaded.get('chaser_size_bytes', 0) >> 20} MiB"
        if not cond and is_pooled("latency", "loaded-latency no-load point"):
            cond = "pooled"
        line("loaded_idle", rnd, fig(p["ns_per_load"]), cond)
    sc = r.get("scenarios")
    if sc:
        for row in sc.get("scenarios", []):
            if row.get("id") in ("pinned-local", "PinnedLocal") or row.get("letter") == "a":
                if row.get("latency"):
                    ws = sc.get("latency_working_set_bytes")
                    cond = "" if not lat or ws == lat["working_set_bytes"] else f"{(ws or 0) >> 20} MiB"
                    if not cond and is_pooled("latency", "scenario (a)'s latency"):
                        cond = "pooled"
                    line("scenario_a", rnd, fig(row["latency"]["ns_per_load"]), cond)
    bw = ref.get("bandwidth")
    if bw:
        line("reference_bw", rnd, fig(bw["mb_per_s"]))
    for row in (sc or {}).get("scenarios", []):
        if row.get("letter") == "d" and row.get("mb_per_s") and not row.get("same_as"):
            note = "pooled" if is_pooled("bandwidth", "scenario (d)'s bandwidth") else ""
            line("scenario_d_bw", rnd, fig(row["mb_per_s"]), note)
    dis = [w for w in r.get("warnings", []) if "intervals exclude each other" in w]
    line("disagreements", rnd, (len(dis), None, None), " | ".join(dis)[:400])


def order_interval(v):
    """(median, low, high): the median and the distribution-free 95 % interval of the median
    (order statistics x_(j), x_(n+1-j) with the largest j covering at least 95 %, as
    numascope's stats do); no interval below 6 values."""
    from math import comb
    v = sorted(v)
    n = len(v)
    med = statistics.median(v)
    if n < 6:
        return (med, None, None)
    for j in range(n // 2, 0, -1):
        cover = sum(comb(n, i) for i in range(j, n - j + 1)) / 2 ** n
        if cover >= 0.95:
            return (med, v[j - 1], v[n - j])
    return (med, v[0], v[-1])


def multichase(path, rnd):
    """multichase -v prints one row per 0.5 s sample ('... avg=N'), then its best (minimum)
    alone on the last line. The run's headline is a median of steady-state samples, so the
    like-for-like figure is multichase's median of its samples, not its best."""
    text = open(path).read().splitlines()
    samples = [float(m.group(1)) for m in (re.search(r"avg=([0-9.]+)", t) for t in text) if m]
    if samples:
        line("multichase", rnd, order_interval(samples))
    best = text[-1].strip() if text else ""
    if re.fullmatch(r"[0-9.]+", best):
        line("multichase_best", rnd, (float(best), None, None))


def standalone(path, rnd):
    r = json.load(open(path))
    line("standalone", rnd, fig(r["results"][0]["ns_per_load"]))


def load(path):
    rows = {}
    notes = {}
    for raw in open(path):
        parts = raw.rstrip("\n").split("\t")
        if len(parts) < 3 or not parts[2]:
            continue
        place, rnd = parts[0], int(parts[1])
        num = lambda i: float(parts[i]) if len(parts) > i and parts[i] else None
        rows[(place, rnd)] = (num(2), num(3), num(4))
        notes[(place, rnd)] = parts[5] if len(parts) > 5 else ""
    return rows, notes


def overlap(a, b):
    if a is None or b is None or None in (a[1], a[2], b[1], b[2]):
        return None
    return a[1] <= b[2] and b[1] <= a[2]


def cell(f, note=""):
    if f is None:
        return "-"
    m, lo, hi = f
    s = f"{m:.0f}" if lo is None else f"{m:.0f} [{lo:.0f}, {hi:.0f}]"
    return f"{s} {note}".strip()


def cross_cover(rows, rounds, place):
    """How often another round's median of `place` falls inside a round's interval of it
    (ordered pairs of rounds), and the median half-width of its intervals in % of the median:
    an interval that describes a moment narrower than the host's drift holds few of them."""
    figs = {r: rows[(place, r)] for r in rounds if (place, r) in rows}
    figs = {r: f for r, f in figs.items() if None not in f}
    pairs = [(a, b) for a in figs for b in figs if a != b]
    if not pairs:
        return None
    inside = sum(figs[a][1] <= figs[b][0] <= figs[a][2] for a, b in pairs)
    half = statistics.median(50 * (f[2] - f[1]) / f[0] for f in figs.values())
    return inside, len(pairs), half


def summarize(path):
    rows, notes = load(path)
    rounds = sorted({r for (_, r) in rows})
    cols = ["reference", "reference_reps", "loaded_idle", "scenario_a", "standalone",
            "multichase", "multichase_best"]
    head = ["round", "run's reference", "its repetitions [min, max]", "loaded idle point",
            "scenario (a)", "standalone", "multichase median", "multichase best",
            "disagreements"]
    print("Local idle latency, ns per load: median [95 % interval]; a place under other"
          " conditions names them:")
    print(" | ".join(head))
    for r in rounds:
        cells = [str(r)] + [cell(rows.get((c, r)), notes.get((c, r), "")) for c in cols]
        d = rows.get(("disagreements", r))
        cells.append("-" if d is None else f"{d[0]:.0f} {notes.get(('disagreements', r), '')}")
        print(" | ".join(cells))
    print()

    def paired(a, b):
        ratios = [rows[(a, r)][0] / rows[(b, r)][0] for r in rounds
                  if (a, r) in rows and (b, r) in rows and rows[(b, r)][0]]
        if not ratios:
            return "-"
        # The median's own 95 % interval says whether the rounds can tell a 3 % gap at all.
        _, lo, hi = order_interval(ratios)
        ci = "no interval below 6 rounds" if lo is None else f"95 % interval {lo:.3f}-{hi:.3f}"
        return (f"{statistics.median(ratios):.3f} ({ci}; per round {min(ratios):.3f}-"
                f"{max(ratios):.3f}, n={len(ratios)})")

    print(f"run's headline / standalone, median of paired ratios: {paired('reference', 'standalone')}")
    print(f"run's headline / multichase, median of paired ratios: {paired('reference', 'multichase')}"
          " (multichase's median of its 0.5 s samples: like for like)")
    print(f"run's headline / multichase's best (its printed minimum): {paired('reference', 'multichase_best')}")
    print(f"standalone / multichase, median of paired ratios:     {paired('standalone', 'multichase')}")
    # A pooled place's own median against the reference's own repetitions: below 1 in most
    # rounds on a VM, where buffers allocated later in the run get other physical pages
    # (docs/METHODOLOGY.md, "Physical pages").
    print(f"loaded idle point / the reference's repetitions:     {paired('loaded_idle', 'reference_reps')}")
    print(f"scenario (a) / the reference's repetitions:          {paired('scenario_a', 'reference_reps')}")
    widths = []
    for r in rounds:
        a, b = rows.get(("reference", r)), rows.get(("standalone", r))
        if a and b and None not in (a[1], b[1]) and b[2] > b[1]:
            widths.append((a[2] - a[1]) / (b[2] - b[1]))
    if widths:
        print(f"headline interval width / standalone's (same round): median {statistics.median(widths):.2f},"
              f" max {max(widths):.2f} (target <= 2)")
    for place in ("reference", "standalone", "multichase"):
        c = cross_cover(rows, rounds, place)
        if c:
            print(f"{place}: another round's median inside a round's interval in {c[0]}/{c[1]} pairs;"
                  f" interval half-width median {c[2]:.1f} %")
    def agreement(a, other, label):
        """Per round: pooled into the reference (one estimate), or its own figure judged by
        overlap; a place under other conditions is not counted. The own interval of a pooled
        place is still compared, for information."""
        pooled = [r for r in rounds if notes.get((other, r)) == "pooled"]
        judged = [overlap(rows.get((a, r)), rows.get((other, r))) for r in rounds
                  if not notes.get((other, r))]
        judged = [j for j in judged if j is not None]
        info = [overlap(rows.get((a, r)), rows.get((other, r))) for r in pooled]
        info = [j for j in info if j is not None]
        parts = []
        if pooled:
            parts.append(f"pooled into one figure in {len(pooled)}/{len(rounds)} rounds"
                         f" (its own interval overlaps the pooled figure's in {sum(info)}/{len(info)})")
        if judged:
            parts.append(f"intervals overlap in {sum(judged)}/{len(judged)} rounds")
        if parts:
            print(f"{label}: {'; '.join(parts)}")

    agreement("reference", "loaded_idle", "reference vs loaded_idle")
    agreement("reference", "scenario_a", "reference vs scenario_a")
    agreement("reference", "standalone", "reference vs standalone")
    agreement("reference_bw", "scenario_d_bw", "reference bandwidth vs scenario (d)")
    ws = {rows[("reference_ws", r)][0] for r in rounds if ("reference_ws", r) in rows}
    if ws:
        print(f"run's reference working set: {', '.join(f'{int(w) >> 20} MiB' for w in sorted(ws))}")
    dist = [r for r in rounds if notes.get(("reference", r)) == "DISTURBED"]
    print(f"rounds whose headline is marked DISTURBED: {len(dist)}/{len(rounds)}")
    probed = [r for r in rounds if ("reference_probe", r) in rows]
    if probed:
        per = ", ".join(f"{rows[('reference_probe', r)][0]:.0f}/{rows[('reference_probe', r)][1]:.0f}"
                        for r in probed)
        out = [r for r in probed if notes.get(("reference_probe", r)) == "left out"]
        print(f"idle probe: blocks judged disturbed per round {per}; disturbed blocks left out"
              f" of the figure in {len(out)}/{len(probed)} rounds")


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "run":
        run_places(sys.argv[2], sys.argv[3])
    elif cmd == "standalone":
        standalone(sys.argv[2], sys.argv[3])
    elif cmd == "multichase":
        multichase(sys.argv[2], sys.argv[3])
    elif cmd == "summarize":
        summarize(sys.argv[2])
    else:
        print(__doc__)
        sys.exit(2)
