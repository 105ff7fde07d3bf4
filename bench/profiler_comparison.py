#!/usr/bin/env python3
"""Strata beside the profilers users already run, on the GPU machine: no profiler,
torch.profiler (CPU and CUDA activities, with and without stacks), Proton's CUPTI mode, Strata
full and Strata sampled (10/100), on ResNet-50 and GPT-2 training, GPT-2 decoding, a loop of tiny
kernels and a JAX/flax training step (bench/comparison_workloads.py; torch.profiler and Proton
are not run on JAX). Per round every configuration runs once, in order, each in its own process;
several rounds. Per configuration: the median over rounds of the median step time (ms per token
for decoding), the peak host RSS of the process (wait4) and the size of what it wrote (trace or
profile), each also as a ratio to no profiler.
Separate processes on the lent machine vary by up to x2 in speed (docs/benchmarks.md): read the
ratios with the unprofiled rounds' own spread, which is printed.
With --ab the same workloads are timed inside each process instead, collection switched on and
off in alternating blocks (comparison_workloads.py's "ab" modes): "none" (the alternation
alone), "strata" (STRATA_CAPTURE_RANGE=cudaProfilerApi: Strata's full GPU collection in the
"on" blocks; its CPU sampling runs in both), "strata-B" (the same with --runtime-b, e.g. the
runtime before a change), "cupti-floor" (CUPTI alone with Strata's activity kinds, no
Strata) and "torch.profiler" / "torch.profiler-stacks" (started and stopped the same way).
Per configuration: the median over rounds of each process's median on / off.
  python3 bench/profiler_comparison.py --runtime .device/rt-E/libstrata_runtime.so --out DIR
      [--workloads a,b] [--configs a,b] [--rounds 3] [--cpus 2-5] [--record]
      [--ab [--runtime-b OLD.so] [--pairs 6]]
(LD_LIBRARY_PATH must reach libunwind; STRATA_CACHE_DIR may hold the operator plugin.)"""
import argparse
import json
import re
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading

