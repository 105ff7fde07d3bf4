#!/usr/bin/env python3
"""Checks the GPU side of a Strata profile.

CUDA C++ workload (test/gpu/gpu_workload.cu) against its CUDA-event ground truth:
  check_gpu.py STRATA --profile FILE --truth TRUTH.json [--tolerance 0.02]
  - meta gpu says "collected"; per kernel (spin_short, spin_long, graph_step) the launch count
    and total gpu_time agree with the events (within the tolerance);
  - spin_short lies under launch_short, spin_long under launch_long, graph_step under
    cudaGraphLaunch (kernels of a graph under the graph launch's call path);
  - memcpy HtoD / DtoH and memset nodes carry memcpy_bytes / memset_bytes;
  - every kernel node has a frame with a source line on its path.
PyTorch training loop (test/gpu/torch_train.py):
  check_gpu.py STRATA --profile FILE --python [--min-python-share S]
  - every kernel has a source line on its path; the share of kernel gpu_time with a Python line
    on its path is at least S (backward kernels launched from the autograd engine's own thread
    have no Python frames: see docs/gpu-metrics.md).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from strata_json import report_json  # noqa: E402


def report(strata, profile):
    return report_json(strata, profile, "gpu_time")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("strata")
    ap.add_argument("--profile", required=True)
    ap.add_argument("--truth")
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--python", action="store_true")
    ap.add_argument("--min-python-share", type=float, default=0.0)
    a = ap.parse_args()
    r = report(a.strata, a.profile)
    gpu = r["profile"]["meta"].get("gpu", "")
    errors = []
    if not gpu.startswith("collected"):
        raise SystemExit(f"FAIL: meta gpu = {gpu!r}")
    nodes = {n["id"]: n for n in r["nodes"]}

    def ancestors(n):
        p = n["parent"]
        while p not in (None, -1):
            yield nodes[p]
            p = nodes[p]["parent"]

    def gt(n, key="gpu_time"):
        return n["metrics"].get(key, {})

    kernels = [n for n in r["nodes"] if n["kind"] == "kernel" and gt(n).get("count", 0) > 0]
    if not kernels:
        raise SystemExit("FAIL: no kernel nodes with gpu_time")
    is_copy = lambda n: n["name"].startswith("memcpy") or n["name"] == "memset"
    real = [n for n in kernels if not is_copy(n)]
    no_line = [n for n in real if not any(x["line"] > 0 and x["file"] for x in ancestors(n))]
    total = sum(gt(n)["exclusive"] for n in real)
    py = sum(gt(n)["exclusive"] for n in real if any(x["kind"] == "python" and x["line"] > 0 for x in ancestors(n)))
    print(f"gpu: {gpu}")
    print(f"kernel nodes {len(real)}, kernel gpu_time {total / 1e6:.3f} ms, "
          f"with a source line on the path: {len(real) - len(no_line)}/{len(real)}, "
          f"gpu_time under a Python line: {py / total:.1%}")

    if a.python:
        if py / total < a.min_python_share:
            errors.append(f"only {py / total:.1%} of kernel gpu_time under a Python line (want >= {a.min_python_share:.0%})")
        if any(x["kind"] != "gpu_api" for n in real for x in [nodes[n["parent"]]]):
            errors.append("a kernel node whose parent is not a gpu_api frame")
    else:
        with open(a.truth) as f:
            truth = json.load(f)
        for n in no_line:
            errors.append(f"kernel {n['name']} has no source line on its path")
        expect_parent = {"spin_short": "launch_short", "spin_long": "launch_long", "graph_step": "cudaGraphLaunch"}
        for name, t in truth["kernels"].items():
            mine = [n for n in real if n["name"].split("(")[0] == name]
            # The untimed warm-up launches of 1 us add one launch each.
            warm = truth.get("warmup_launches", {}).get(name, 0)
            per = truth.get("graph_kernels_per_launch", 1) if name == "graph_step" else 1
            count = sum(gt(n)["count"] for n in mine)
            ns = sum(gt(n)["exclusive"] for n in mine)
            want_count = t["launches"] * per + warm
            err = (ns - t["event_ns"]) / t["event_ns"]
            print(f"  {name:12s} launches {count} (truth {want_count})  gpu_time {ns / 1e6:9.3f} ms  "
                  f"events {t['event_ns'] / 1e6:9.3f} ms  diff {err:+.2%}")
            if count != want_count:
                errors.append(f"{name}: {count} launches, truth {want_count}")
            if abs(err) > a.tolerance:
                errors.append(f"{name}: gpu_time differs from CUDA events by {err:+.2%}")
            timed = [n for n in mine if gt(n)["max"] > 10000]  # skip the 1 us warm-up nodes
            for n in timed:
                names = [x["name"].split("(")[0] for x in ancestors(n)]
                if expect_parent[name] not in names:
                    errors.append(f"{name} not under {expect_parent[name]}: {names[:6]}")
        for cname, metric in (("memcpy HtoD", "memcpy_bytes"), ("memcpy DtoH", "memcpy_bytes"), ("memset", "memset_bytes")):
            c = [n for n in kernels if n["name"] == cname]
            if not c or not any(gt(n, metric).get("exclusive", 0) > 0 for n in c):
                errors.append(f"no {cname} node with {metric}")
        for key in ("grid_size", "block_size", "registers_per_thread", "theoretical_occupancy", "api_time"):
            if key not in [m["name"] for m in r["metrics"]]:
                errors.append(f"metric {key} missing")
    for e in errors:
        print("FAIL:", e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
