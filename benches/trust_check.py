#!/usr/bin/env python3
"""Reads the results.json of several `numascope run` directories of one machine and prints,
per figure that carries a Summary (a JSON object with `median` and `samples`), how far the
runs' medians spread, how wide each run's 95 % interval is, and whether each run's interval
holds the other runs' medians; then whether the policy advice was the same in every run, and
each run's disturbance verdict and wall time. Used by trust_check.sh; `selftest` checks it on
made-up runs.

Only figures present in every run are compared. Intervals are read from `ci_low`/`ci_high`;
a figure without them counts as "no interval".
"""
import json
import statistics
import sys


def summaries(node, path=""):
    """Yields (path, summary) for every Summary-shaped object below node."""
    if isinstance(node, dict):
        if "median" in node and "samples" in node and isinstance(node.get("median"), (int, float)):
            yield path, node
            return
        for k, v in node.items():
            yield from summaries(v, f"{path}.{k}" if path else k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from summaries(v, f"{path}[{i}]")


def advice(run):
    """The scenario recommendations as comparable text (None when the run has none)."""
    table = run.get("scenarios") or {}
    recs = table.get("recommendations") or []
    out = []
    for r in recs:
        # What a user acts on: which configuration, how it was decided, which command line.
        # Without a winner (indistinguishable, same placement) nothing is advised, and which
        # of the tied rows `best` names is noise: compare the verdict alone.
        if r.get("verdict") in ("winner", "only-one") or r.get("verdict") is None:
            out.append(f"{r.get('app_kind')}: {r.get('verdict')} {r.get('best')} {r.get('numactl') or ''}".strip())
        else:
            out.append(f"{r.get('app_kind')}: {r.get('verdict')}")
    return out


def analyse(runs):
    paths = None
    per_run = []
    for r in runs:
        d = dict(summaries(r))
        per_run.append(d)
        paths = set(d) if paths is None else paths & set(d)
    rows = []
    for p in sorted(paths or []):
        meds = [d[p]["median"] for d in per_run]
        mid = statistics.median(meds)
        if mid == 0:
            continue
        spread = (max(meds) - min(meds)) / abs(mid)
        widths, holds, have_ci = [], 0, 0
        for i, d in enumerate(per_run):
            lo, hi = d[p].get("ci_low"), d[p].get("ci_high")
            if lo is None or hi is None:
                continue
            have_ci += 1
            # A run whose own median is 0 (a load thread that got no CPU at all) has no
            # relative width; its interval still counts for holding the others' medians.
            if d[p]["median"] != 0:
                widths.append((hi - lo) / 2 / abs(d[p]["median"]))
            others = [m for j, m in enumerate(meds) if j != i]
            holds += sum(lo <= m <= hi for m in others)
        pairs = have_ci * (len(runs) - 1)
        rows.append({
            "figure": p,
            "median_of_medians": mid,
            "spread_of_medians": spread,
            "runs_with_interval": have_ci,
            "max_half_width": max(widths) if widths else None,
            "others_inside": f"{holds}/{pairs}" if pairs else "no interval",
        })
    adv = [advice(r) for r in runs]
    same_advice = all(a == adv[0] for a in adv)
    return rows, same_advice, adv


def main(argv):
    if argv[1:2] == ["selftest"]:
        a = {"x": {"median": 100.0, "samples": 9, "ci_low": 98.0, "ci_high": 102.0},
             "scenarios": {"recommendations": [{"app_kind": "a", "verdict": "indistinguishable"}]}}
        b = {"x": {"median": 101.0, "samples": 9, "ci_low": 99.0, "ci_high": 104.0},
             "scenarios": {"recommendations": [{"app_kind": "a", "verdict": "indistinguishable"}]}}
        rows, same, _ = analyse([a, b])
        assert len(rows) == 1 and rows[0]["others_inside"] == "2/2", rows
        assert abs(rows[0]["spread_of_medians"] - 1 / 100.5) < 1e-9
        assert same
        b["scenarios"]["recommendations"][0]["best"] = "other"
        assert analyse([a, b])[1], "a tie names no configuration to act on"
        b["scenarios"]["recommendations"][0]["verdict"] = "winner"
        assert not analyse([a, b])[1]
        # One run's median of 0 (a load thread that never ran) neither crashes nor counts.
        z = {"x": {"median": 0.0, "samples": 9, "ci_low": 0.0, "ci_high": 0.0}}
        rows, _, _ = analyse([a, b, z])
        assert rows[0]["others_inside"] == "2/6" and rows[0]["max_half_width"] > 0, rows
        print("selftest ok")
        return 0
    runs = [json.load(open(f)) for f in argv[1:]]
    if len(runs) < 2:
        print("usage: trust_check.py RESULTS.json RESULTS.json [...] | selftest", file=sys.stderr)
        return 2
    rows, same, adv = analyse(runs)
    print(f"{'figure':70} {'median':>10} {'spread':>7} {'±CI max':>8} {'others in CI':>12}")
    for r in rows:
        hw = "-" if r["max_half_width"] is None else f"{100 * r['max_half_width']:.1f}%"
        print(f"{r['figure'][:70]:70} {r['median_of_medians']:10.4g} "
              f"{100 * r['spread_of_medians']:6.1f}% {hw:>8} {r['others_inside']:>12}")
    within3 = sum(1 for r in rows if r["max_half_width"] is not None and r["max_half_width"] <= 0.03)
    within5 = sum(1 for r in rows if r["max_half_width"] is not None and r["max_half_width"] <= 0.05)
    print(f"\n{len(rows)} figures; interval half-width <= 3 %: {within3}, <= 5 %: {within5}")
    print(f"advice the same in all {len(runs)} runs: {'yes' if same else 'no'}")
    if not same:
        for i, a in enumerate(adv):
            print(f"  run {i + 1}: {a}")
    for i, r in enumerate(runs):
        q = r.get("quality") or {}
        print(f"run {i + 1}: {r.get('duration_s', 0):.1f} s, verdict {q.get('verdict', '?')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
