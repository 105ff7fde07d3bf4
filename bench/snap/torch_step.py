"""A real PyTorch training step for the snap/replay check (bench/snap/run_h100.sh).

torchvision resnet18, batch 32, random weights and data (fixed seeds), SGD; eager (cuDNN / cuBLAS
kernels) or torch.compile'd (Triton kernels). Each step is synchronized and marked ("stepK").

  torch_step.py --mode eager|compiled [--steps 5]
      runs the steps (under `strata record --snap ...` for the snap)
  torch_step.py --mode eager|compiled --discover conv|triton --out FILE.json
      runs them under torch.profiler instead and picks the kernel to snap: in the middle step, the
      longest kernel of the family in the middle third of the step; writes its name, a token
      (the longest identifier in its name) for --snap, N (its rank among launches whose name
      holds the token, from the start), and the in-run times of kernels with its name, grid and
      block in the steady-state steps.

N counts launches from the process's start, as the snap does, so the discovery run and the snapped
run must launch the same kernels before it: run the program once first (torch.compile's caches
warm), or the discovery run counts Inductor's autotuning launches that the snapped run, finding
the tuned configurations cached, never makes. The result says how many matching launches fell
outside the steps (`n_outside_steps`): 0 when the runs agree.
"""
import argparse
import json
import os
import re
import statistics
import sys

import torch
import torch.nn as nn
import torchvision


def build(mode):
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = False  # heuristics, not timing: the same kernels every run
    model = torchvision.models.resnet18(weights=None).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.randn(32, 3, 224, 224, device="cuda", generator=g)
    y = torch.randint(0, 1000, (32,), device="cuda", generator=g)
    crit = nn.CrossEntropyLoss()
    fwd = torch.compile(model) if mode == "compiled" else model

    def step():
        opt.zero_grad(set_to_none=True)
        loss = crit(fwd(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def run(step, steps):
    for i in range(steps):
        with torch.profiler.record_function(f"step{i}"):
            loss = step()
            torch.cuda.synchronize()
        print(f"step {i}: loss {loss.item():.4f}", flush=True)


def family_of(name, family):
    if family == "triton":
        return name.startswith("triton")
    return "triton" not in name and re.search(r"conv|gemm|xmma|cutlass|cudnn|sm90|sm80|implicit", name, re.I) is not None


def token_of(name):
    return max(re.findall(r"[A-Za-z0-9_]+", name), key=len)


def discover(step, steps, family, out):
    trace = out + ".trace.json"
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]) as prof:
        run(step, steps)
    prof.export_chrome_trace(trace)
    result = pick(json.load(open(trace))["traceEvents"], steps, family)
    json.dump(result, open(out, "w"), indent=1)
    print(json.dumps(result, indent=1))


def pick(events, steps, family):
    kernels = sorted((e for e in events if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    marks = {e["name"]: e for e in events if e.get("cat") in ("gpu_user_annotation",) and e["name"].startswith("step")}
    if not marks:
        marks = {e["name"]: e for e in events if e.get("cat") == "user_annotation" and e["name"].startswith("step")}

    def step_of(k):
        for name, m in marks.items():
            if m["ts"] <= k["ts"] <= m["ts"] + m["dur"]:
                return int(name[4:])
        return -1

    middle = steps // 2
    in_step = [k for k in kernels if step_of(k) == middle]
    third = len(in_step) // 3
    pool = [k for k in in_step[third:2 * third] if family_of(k["name"], family)] or [k for k in in_step if family_of(k["name"], family)]
    if not pool:
        print(f"no {family} kernel in step {middle} ({len(kernels)} kernels, marks {sorted(marks)}); "
              f"kernels seen: {sorted(set(k['name'][:80] for k in in_step))[:40]}")
        sys.exit(2)
    chosen = max(pool, key=lambda k: k["dur"])
    token = token_of(chosen["name"])
    n = sum(1 for k in kernels if token in k["name"] and k["ts"] <= chosen["ts"])
    outside = sum(1 for k in kernels if token in k["name"] and k["ts"] <= chosen["ts"] and step_of(k) < 0)
    args = chosen.get("args", {})
    same = [k["dur"] for k in kernels if k["name"] == chosen["name"] and k.get("args", {}).get("grid") == args.get("grid")
            and k.get("args", {}).get("block") == args.get("block") and step_of(k) >= 1]
    result = {
        "family": family, "name": chosen["name"], "token": token, "n": n, "n_outside_steps": outside, "step": middle,
        "index_in_step": in_step.index(chosen), "kernels_in_step": len(in_step),
        "grid": args.get("grid"), "block": args.get("block"), "shared": args.get("shared memory"),
        "in_run_us": chosen["dur"], "same_kernel_steady_us": same,
        "same_kernel_steady_median_us": statistics.median(same) if same else None,
        "token_matches_in_run": sum(1 for k in kernels if token in k["name"]),
        "top_in_step": [(k["name"][:120], k["dur"]) for k in sorted(in_step, key=lambda k: -k["dur"])[:15]],
    }
    return result


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["eager", "compiled"], default="eager")
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--discover", choices=["conv", "triton"])
    p.add_argument("--out")
    a = p.parse_args()
    step = build(a.mode)
    if a.discover:
        discover(step, a.steps, a.discover, a.out)
    else:
        run(step, a.steps)


if __name__ == "__main__":
    main()