from results_record import print_and_record

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = {"resnet50-train": 20, "gpt2-train": 10, "gpt2-decode": 5, "tiny-kernels": 200, "jax-train": 50}
UNIT = {"gpt2-decode": "ms/token"}
CONFIGS = {  # name: (profiler inside the process, Strata's environment or None)
    "none": ("none", None),
    "torch.profiler": ("torch-profiler", None),
    "torch.profiler-stacks": ("torch-profiler-stacks", None),
    "proton-cupti": ("proton", None),
    "strata": ("none", {}),
    "strata-sampled-10/100": ("none", {"STRATA_GPU_SAMPLING": "10/100"}),
    "strata-frames": ("none", {"STRATA_OPERATORS": "frames"}),  # operators from native frames
    "strata-opcallbacks": ("none", {"STRATA_OPERATORS": "callbacks"}),  # RecordFunction from the start
}
TORCH_ONLY = {"torch.profiler", "torch.profiler-stacks", "proton-cupti"}
# Steps of one block in --ab mode (a block of the launch-bound ones lasts about 0.1-0.6 s).
AB_STEPS = {"resnet50-train": 8, "gpt2-train": 4, "gpt2-decode": 2, "tiny-kernels": 100, "jax-train": 100}
# Sampled tracing's blocks are longer (about 0.5-1 s): each range starts with an open window,
# so a block must span several periods to be traced about ON_MS / PERIOD_MS of its time.
AB_STEPS_SAMPLED = {"resnet50-train": 16, "gpt2-train": 8, "gpt2-decode": 4, "tiny-kernels": 1000, "jax-train": 1000}
RANGE = {"STRATA_CAPTURE_RANGE": "cudaProfilerApi"}
NO_OPS = {"STRATA_TORCH_BUILD": "0", "STRATA_TORCH_PLUGIN": "/nonexistent"}
AB_CONFIGS = {
    "none": ("ab", None),
    "strata": ("ab", RANGE),
    "strata-B": ("ab", RANGE),
    # Full attribution with operators named from native frames (no RecordFunction callbacks).
    "strata-frames": ("ab", {**RANGE, "STRATA_OPERATORS": "frames"}),
    # RecordFunction callbacks from the start (the default, "strata", waits for the first backward).
    "strata-opcallbacks": ("ab", {**RANGE, "STRATA_OPERATORS": "callbacks"}),
    "cupti-floor": ("ab-cupti", None),
    # torch.profiler switched on and off the same way (no Strata; not on the JAX step).
    "torch.profiler": ("ab-kineto", None),
    "torch.profiler-stacks": ("ab-kineto-stacks", None),
    # Strata's parts added one at a time (where the time goes, per launch):
    "strata-records": ("ab", {**RANGE, **NO_OPS, "STRATA_GPU_CALLBACKS": "none"}),  # activity records only
    "strata-callbacks": ("ab", {**RANGE, **NO_OPS, "STRATA_GPU_CALLPATHS": "0"}),  # + API callbacks
    "strata-paths": ("ab", {**RANGE, **NO_OPS}),  # + call paths at launches; "strata" adds operators
    # The launch-cost breakdown's diagnostics: CUPTI's callbacks with nothing done in them; torch's
    # operator callbacks with the runtime doing nothing at entries and exits; CUPTI's buffers as
    # the floor harness sizes them (32 MB, no periodic flush).
    "strata-callbacks-idle": ("ab", {**RANGE, **NO_OPS, "STRATA_GPU_CALLBACK_WORK": "none"}),
    "strata-ops-idle": ("ab", {**RANGE, "STRATA_OPS_WORK": "none"}),
    "strata-records-bigbuf": ("ab", {**RANGE, **NO_OPS, "STRATA_GPU_CALLBACKS": "none", "STRATA_GPU_BUFFER_MB": "32", "STRATA_GPU_FLUSH_MS": "0"}),
    "strata-bigbuf": ("ab", {**RANGE, "STRATA_GPU_BUFFER_MB": "32", "STRATA_GPU_FLUSH_MS": "0"}),
    # The same with the driver API's callbacks only (a launch takes two callbacks, not four).
    "strata-paths-driver": ("ab", {**RANGE, **NO_OPS, "STRATA_GPU_CALLBACKS": "driver"}),
    "strata-driver": ("ab", {**RANGE, "STRATA_GPU_CALLBACKS": "driver"}),
    # Native traces at outermost operators' entries switched off / on (off is the default since
    # 2026-12-02; a launch inside an operator walks down to it on a path-cache miss instead).
    "strata-noentry": ("ab", {**RANGE, "STRATA_OP_ENTRY_TRACES": "0"}),
    "strata-entry": ("ab", {**RANGE, "STRATA_OP_ENTRY_TRACES": "1"}),
    "strata-cheapkey": ("ab", {**RANGE, "STRATA_GPU_PATH_KEY": "cheap"}),  # no native trace in the path key (the default since 2026-12-01)
    "strata-tracekey": ("ab", {**RANGE, "STRATA_GPU_PATH_KEY": "trace"}),  # the native trace in the path key (the default before)
    # Sampled tracing inside the ranges (windows of 10 ms every 100 ms); "none-long" is the
    # alternation alone at the same block length.
    "strata-sampled": ("ab", {**RANGE, "STRATA_GPU_SAMPLING": "10/100"}),
    "strata-sampled-5/100": ("ab", {**RANGE, "STRATA_GPU_SAMPLING": "5/100"}),
    "strata-sampled-100/1000": ("ab", {**RANGE, "STRATA_GPU_SAMPLING": "100/1000"}),
    # Fewer attaches a second; its blocks are 3x longer (AB_BLOCK_MULTIPLE) so that most hold a window.
    "strata-sampled-100/2000": ("ab", {**RANGE, "STRATA_GPU_SAMPLING": "100/2000"}),
    "strata-sampled-attached": ("ab", {**RANGE, "STRATA_GPU_SAMPLING": "10/100", "STRATA_GPU_DETACH": "0"}),
    # Each attach enables both API domains whole instead of ~245 callbacks one by one.
    "strata-sampled-domains": ("ab", {**RANGE, "STRATA_GPU_SAMPLING": "100/1000", "STRATA_GPU_CALLBACKS": "domains"}),
    "strata-long": ("ab", RANGE),
    "none-long": ("ab", None),
    "cupti-floor-long": ("ab-cupti", None),
}


