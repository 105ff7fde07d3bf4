#!/usr/bin/env python3
"""Sampled GPU tracing (STRATA_GPU_SAMPLING=ON/PERIOD ms windows) against full tracing, no
profiler and CUPTI's own floor (activity records only, no callbacks, no operators), side by
side: configurations alternate within each round, several rounds. Per workload: median time per
step / token and its ratio to no profiler; and, from the last round's full and sampled profiles,
how far each Python line's share of GPU time moved (its nearest named Python frame; max and
mean absolute difference in points, over lines holding >= 1% of GPU time in either).
Runs on the GPU machine (LD_LIBRARY_PATH must reach libunwind):
  python3 bench/gpu_sampled_tracing.py --runtime .device/rt-B/libstrata_runtime.so --cli CLI --out DIR
(--cli: a strata CLI that runs there, for the share comparison; without it the profiles are
kept in DIR and compared here with the same script's --compare FULL SAMPLED)."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "real_models"))
NO_OPS = {"STRATA_TORCH_BUILD": "0", "STRATA_TORCH_PLUGIN": "/nonexistent"}
CONFIGS = [
    ("none", None),
    ("CUPTI floor", {"STRATA_GPU_CALLBACKS": "none", **NO_OPS}),
    ("full", {}),
    ("sampled 10/100", {"STRATA_GPU_SAMPLING": "10/100"}),
]
WORKLOADS = {
    "tiny-kernels": ([os.path.join(HERE, "gpu_workloads.py"), "small", "400"], r'"median_step_ms": ([\d.]+)'),
    "cnn-train": ([os.path.join(HERE, "gpu_workloads.py"), "cnn", "300"], r'"median_step_ms": ([\d.]+)'),
    "gpt2-decode": ([os.path.join(HERE, "real_models", "gpt2_generate.py"), "64"], r"\(([\d.]+) ms/token\)"),
}


def slug(name):
    return re.sub("[^a-z0-9]+", "_", name.lower()).strip("_")


def line_shares(cli, path, totals=None, meta=None):
    """Each named Python line's share of the kernels' GPU time; with `totals` (a list), the
    kernels' total GPU time (scaled, in a sampled profile) is appended to it; with `meta` (a
    dict), the profile's meta entries are put in it."""
    from attribution_shares import report
    doc = report(cli, path, "gpu_time")
    if meta is not None:
        meta.update(doc["profile"]["meta"])
    nodes = {n["id"]: n for n in doc["nodes"]}
    per, total = {}, 0.0
    for n in doc["nodes"]:
        if n["kind"] != "kernel":
            continue
        t = n["metrics"].get("gpu_time", {}).get("exclusive", 0)
        total += t
        p, key = n, "<no python>"
        while p["parent"] >= 0:
            p = nodes[p["parent"]]
            if p["kind"] == "python" and p["name"] != "<?>":
                key = f'{p["file"]}:{p["line"]} {p["name"]}'
                break
        per[key] = per.get(key, 0.0) + t
    if totals is not None:
        totals.append(total)
    return {k: v / total for k, v in per.items()} if total else {}


def compare(cli, full, sampled):
    """Largest and mean difference of the lines' shares in points, and the sampled profile's
    scaled GPU total over the full one's (1.0 when the scaling is unbiased and both processes
    ran the same work), also as the windows' share of time alone would have scaled it."""
    totals, meta = [], {}
    a, b = line_shares(cli, full, totals), line_shares(cli, sampled, totals, meta)
    # The sampled profile's scale (gpu_scale: what its metrics carry) against the windows' share
    # of time (gpu_time_scale, measured since 2026-11-30; profiles before it: gpu_scale), to show
    # both totals; and its windows (line shares from fewer than 10 can be points off).
    scale = float(meta.get("gpu_scale", "1"))
    by_time = float(meta.get("gpu_time_scale", scale)) / scale
    keys = [k for k in set(a) | set(b) if max(a.get(k, 0), b.get(k, 0)) >= 0.01]
    diffs = sorted(((abs(a.get(k, 0) - b.get(k, 0)) * 100, k) for k in keys), reverse=True)
    return {"lines": len(keys), "max_points": round(diffs[0][0], 2) if diffs else 0.0,
            "mean_points": round(statistics.mean(d for d, _ in diffs), 2) if diffs else 0.0,
            "worst": diffs[0][1] if diffs else "",
            "gpu_time_ratio": round(totals[1] / totals[0], 3) if totals[0] else None,
            "scale_basis": meta.get("gpu_scale_basis", "window_time"), "gpu_scale": scale,
            "windows": int(meta.get("gpu_windows_opened", "0")),
            "op_calls": [meta.get("gpu_op_calls_counted"), meta.get("gpu_op_calls_counted_traced")],
            "gpu_time_ratio_by_time_share": round(totals[1] / totals[0] * by_time, 3) if totals[0] else None}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime")
    ap.add_argument("--cli")
    ap.add_argument("--out")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--compare", nargs=2, metavar=("FULL", "SAMPLED"))
    args = ap.parse_args()
    if args.compare:
        print(json.dumps(compare(args.cli or "strata", *args.compare)))
        return
    runtime = os.path.abspath(args.runtime)
    os.makedirs(args.out, exist_ok=True)
    results = {}
    for w in args.workloads.split(","):
        cmd, pattern = WORKLOADS[w]
        times = {name: [] for name, _ in CONFIGS}
        for r in range(args.rounds):
            for name, extra in CONFIGS:
                env = dict(os.environ, PYTHONUNBUFFERED="1")
                if extra is not None:
                    env.update(extra)
                    env["LD_PRELOAD"] = runtime
                    env["STRATA_OUTPUT"] = os.path.join(args.out, f"{w}-{slug(name)}.strata")
                p = subprocess.run([sys.executable] + cmd, env=env, capture_output=True, text=True, timeout=300)
                m = re.search(pattern, p.stdout)
                if p.returncode != 0 or not m:
                    raise SystemExit(f"{w} {name} failed ({p.returncode}): {p.stdout[-300:]} {p.stderr[-1200:]}")
                times[name].append(float(m.group(1)))
                print(f"{w} round {r} {name}: {m.group(1)}", flush=True)
        med = {name: statistics.median(v) for name, v in times.items()}
        results[w] = {"median": med, "runs": times,
                      "ratio": {name: round(v / med["none"], 3) for name, v in med.items()}}
        if args.cli:
            results[w]["shares"] = compare(args.cli, os.path.join(args.out, f"{w}-full.strata"),
                                           os.path.join(args.out, f"{w}-{slug('sampled 10/100')}.strata"))
        print(json.dumps({w: results[w]}), flush=True)
    with open(os.path.join(args.out, "gpu_sampled_tracing.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
