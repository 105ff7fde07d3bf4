#!/usr/bin/env python3
"""Sampled GPU tracing replayed on a fully traced run's GPU timeline: which kernels would the
windows have kept, and how far would each Python line's share of GPU time have moved?

The input is a profile recorded with full tracing under capture ranges (every kernel, with its
start time and call path, in its GPU activity timeline). Windows are laid over each range the way
the runtime opens them (ON ms open, then closed for 0.5x to 1.5x of PERIOD-ON, and so on) with
two entry policies, many random draws each:
  start    every range starts with an open window (what main does);
  uniform  a range enters the cycle at a point drawn uniformly over one period (the
           wip/sampled-random-phase branch).
A kernel is kept when its GPU start lies in an open window (decoding is launch-bound: the GPU
runs a few microseconds behind the launches). Shares are taken as bench/gpu_sampled_tracing.py
takes them: each kernel's GPU time on its nearest named Python frame, lines holding >= 1% of GPU
time in either; the figure is the largest difference in points. Needs no GPU.
  python3 bench/sampled_window_sim.py --cli build/bin/strata FULL.strata [FULL2.strata ...]
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile


def kernels(cli, profile):
    """(start us, duration us, line key) of every kernel in the profile's GPU timeline."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "trace.json")
        r = subprocess.run([cli, "export", "--format", "chrome", "-o", out, profile],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise SystemExit(f"sampled_window_sim: {profile}: {(r.stderr.strip().splitlines() or ['strata export failed'])[-1]}")
        with open(out) as f:
            events = json.load(f)["traceEvents"]
    rows = []
    for e in events:
        if e.get("ph") != "X" or e.get("cat") != "kernel":
            continue
        key = "<no python>"
        for fr in reversed(e["args"].get("call_path", [])):
            if fr.get("kind") == "python" and fr.get("function") != "<?>":
                key = f'{fr.get("file")}:{fr.get("line")} {fr["function"]}'
                break
        rows.append((float(e["ts"]), float(e["dur"]), key))
    rows.sort()
    return rows


def ranges(rows, gap_us):
    """The capture ranges: runs of kernels with no gap longer than gap_us."""
    out, cur = [], [rows[0]]
    for r in rows[1:]:
        if r[0] - cur[-1][0] > gap_us:
            out.append(cur)
            cur = []
        cur.append(r)
    out.append(cur)
    return out


def windows(t0, t1, on, period, policy, rnd):
    """Open intervals (us) over [t0, t1]."""
    closed = period - on
    closed_time = lambda: (closed // 2 + rnd.randint(0, closed)) * 1e3  # TraceWindowConfig::ClosedMs
    t = t0
    if policy == "start":
        is_open, left = True, on * 1e3
    else:
        at = rnd.uniform(0, period)
        is_open, left = (True, (on - at) * 1e3) if at < on else (False, (period - at) * 1e3)
    out = []
    while t < t1:
        if is_open:
            out.append((t, t + left))
        t += left
        is_open = not is_open
        left = on * 1e3 if is_open else closed_time()
    return out


def shares(rows):
    per, total = {}, 0.0
    for _, d, k in rows:
        per[k] = per.get(k, 0.0) + d
        total += d
    return {k: v / total for k, v in per.items()} if total else {}


def max_points(a, b):
    keys = [k for k in set(a) | set(b) if max(a.get(k, 0), b.get(k, 0)) >= 0.01]
    return max((abs(a.get(k, 0) - b.get(k, 0)) * 100, k) for k in keys)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profiles", nargs="+")
    ap.add_argument("--cli", default="strata")
    ap.add_argument("--on", type=int, default=100)
    ap.add_argument("--period", type=int, default=1000)
    ap.add_argument("--draws", type=int, default=400)
    ap.add_argument("--gap-ms", type=float, default=300, help="a pause this long separates two capture ranges")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    result = {}
    for p in args.profiles:
        rows = kernels(args.cli, p)
        if not rows:
            raise SystemExit(f"sampled_window_sim: {p}: no kernel in its GPU activity timeline")
        rs = ranges(rows, args.gap_ms * 1e3)
        full = shares(rows)
        top = max(full, key=full.get)
        res = {"kernels": len(rows), "ranges": len(rs),
               "range_s": [round((r[-1][0] - r[0][0]) / 1e6, 3) for r in rs],
               "top_line": top, "top_full_pct": round(full[top] * 100, 2)}
        for policy in ("start", "uniform"):
            worst, top_pct, kept = [], [], []
            for _ in range(args.draws):
                sel = []
                for r in rs:
                    ws = windows(r[0][0], r[-1][0] + 1, args.on, args.period, policy, rnd)
                    i = 0
                    for row in r:
                        while i < len(ws) and ws[i][1] <= row[0]:
                            i += 1
                        if i < len(ws) and ws[i][0] <= row[0]:
                            sel.append(row)
                if not sel:
                    continue
                s = shares(sel)
                worst.append(max_points(full, s)[0])
                top_pct.append(s.get(top, 0) * 100)
                kept.append(len(sel) / len(rows))
            worst.sort()
            res[policy] = {
                "draws": len(worst),
                "max_points_median": round(statistics.median(worst), 2),
                "max_points_p90": round(worst[int(0.9 * (len(worst) - 1))], 2),
                "within_5_points": round(sum(w <= 5 for w in worst) / len(worst), 3),
                "top_line_pct_mean": round(statistics.mean(top_pct), 2),
                "kept_fraction_mean": round(statistics.mean(kept), 4),
            }
        result[os.path.basename(p)] = res
        print(json.dumps({os.path.basename(p): res}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