# Configurations whose blocks are a multiple of the sampled block length.
AB_BLOCK_MULTIPLE = {"strata-sampled-100/2000": 3}


def ab_steps(workload, config):
    long = config.startswith("strata-sampled") or config.endswith("-long")
    return (AB_STEPS_SAMPLED if long else AB_STEPS)[workload] * AB_BLOCK_MULTIPLE.get(config, 1)


def dir_mb(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs) / 1e6


def proc_state(pid):
    """What each thread of a process and of its children is doing, from /proc: name, state,
    kernel wait channel, the system call it is in (number, arguments, stack and instruction
    pointers), its blocked signals, and the kernel's stack where readable; the maps last, to place
    the instruction pointers. Cheap and never blocks, unlike a debugger attaching."""
    def read(path):
        try:
            with open(path) as f:
                return f.read().strip()
        except OSError as e:
            return f"({e.strerror})"
    out = []
    pids = [pid]
    for p in pids:  # children first-found, breadth first
        for t in sorted(os.listdir(f"/proc/{p}/task")) if os.path.isdir(f"/proc/{p}/task") else []:
            kids = read(f"/proc/{p}/task/{t}/children")
            pids += [int(k) for k in kids.split()] if kids and not kids.startswith("(") else []
    for p in pids:
        out.append(f"== process {p}: {read(f'/proc/{p}/cmdline').replace(chr(0), ' ')[:300]}")
        for t in sorted(os.listdir(f"/proc/{p}/task")) if os.path.isdir(f"/proc/{p}/task") else []:
            d = f"/proc/{p}/task/{t}"
            stat = read(d + "/stat")
            state = stat[stat.rfind(")") + 2:].split()[0] if ")" in stat else "?"
            sigblk = re.search(r"SigBlk:\s*(\S+)", read(d + "/status"))
            out.append(f"-- thread {t} {read(d + '/comm')} state {state} wchan {read(d + '/wchan')} "
                       f"sigblk {sigblk.group(1) if sigblk else '?'}\n   syscall {read(d + '/syscall')}\n   "
                       + read(d + "/stack").replace("\n", "\n   "))
    out.append("== maps of " + str(pid))
    out.append("\n".join(l for l in read(f"/proc/{pid}/maps").splitlines() if " r-xp " in l or " r-x" in l))
    return "\n".join(out)


def hung(p, trace_dir):
    """A run past its time: every thread's state from /proc, then its stack (gdb, where the
    machine has one; loading libtorch's symbols can take a minute), then kill."""
    gdb = shutil.which("gdb") or shutil.which("cuda-gdb")
    try:
        with open(os.path.join(trace_dir, "proc"), "w") as f:
            f.write(proc_state(p.pid))
        if gdb:
            with open(os.path.join(trace_dir, "stacks"), "w") as f:
                subprocess.run([gdb, "-p", str(p.pid), "-batch", "-ex", "set pagination off",
                                "-ex", "thread apply all bt 40"], stdout=f, stderr=subprocess.STDOUT, timeout=150)
    except (OSError, subprocess.SubprocessError):
        pass  # no stacks; the run is killed all the same
    finally:
        p.kill()


