#!/usr/bin/env python3
"""Where Strata's time goes per GPU launch on launch-bound programs: HF GPT-2 token-by-token
decoding (bench/real_models/gpt2_generate.py) and a loop of tiny kernels (gpu_workloads.py
small: 128 launches a step), each run unprofiled and under configurations that switch parts of
the runtime off, alternating, several rounds. Per configuration: median time per token / step,
its ratio to no profiler, and the extra nanoseconds per launch over the configuration before it
in the list (what that part costs). Profiles of the full configuration are kept in OUT (their
meta gives kernels per run and the measured cost of one call path).
Runs on the GPU machine:
  python3 bench/launch_cost.py --runtime .device/rt-B/libstrata_runtime.so --out DIR [--rounds 3]"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# In order: each adds one part to the one before (the diagnostic switches are documented in
# profiler_runtime/README.md).
NO_OPS = {"STRATA_TORCH_BUILD": "0", "STRATA_TORCH_PLUGIN": "/nonexistent"}
CONFIGS = [
    ("none", None),
    ("runtime, no CUPTI", {"STRATA_GPU": "0", **NO_OPS}),
    ("CUPTI subscribed, nothing on", {"STRATA_GPU_CALLBACKS": "none", "STRATA_GPU_ACTIVITY": "none", **NO_OPS}),
    ("+ kernel records", {"STRATA_GPU_CALLBACKS": "none", "STRATA_GPU_ACTIVITY": "kernel", **NO_OPS}),
    ("+ copy/set records", {"STRATA_GPU_CALLBACKS": "none", "STRATA_GPU_ACTIVITY": "kernel,memcpy,memset", **NO_OPS}),
    ("kernel + sync records", {"STRATA_GPU_CALLBACKS": "none", "STRATA_GPU_ACTIVITY": "kernel,sync", **NO_OPS}),
    ("+ copy/set/sync records", {"STRATA_GPU_CALLBACKS": "none", **NO_OPS}),
    ("+ API callbacks", {"STRATA_GPU_CALLPATHS": "0", **NO_OPS}),
    ("+ call paths", dict(NO_OPS)),
    ("+ operators (full)", {}),
    # Native traces at outermost operators' entries (off by default since 2026-12-02).
    ("+ entry traces", {"STRATA_OP_ENTRY_TRACES": "1"}),
    # CUPTI detached between windows (cuptiFinalize), the default.
    ("sampled 10/100", {"STRATA_GPU_SAMPLING": "10/100"}),
    ("sampled 5/100", {"STRATA_GPU_SAMPLING": "5/100"}),
    # CUPTI left attached between windows, its kinds and callbacks switched off.
    ("sampled 10/100, attached", {"STRATA_GPU_SAMPLING": "10/100", "STRATA_GPU_DETACH": "0"}),
    # Nearly always closed: what a closed window still costs.
    ("sampled 1/1000", {"STRATA_GPU_SAMPLING": "1/1000"}),
    # Full, every cached launch path checked against a fresh one (meta gpu counts mismatches).
    ("path cache verify", {"STRATA_GPU_PATH_CACHE": "verify"}),
]
WORKLOADS = {
    "gpt2-decode": ([os.path.join(HERE, "real_models", "gpt2_generate.py"), "64", "1", "5"], r"\(([\d.]+) ms/token\)", "token"),
    "tiny-kernels": ([os.path.join(HERE, "gpu_workloads.py"), "small", "400"], r'"median_step_ms": ([\d.]+)', "step"),
    # torchvision ResNet-50 training, batch 64: GPU-bound, the first row.
    "resnet50-train": ([os.path.join(HERE, "pc_sampling_scale.py"), "--child", "--steps", "20"],
                       r'"median_step_ms": ([\d.]+)', "step"),
    # A jitted Flax MLP training step (bench/comparison_workloads.py): XLA launches from its own threads.
    "jax-train": ([os.path.join(HERE, "comparison_workloads.py"), "jax-train", "none", "200", "/tmp"],
                  r'"median_step_ms": ([\d.]+)', "step"),
}
LAUNCHES_PER_UNIT = {"tiny-kernels": 128}  # GPT-2: read from the full profile's meta


def run(cmd, env):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise SystemExit(f"{cmd} failed ({p.returncode}): {p.stderr[-1500:]}")
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--configs", help="configuration names separated by ';' (default: all)")
    ap.add_argument("--cpus", help="pin every run to these CPUs (taskset list, e.g. 4-7): steadier timings")
    args = ap.parse_args()
    configs = [c for c in CONFIGS if not args.configs or c[0] in args.configs.split(";") or c[0] == "none"]
    pin = ["taskset", "-c", args.cpus] if args.cpus else []
    runtime = os.path.abspath(args.runtime)
    os.makedirs(args.out, exist_ok=True)
    results = {}
    for w in args.workloads.split(","):
        cmd, pattern, unit = WORKLOADS[w]
        times = {name: [] for name, _ in configs}
        for r in range(args.rounds):
            for name, extra in configs:
                env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONHASHSEED="0")
                if extra is not None:
                    env.update(extra)
                    env["LD_PRELOAD"] = runtime
                    env["STRATA_OUTPUT"] = os.path.join(args.out, f"{w}-{re.sub('[^a-z0-9]+', '_', name.lower()).strip('_')}.strata")
                out = run(pin + [sys.executable] + cmd, env)
                m = re.search(pattern, out)
                if not m:
                    raise SystemExit(f"{w} {name}: no timing in {out[-500:]}")
                times[name].append(float(m.group(1)))
                each = re.search(r"each: ([\d., ]+)", out)
                print(f"{w} round {r} {name}: {m.group(1)} ms/{unit}" + (f" ({each.group(1).strip()})" if each else ""), flush=True)
        results[w] = {name: statistics.median(v) for name, v in times.items()}
        results[w + ":all"] = times
    with open(os.path.join(args.out, "launch_cost.json"), "w") as f:
        json.dump(results, f, indent=1)
    for w in args.workloads.split(","):
        base = results[w]["none"]
        print(f"\n{w}: median ms per {WORKLOADS[w][2]}")
        prev = base
        for name, _ in configs:
            v = results[w][name]
            per = LAUNCHES_PER_UNIT.get(w)
            part = f"  {(v - prev) * 1e6 / per:+8.0f} ns/launch" if per and name != "none" else ""
            print(f"  {name:32s} {v:9.3f}  x{v / base:.2f}  {v - prev:+8.3f} ms{part}   min x{min(results[w + ':all'][name]) / min(results[w + ':all']['none']):.2f}")
            if not name.startswith(("sampled", "path cache")):
                prev = v


if __name__ == "__main__":
    main()
