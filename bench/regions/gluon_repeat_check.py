#!/usr/bin/env python3
"""The Gluon attention's record cost with several traced launches per shape (bench/regions/
calibration_h100.sh with PARTS=repeat: two processes, A and B, each tracing K launches of every
density and length, the lengths taking turns):

  gluon_repeat_check.py RUN_A RUN_B [--strata build/bin/strata] [--cycles-per-ns R] [--json DIR] [--per-length] [--pooled]
  gluon_repeat_check.py RUN_A --halves ...   (one process: its even launches fit, its odd ones replayed)

First how much the truth itself moves: the loop-only trace's consumer_loop / producer_loop spans,
launch by launch, within a process and between the two. Then the paced model (strata regions
--fit-paced, as in record_cost_heldout.py) fitted on A at 1024 tokens, once per traced launch
(the median of its numbers kept), replaying every launch of A and B at every length against the
mean of that process's loop-only launches of the same length. --per-length: a model fitted on A at
each length (the kernel's own pair at that launch shape) replays that length, on A and on B.
--pooled: the model fitted once by the product over all of A's launches at the length (strata
regions --fit-paced with every instrumented launch, --fit-reference with every loop-only one: their
mean) instead of the median of per-launch fits; the replay is the product's either way (strata
regions --start-cost on every launch)."""
import argparse
import atexit
import glob
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_cost_heldout as h  # noqa: E402

LOOPS = h.LOOPS
SUB = "gluon"