def run_once(workload, config, runtime, pin, timeout, ab_pairs=0, keep_profile=None):
    profiler, strata_env = (AB_CONFIGS if ab_pairs else CONFIGS)[config]
    trace_dir = tempfile.mkdtemp(prefix="cmp-")
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONHASHSEED="0", BENCH_STACKS_AFTER_S=str(max(timeout - 30, 10)))
    if strata_env is not None:
        env.update(strata_env, LD_PRELOAD=runtime, STRATA_OUTPUT=os.path.join(trace_dir, "profile.strata"))
        # Each runtime builds and keeps its own operator plugin.
        env["STRATA_CACHE_DIR"] = os.path.join(os.environ.get("STRATA_CACHE_DIR", tempfile.gettempdir()),
                                               "plugin-" + os.path.basename(os.path.dirname(runtime)))
    steps = ab_steps(workload, config) if ab_pairs else STEPS[workload]
    cmd = pin + [sys.executable, os.path.join(HERE, "comparison_workloads.py"), workload, profiler,
                 str(steps), trace_dir] + ([str(ab_pairs)] if ab_pairs else [])
    out_path = os.path.join(trace_dir, "stdout")
    with open(out_path, "w") as out, open(os.path.join(trace_dir, "stderr"), "w") as err:
        p = subprocess.Popen(cmd, env=env, stdout=out, stderr=err)
        killer = threading.Timer(timeout, hung, (p, trace_dir))  # a hung run fails, the others go on
        killer.start()
        try:
            _, status, usage = os.wait4(p.pid, 0)
        finally:
            killer.cancel()
    text = open(out_path).read()
    lines = [l for l in text.splitlines() if l.startswith("{")]
    ok = os.waitstatus_to_exitcode(status) == 0 and lines
    err = open(os.path.join(trace_dir, "stderr")).read()
    # Python's own dump of every thread (faulthandler) starts at the innermost frames: keep both ends.
    result = {"error": err if len(err) <= 12000 else err[:9000] + "\n...\n" + err[-3000:]} if not ok else json.loads(lines[-1])
    for name, key in (("proc", "proc_at_timeout"), ("stacks", "stacks_at_timeout")):
        if os.path.exists(os.path.join(trace_dir, name)):
            result[key] = open(os.path.join(trace_dir, name)).read()[:60000]
    os.remove(out_path)
    os.remove(os.path.join(trace_dir, "stderr"))
    result["peak_rss_mb"] = usage.ru_maxrss / 1024
    result["output_mb"] = dir_mb(trace_dir)
    profile = os.path.join(trace_dir, "profile.strata")
    if keep_profile and os.path.exists(profile) and os.path.getsize(profile) < (40 << 20):
        shutil.copy(profile, keep_profile)  # its meta holds the runtime's own timers
    shutil.rmtree(trace_dir, ignore_errors=True)
    return result


def run_rounds(args, known, names_for, run, json_name):
    """Every workload: per round each configuration once, in turn; the runs so far kept as JSON."""
    results = {}
    for w in args.workloads.split(","):
        if w not in known:
            raise SystemExit(f"profiler_comparison: unknown workload {w!r} ({', '.join(known)})")
        runs = {c: [] for c in names_for(w)}
        for r in range(args.rounds):
            for c in runs:
                res = run(w, c, r)
                runs[c].append(res)
                print(f"{w} round {r} {c}: {json.dumps(res)}", flush=True)
        results[w] = runs
        with open(os.path.join(args.out, json_name), "w") as f:
            json.dump(results, f, indent=1)
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--workloads", default=",".join(STEPS))
    ap.add_argument("--configs", help="names separated by ',' (default: all of the mode's usual ones)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cpus", help="pin every run to these CPUs (taskset list)")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--record", action="store_true", help="append the table to docs/benchmarks.md")
    ap.add_argument("--ab", action="store_true", help="collection on and off inside each process")
    ap.add_argument("--pairs", type=int, default=6, help="--ab: off/on pairs a process (the first is left out)")
    ap.add_argument("--runtime-b", help="--ab: a second runtime, run as strata-B")
    args = ap.parse_args()
    if args.ab:
        return main_ab(args)
    configs = [c for c in (args.configs or ",".join(CONFIGS)).split(",") if c]
    for c in configs:
        if c not in CONFIGS:
            raise SystemExit(f"profiler_comparison: unknown configuration {c!r} ({', '.join(CONFIGS)})")
    if "none" not in configs:
        configs.insert(0, "none")
    os.makedirs(args.out, exist_ok=True)
    runtime = os.path.abspath(args.runtime)
    pin = ["taskset", "-c", args.cpus] if args.cpus else []
    results = run_rounds(args, STEPS, lambda w: [c for c in configs if not (w == "jax-train" and c in TORCH_ONLY)],
                         lambda w, c, r: run_once(w, c, runtime, pin, args.timeout), "profiler_comparison.json")
    lines = []
    for w, runs in results.items():
        def med(c, key):
            vals = [x[key] for x in runs[c] if key in x]
            return statistics.median(vals) if vals else None
        base_t, base_m = med("none", "median_step_ms"), med("none", "peak_rss_mb")
        spread = [x["median_step_ms"] for x in runs["none"] if "median_step_ms" in x]
        lines.append(f"\n{w} ({UNIT.get(w, 'ms/step')}; unprofiled rounds {', '.join(f'{v:.2f}' for v in spread)})")
        lines.append(f"| configuration | step | × none | peak RSS MB | × none | written MB |")
        lines.append("| --- | --- | --- | --- | --- | --- |")
        for c, v in runs.items():
            t, m, o = med(c, "median_step_ms"), med(c, "peak_rss_mb"), med(c, "output_mb")
            failed = sum("error" in x for x in v)
            if t is None or base_t is None:
                lines.append(f"| {c} | failed ({v[-1].get('error', '')[-120:].strip()!r}) | | | | |")
                continue
            lines.append(f"| {c} | {t:.2f} | ×{t / base_t:.2f} | {m:.0f} | ×{m / base_m:.2f} | {o:.1f} |"
                         + (f" ({failed} of {len(v)} runs failed)" if failed else ""))
    print_and_record("\n".join(lines), args.record)


