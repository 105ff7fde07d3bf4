#!/usr/bin/env python3
"""GPU profiling overhead (issue 3, item 6): end-to-end time, median step time and peak memory
of bench/gpu_workloads.py unprofiled, under Strata (runtime preloaded, CUPTI collection) and
under torch.profiler (CPU+CUDA activities), plus Strata's profile size for 10 and 1000 steps.
Runs on the GPU machine:
  python3 bench/gpu_overhead.py --runtime build-gpu/lib/libstrata_runtime.so --out DIR [--reps 3]
Prints a table and writes DIR/gpu_overhead.json."""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = {"cnn": 300, "transformer": 200, "small": 1000, "cnn-large": 60, "transformer-large": 60}
DEFAULT_WORKLOADS = "cnn,transformer,small"
# strata-runtime-cb and cupti-activity take CUPTI apart (STRATA_GPU_CALLBACKS): API callbacks
# on the runtime domain only, and activity records with no callbacks at all (nothing attributed).
CONFIGS = ("base", "strata", "strata-nocache", "strata-nopaths", "strata-runtime-cb", "cupti-activity", "torch.profiler")
CONFIG_ENV = {"strata-nopaths": {"STRATA_GPU_CALLPATHS": "0"},
              "strata-nocache": {"STRATA_GPU_PATH_CACHE": "off"},
              "strata-runtime-cb": {"STRATA_GPU_CALLBACKS": "runtime"},
              "cupti-activity": {"STRATA_GPU_CALLBACKS": "none"}}


def run(cmd, env):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate()
    wall = time.perf_counter() - t0
    # wait4 via Popen: take the child's rusage from the process table (maxrss of this child only)
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(f"{cmd} failed ({p.returncode}): {err[-2000:]}")
    line = [l for l in out.splitlines() if l.startswith("{")][-1]
    return wall, json.loads(line), ru.ru_maxrss


def measure(cmd, env):
    """wall s, result, peak RSS KiB of that child (fork a helper so RUSAGE_CHILDREN is per run)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            res = run(cmd, env)
            os.write(w, json.dumps(res).encode())
        finally:
            os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.waitpid(pid, 0)
    if not data:
        raise SystemExit(f"run failed: {cmd}")
    return json.loads(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--workloads", default=DEFAULT_WORKLOADS, help="comma-separated subset")
    ap.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated subset (base first)")
    ap.add_argument("--no-size", action="store_true", help="skip the profile size runs")
    ap.add_argument("--size-steps", default="10,1000", help="step counts of the profile size runs (small loop)")
    ap.add_argument("--keep-profiles", help="keep the profile size runs' profiles in this folder")
    a = ap.parse_args()
    workloads = {w: WORKLOADS[w] for w in a.workloads.split(",")}
    configs = a.configs.split(",")
    os.makedirs(a.out, exist_ok=True)
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("STRATA_") and k not in ("LD_PRELOAD", "CUDA_INJECTION64_PATH")}
    script = os.path.join(HERE, "gpu_workloads.py")
    results = {f"{w}/{cfg}": [] for w in workloads for cfg in configs}
    # Configs alternate within each repetition (base, strata, ..., base, strata, ...) so that a
    # machine that drifts during the run shifts every config alike.
    for w, steps in workloads.items():
        for rep in range(a.reps):
            for cfg in configs:
                env = dict(base_env)
                cmd = [a.python, script, w, str(steps)]
                if cfg.startswith("strata") or cfg == "cupti-activity":
                    prof = os.path.join(a.out, f"bench_{w}.strata")
                    env.update(LD_PRELOAD=os.path.abspath(a.runtime), STRATA_OUTPUT=prof)
                    env.update(CONFIG_ENV.get(cfg, {}))
                elif cfg == "torch.profiler":
                    cmd.append("--torch-profiler")
                wall, res, rss = measure(cmd, env)
                results[f"{w}/{cfg}"].append({"wall_s": wall, "median_step_ms": res["median_step_ms"],
                                              "loop_s": res["loop_s"], "peak_rss_kib": rss})
        for cfg in configs:
            rows = results[f"{w}/{cfg}"]
            print(f"{w:17s} {cfg:15s} wall {statistics.median(r['wall_s'] for r in rows):7.2f} s  "
                  f"step {statistics.median(r['median_step_ms'] for r in rows):8.3f} ms  "
                  f"rss {statistics.median(r['peak_rss_kib'] for r in rows) / 1024:8.1f} MiB", flush=True)
    sizes = {}
    for steps in (() if a.no_size else [int(x) for x in a.size_steps.split(",")]):
        prof = os.path.join(a.out, f"size_small_{steps}.strata")
        env = dict(base_env, LD_PRELOAD=os.path.abspath(a.runtime), STRATA_OUTPUT=prof)
        measure([a.python, script, "small", str(steps)], env)
        sizes[steps] = os.path.getsize(prof)
        if a.keep_profiles:
            os.makedirs(a.keep_profiles, exist_ok=True)
            os.replace(prof, os.path.join(a.keep_profiles, os.path.basename(prof)))
        else:
            os.unlink(prof)
    if sizes:
        print("profile size, small loop: " + ", ".join(f"{k} steps {v} B" for k, v in sizes.items()))
    summary = {}
    for w in workloads:
        med = lambda cfg, key: statistics.median(r[key] for r in results[f"{w}/{cfg}"])
        # paired: the median over repetitions of (this config / base of the same repetition)
        paired = lambda cfg, key: statistics.median(
            r[key] / b[key] for r, b in zip(results[f"{w}/{cfg}"], results[f"{w}/base"]))
        summary[w] = {}
        for cfg in configs:
            if cfg == "base":
                continue
            summary[w].update({f"{cfg}_step_ratio": med(cfg, "median_step_ms") / med("base", "median_step_ms"),
                               f"{cfg}_step_ratio_paired": paired(cfg, "median_step_ms"),
                               f"{cfg}_wall_ratio": med(cfg, "wall_s") / med("base", "wall_s"),
                               f"{cfg}_rss_ratio": med(cfg, "peak_rss_kib") / med("base", "peak_rss_kib")})
            print(f"{w:17s} {cfg:15s} step x{summary[w][cfg + '_step_ratio']:.3f} "
                  f"(paired x{summary[w][cfg + '_step_ratio_paired']:.3f}) wall x{summary[w][cfg + '_wall_ratio']:.3f} "
                  f"rss x{summary[w][cfg + '_rss_ratio']:.3f}")
    with open(os.path.join(a.out, "gpu_overhead.json"), "w") as f:
        json.dump({"runs": results, "summary": summary, "profile_size_bytes": sizes}, f, indent=1)


if __name__ == "__main__":
    main()