def launches(run, density, shape, parity=None):
    """The traced launches of one density and shape: [(k, path)], in order; with parity 0 or 1
    only the even or the odd ones, numbered k // 2."""
    pat = os.path.join(run, SUB, f"{density}_{shape}_t*.chrome_trace*")
    out = []
    for p in glob.glob(pat):
        m = re.search(r"_t(\d+)\.chrome_trace", p)
        if m and (parity is None or int(m.group(1)) % 2 == parity):
            out.append((int(m.group(1)) // (1 if parity is None else 2), p))
    return sorted(out)


def unpacked(path, tmp):
    if not path.endswith(".gz"):
        return path
    import gzip
    out = os.path.join(tmp, os.path.basename(os.path.dirname(os.path.dirname(path))) + "_" + os.path.basename(path)[:-3])
    if not os.path.exists(out):
        with gzip.open(path) as f, open(out, "wb") as o:
            o.write(f.read())
    return out


def shapes_of(run):
    found = {m.group(1) for p in glob.glob(os.path.join(run, SUB, "loop_n*_t*"))
             for m in [re.search(r"loop_(n\d+)_t", p)] if m}
    return sorted(found, key=lambda s: int(s[1:]))


# The CLI runs once a trace and once a replay, each its own process: side by side on every core.
POOL = ThreadPoolExecutor(max_workers=os.cpu_count() or 2)


def spans(strata, run, density, shape, rate, tmp, parity=None):
    """[(k, path, {loop: {span, records, lanes}})] of every traced launch (of one parity)."""
    found = launches(run, density, shape, parity)
    paths = [unpacked(p, tmp) for _, p in found]
    got = POOL.map(lambda path: h.gluon_spans(strata, path, rate)[0], paths)
    return [(k, path, g) for (k, _), path, g in zip(found, paths, got)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run_a")
    ap.add_argument("run_b", nargs="?", help="omitted with --halves")
    ap.add_argument("--strata", default=os.environ.get("STRATA", "build/bin/strata"))
    ap.add_argument("--cycles-per-ns", type=float, default=1.98)
    ap.add_argument("--json", metavar="DIR")
    ap.add_argument("--per-length", action="store_true", help="fit at every length, each replaying its own")
    ap.add_argument("--pooled", action="store_true", help="fit the means of all launches at once (least squares)")
    ap.add_argument("--halves", action="store_true",
                    help="within one process: RUN_A's even launches as A, its odd ones as B")
    a = ap.parse_args()
    if bool(a.halves) == bool(a.run_b):
        ap.error("give RUN_B, or --halves with RUN_A alone")
    rate, tmp = a.cycles_per_ns, tempfile.mkdtemp()
    atexit.register(shutil.rmtree, tmp, True)  # the unpacked traces
    runs = {"A": (a.run_a, 0), "B": (a.run_a, 1)} if a.halves else {"A": (a.run_a, None), "B": (a.run_b, None)}
    shapes = shapes_of(a.run_a)
    if not shapes:
        raise SystemExit(f"{a.run_a}/{SUB}: no loop_n<tokens>_t<k>.chrome_trace[.gz] (PARTS=repeat)")
    data = {r: {d: {s: spans(a.strata, p, d, s, rate, tmp, parity) for s in shapes} for d in ("loop", "sparse", "dense")}
            for r, (p, parity) in runs.items()}

    print("Truth: the loop-only trace's loop spans (cycles), launch by launch")
    print("| process | tokens | loop | launches | mean | min | max | max/min | A's mean, B against it |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    truth = {}
    for r in runs:
        for s in shapes:
            for n in LOOPS:
                v = [x[2][n]["span"] for x in data[r]["loop"][s]]
                if not v:
                    continue
                truth[(r, s, n)] = statistics.mean(v)
                against = f"{100 * (statistics.mean(v) / truth[('A', s, n)] - 1):+.2f}%" if r == "B" and ("A", s, n) in truth else ""
                print(f"| {r} | {s[1:]} | {n} | {len(v)} | {statistics.mean(v):,.0f} | {min(v):,.0f} | {max(v):,.0f} | "
                      f"{100 * (max(v) / min(v) - 1):.2f}% | {against} |")

    def pooled(shape):
        # The product's paced fit over every launch at once: all of A's instrumented launches of
        # both densities, against the mean of its loop-only launches (--fit-reference, several).
        base = data["A"]
        loops = [p for _, p, _ in base["loop"][shape]]
        dense = [p for _, p, _ in base["dense"][shape]]
        others = dense[1:] + [p for _, p, _ in base["sparse"][shape]]
        got = h.fit_start_costs(a.strata, dense[0], others, loops, rate)
        ref_records = statistics.mean(x[2]["consumer_loop"]["records"] for x in base["loop"][shape])
        pace = (base["dense"][shape][0][2]["consumer_loop"]["records"] - ref_records) / (int(shape[1:]) // 64)
        c, costs = got["wait_kv"] / pace, {n: got[n] for n in LOOPS}
        print(f"\nPaced model fitted by strata regions on A at {shape[1:]} tokens, all launches pooled ({len(loops)} loop-only "
              f"references, {1 + len(others)} instrumented): c {c:.2f}, "
              f"loops {costs['consumer_loop']:.0f} / {costs['producer_loop']:.0f}")
        return c, costs, []

    def model(shape):
        if a.pooled:
            return pooled(shape)
        base = data["A"]
        fits = [h.fit_paced_files(a.strata, dense, sparse, loop, rate, int(shape[1:]) // 64)
                for (_, dense, _), (_, sparse, _), (_, loop, _) in zip(base["dense"][shape], base["sparse"][shape], base["loop"][shape])]
        c = statistics.median(f[0] for f in fits)
        costs = {n: statistics.median(f[1][n] for f in fits) for n in LOOPS}
        print(f"\nPaced model fitted on A at {shape[1:]} tokens, launch by launch ({len(fits)}): c "
              + ", ".join(f"{f[0]:.2f}" for f in fits) + f" (median {c:.2f}); loops "
              + ", ".join(f"{f[1]['consumer_loop']:.0f}/{f[1]['producer_loop']:.0f}" for f in fits)
              + f" (median {costs['consumer_loop']:.0f} / {costs['producer_loop']:.0f})")
        return c, costs, fits

    models = {s: model(s) for s in (shapes if a.per_length else ["n1024"])}
    print("\n| process | density | tokens | loop | truth (mean) | raw error | replayed error (mean of launches) | launches' replayed errors |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    rows, summary = [], {}
    for r in runs:
        for d in ("sparse", "dense"):
            for s in shapes:
                iters = int(s[1:]) // 64
                c, costs, _ = models[s if a.per_length else "n1024"]
                if not data[r][d][s] or not data[r]["loop"][s]:
                    continue
                truth_records = statistics.mean(x[2]["consumer_loop"]["records"] for x in data[r]["loop"][s])
                rep = {n: [] for n in LOOPS}
                raw = {n: [] for n in LOOPS}
                replayed = POOL.map(lambda x: h.paced_loop_spans(a.strata, x[1], rate, c * (x[2]["consumer_loop"]["records"] - truth_records) / iters, costs),
                                    data[r][d][s])
                for (k, path, val), got in zip(data[r][d][s], replayed):
                    for n in LOOPS:
                        rep[n].append(statistics.mean(got[n]))
                        raw[n].append(val[n]["span"])
                for n in LOOPS:
                    t = truth[(r, s, n)]
                    e = statistics.mean(rep[n]) / t - 1
                    held_out = r == "B" or (not a.per_length and s != "n1024")
                    summary.setdefault((r, held_out), []).append(abs(e))
                    rows.append({"process": r, "density": d, "tokens": int(s[1:]), "loop": n, "truth": t,
                                 "raw": statistics.mean(raw[n]) / t - 1, "error": e,
                                 "launch_errors": [x / t - 1 for x in rep[n]]})
                    print(f"| {r} | {d} | {s[1:]} | {n} | {t:,.0f} | {100 * (statistics.mean(raw[n]) / t - 1):+.2f}% | "
                          f"{100 * e:+.2f}% | " + " ".join(f"{100 * (x / t - 1):+.1f}" for x in rep[n]) + " |")
    print()
    for (r, held_out), e in sorted(summary.items()):
        what = ("held out" if held_out else "in-sample (the fit's own launches)")
        print(f"{r}, {what}: mean |error| {100 * statistics.mean(e):.2f}%, max {100 * max(e):.2f}%, "
              f"{sum(x <= 0.02 for x in e)}/{len(e)} within 2%")
    if a.json:
        json.dump({"models": {k: {"c": m[0], "loop_costs": m[1], "fits": m[2]} for k, m in models.items()}, "rows": rows},
                  open(os.path.join(a.json, "gluon_repeat" + ("_per_length" if a.per_length else "") + ("_pooled" if a.pooled else "") + ".json"), "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