def main_ab(args):
    default = ["none", "strata", "strata-B", "cupti-floor"]
    configs = [c for c in (args.configs.split(",") if args.configs else default) if c]
    if "strata-B" in configs and not args.runtime_b:
        configs.remove("strata-B")
    for c in configs:
        if c not in AB_CONFIGS:
            raise SystemExit(f"profiler_comparison: unknown --ab configuration {c!r} ({', '.join(AB_CONFIGS)})")
    os.makedirs(args.out, exist_ok=True)
    runtimes = {c: os.path.abspath(args.runtime_b if c == "strata-B" else args.runtime) for c in configs}
    pin = ["taskset", "-c", args.cpus] if args.cpus else []
    results = run_rounds(args, AB_STEPS, lambda w: [c for c in configs if w != "jax-train" or not c.startswith("torch.profiler")],
                         lambda w, c, r: run_once(w, c, runtimes[c], pin, args.timeout, args.pairs,
                                                  os.path.join(args.out, f"{w}-{c.replace('/', '_')}-{r}.strata")),
                         "profiler_comparison_ab.json")
    lines = []
    for w, runs in results.items():
        lines.append(f"\n{w} ({UNIT.get(w, 'ms/step')}), inside each process: {AB_STEPS[w]} steps a block "
                     f"({AB_STEPS_SAMPLED[w]} for sampled and -long configurations"
                     + "".join(f", {AB_STEPS_SAMPLED[w] * k} for {c}" for c, k in AB_BLOCK_MULTIPLE.items()) + "), "
                     f"{args.pairs - 1} off/on pairs, {args.rounds} processes a configuration")
        lines.append("| configuration | off | on | on / off (median of processes) | each process |")
        lines.append("| --- | --- | --- | --- | --- |")
        for c, v in runs.items():
            ok = [x for x in v if "on_over_off" in x]
            if not ok:
                lines.append(f"| {c} | failed ({v[-1].get('error', '')[-120:].strip()!r}) | | | |")
                continue
            each = ", ".join("×%.3f" % x["on_over_off"] for x in ok)
            lines.append(f"| {c} | {statistics.median(x['off_ms'] for x in ok):.3f} | {statistics.median(x['on_ms'] for x in ok):.3f} | "
                         f"×{statistics.median(x['on_over_off'] for x in ok):.3f} | {each} |"
                         + (f" ({len(v) - len(ok)} of {len(v)} runs failed)" if len(ok) < len(v) else ""))
    print_and_record("\n".join(lines), args.record)


if __name__ == "__main__":
    main()
