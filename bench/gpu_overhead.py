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
WORKLOADS = {"cnn": 300, "transformer": 200, "small": 1000}
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
    ap.add_argument("--workloads", default=",".join(WORKLOADS), help="comma-separated subset")
    ap.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated subset (base first)")
    ap.add_argument("--no-size", action="store_true", help="skip the 10 vs 1000 steps profile size runs")
    a = ap.parse_args()
    workloads = {w: WORKLOADS[w] for w in a.workloads.split(",")}
    configs = a.configs.split(",")
    os.makedirs(a.out, exist_ok=True)
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("STRATA_") and k not in ("LD_PRELOAD", "CUDA_INJECTION64_PATH")}
    script = os.path.join(HERE, "gpu_workloads.py")
    results = {}
    for w, steps in workloads.items():
        for cfg in configs:
            rows = []
            for rep in range(a.reps):
                env = dict(base_env)
                cmd = [a.python, script, w, str(steps)]
                prof = None
                if cfg.startswith("strata") or cfg == "cupti-activity":
                    prof = os.path.join(a.out, f"bench_{w}.strata")
                    env.update(LD_PRELOAD=os.path.abspath(a.runtime), STRATA_OUTPUT=prof)
                    env.update(CONFIG_ENV.get(cfg, {}))
                elif cfg == "torch.profiler":
                    cmd.append("--torch-profiler")
                wall, res, rss = measure(cmd, env)
                rows.append({"wall_s": wall, "median_step_ms": res["median_step_ms"], "loop_s": res["loop_s"],
                             "peak_rss_kib": rss})
            results[f"{w}/{cfg}"] = rows
            print(f"{w:12s} {cfg:15s} wall {statistics.median(r['wall_s'] for r in rows):7.2f} s  "
                  f"step {statistics.median(r['median_step_ms'] for r in rows):8.3f} ms  "
                  f"rss {statistics.median(r['peak_rss_kib'] for r in rows) / 1024:8.1f} MiB", flush=True)
    sizes = {}
    for steps in (() if a.no_size else (10, 1000)):
        prof = os.path.join(a.out, f"size_small_{steps}.strata")
        env = dict(base_env, LD_PRELOAD=os.path.abspath(a.runtime), STRATA_OUTPUT=prof)
        measure([a.python, script, "small", str(steps)], env)
        sizes[steps] = os.path.getsize(prof)
        os.unlink(prof)
    if sizes:
        print(f"profile size, small loop: 10 steps {sizes[10]} B, 1000 steps {sizes[1000]} B")
    summary = {}
    for w in workloads:
        med = lambda cfg, key: statistics.median(r[key] for r in results[f"{w}/{cfg}"])
        summary[w] = {f"{cfg}_step_ratio": med(cfg, "median_step_ms") / med("base", "median_step_ms")
                      for cfg in configs if cfg != "base"}
        if set(CONFIGS) - set(configs):
            print(f"{w:12s} " + " ".join(f"{k[:-11]} x{v:.3f}" for k, v in summary[w].items()))
            continue
        summary[w] = {
            "strata_step_ratio": med("strata", "median_step_ms") / med("base", "median_step_ms"),
            "strata_wall_ratio": med("strata", "wall_s") / med("base", "wall_s"),
            "strata_rss_ratio": med("strata", "peak_rss_kib") / med("base", "peak_rss_kib"),
            "strata_nopaths_step_ratio": med("strata-nopaths", "median_step_ms") / med("base", "median_step_ms"),
            "strata_nocache_step_ratio": med("strata-nocache", "median_step_ms") / med("base", "median_step_ms"),
            "torchprof_step_ratio": med("torch.profiler", "median_step_ms") / med("base", "median_step_ms"),
            "torchprof_wall_ratio": med("torch.profiler", "wall_s") / med("base", "wall_s"),
            "torchprof_rss_ratio": med("torch.profiler", "peak_rss_kib") / med("base", "peak_rss_kib"),
        }
        s = summary[w]
        print(f"{w:12s} strata: step x{s['strata_step_ratio']:.3f} wall x{s['strata_wall_ratio']:.3f} "
              f"rss x{s['strata_rss_ratio']:.3f} (no paths: step x{s['strata_nopaths_step_ratio']:.3f}) | torch.profiler: step x{s['torchprof_step_ratio']:.3f} "
              f"wall x{s['torchprof_wall_ratio']:.3f} rss x{s['torchprof_rss_ratio']:.3f}")
    with open(os.path.join(a.out, "gpu_overhead.json"), "w") as f:
        json.dump({"runs": results, "summary": summary, "profile_size_bytes": sizes}, f, indent=1)


if __name__ == "__main__":
    main()
