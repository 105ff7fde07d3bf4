#!/usr/bin/env python3
"""Benchmark (not a test): what the runtime adds to each PyTorch operator call on the CPU.

A small model's loop (tiny tensors, one intra-op thread: dispatch-bound, as GPU decoding is on
its host side) runs plain and under the runtime: with the operator plugin, without it, with its
callbacks idle (`STRATA_OPS_WORK=none`) and with operators named from native frames instead
(`STRATA_OPERATORS=frames`, no callbacks); each configuration its own process, alternating within every round so that drift hits all alike; a
second plain configuration ("plain again") is the machine's noise. Per configuration: the median
over rounds of the process's median iteration time, the ratio to plain (median of per-round
ratios), and the nanoseconds added per operator call (operator calls per iteration counted once
with torch.profiler in a plain process). The profile's meta `operators` and `sampler` lines say
what the runtime itself timed.

usage: bench/operator_cost.py [--build build] [--runtime NAME=LIB ...] [--python /usr/bin/python3]
                              [--workload infer,train,tv-mobilenet_v3_small-infer,tv-resnet18-train] [--rounds 7] [--iters 3000] [--record]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_record import print_and_record  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# infer: a 2-layer MLP block under no_grad (the decoding shape). train: the same block with
# autograd, backward and an SGD step (every forward operator makes an autograd node).
# tv-NAME-infer / tv-NAME-train: a torchvision model (python3-torchvision) at batch 1 / 2, 32x32.
WORKLOAD = r'''
import sys, time, torch, torch.nn as nn
torch.set_num_threads(1)
kind, iters = sys.argv[1], int(sys.argv[2])
torch.manual_seed(0)
model = kind.startswith("tv-")
if model:
    # A torchvision model nobody here wrote (random weights), at a small input: dispatch-bound.
    import torchvision
    name, mode = kind[3:].rsplit("-", 1)
    m = getattr(torchvision.models, name)(weights=None)
    x = torch.randn(1 if mode == "infer" else 2, 3, 32, 32)
    m.train(mode == "train")
    kind = mode
    loss_of = lambda y: y.float().pow(2).mean()
else:
    m = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 16))
    x = torch.randn(4, 16)
    loss_of = lambda y: (y - x).pow(2).mean()
opt = torch.optim.SGD(m.parameters(), lr=1e-3)
def step():
    if kind == "infer":
        with torch.no_grad():
            y = m(x)
            return y.relu().sum()
    opt.zero_grad(set_to_none=True)
    loss = loss_of(m(x))
    loss.backward()
    opt.step()
    return loss
if len(sys.argv) > 3 and sys.argv[3] == "count":
    step()
    with torch.autograd.profiler.profile() as prof:
        step()
    print("ops", len(prof.function_events))
    sys.exit(0)
for _ in range(20 if model else 200): step()
times = []
for _ in range(iters):
    t = time.perf_counter_ns(); step(); times.append(time.perf_counter_ns() - t)
times.sort()
print("median_iter_ns", times[len(times) // 2])
'''


def run(python, cmd_prefix, env, kind, iters, extra=()):
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, "w.py")
        with open(script, "w") as f:
            f.write(WORKLOAD)
        prof = os.path.join(d, "p.strata")
        cmd = [*cmd_prefix(prof), python, script, kind, str(iters), *extra]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
        if out.returncode != 0:
            raise SystemExit(f"{cmd}: exit {out.returncode}: {out.stderr[-2000:]}")
        meta = {}
        if os.path.exists(prof) and STRATA:
            rep = subprocess.run([STRATA, "report", prof, "--format", "json", "--limit", "1"],
                                 capture_output=True, text=True)
            if rep.returncode == 0:
                import json
                m = json.loads(rep.stdout).get("profile", {}).get("meta", {})
                meta = {k: m.get(k, "") for k in ("operators", "sampler")}
        for line in out.stdout.splitlines():
            k, _, v = line.partition(" ")
            if k in ("median_iter_ns", "ops"):
                return int(v), meta
        raise SystemExit(f"no result from {cmd}: {out.stdout[-500:]}")


STRATA = None


def main():
    global STRATA
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runtime", action="append", default=[], help="NAME=LIB: compare builds")
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--workload", default="infer,train")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--iters", type=int, default=3000)
    ap.add_argument("--record", action="store_true")
    a = ap.parse_args()
    STRATA = os.path.join(a.build, "bin", "strata")
    runtimes = [r.split("=", 1) for r in a.runtime] or [["strata", os.path.join(a.build, "lib", "libstrata_runtime.so")]]
    base_env = dict(os.environ, OMP_NUM_THREADS="1")

    def plain(_):
        return []

    configs = [("plain", plain, base_env), ("plain again", plain, base_env)]
    for name, lib in runtimes:
        def under(prof, lib=lib):
            return ["env", f"LD_PRELOAD={lib}", f"STRATA_OUTPUT={prof}"]
        configs.append((f"{name}", under, base_env))
        configs.append((f"{name}, no operator plugin", under, dict(base_env, STRATA_TORCH_PLUGIN="/nonexistent")))
        # torch's RecordFunction with the plugin's callbacks registered, the runtime doing nothing
        # in them: what is torch's, apart from the runtime's operator stack.
        configs.append((f"{name}, operators idle", under, dict(base_env, STRATA_OPS_WORK="none")))
        # No callbacks at all: operators named afterwards from the dispatcher's native frames.
        configs.append((f"{name}, operators from frames", under, dict(base_env, STRATA_OPERATORS="frames")))

    rows = []
    for kind in a.workload.split(","):
        ops, _ = run(a.python, plain, base_env, kind, 1, ("count",))
        res = {c[0]: [] for c in configs}
        metas = {c[0]: None for c in configs}
        for r in range(a.rounds):
            order = configs[r % len(configs):] + configs[:r % len(configs)]
            for name, pre, env in order:
                t, meta = run(a.python, pre, env, kind, a.iters // 20 if kind.startswith("tv-") else a.iters)
                res[name].append(t)
                metas[name] = meta or metas[name]
        base = res["plain"]
        for name, _, _ in configs:
            ratios = [t / b for t, b in zip(res[name], base)]
            med = statistics.median(res[name])
            added = [t - b for t, b in zip(res[name], base)]
            m = metas[name] or {}
            rows.append(f"| {kind} ({ops} ops) | {name} | {med / 1000:.1f} | {statistics.median(ratios):.3f} | "
                        f"{min(ratios):.3f}–{max(ratios):.3f} | {statistics.median(added) / ops:.0f} | "
                        f"{m.get('operators', '')[:160]} |")
    header = ("| workload (operator calls an iteration) | configuration | median iteration µs | ratio to plain | range | "
              "ns added an operator call | meta operators |\n| --- | --- | --- | --- | --- | --- | --- |")
    print_and_record("Operator cost on the CPU (bench/operator_cost.py)\n\n" + header + "\n" + "\n".join(rows), a.record)


if __name__ == "__main__":
    main()
