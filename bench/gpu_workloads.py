"""Workloads of the GPU overhead benchmark (bench/gpu_overhead.py runs them):
  cnn          a small CNN training step (conv/bn/relu, batch 64, 3x64x64)
  transformer  one transformer encoder block training step (d=512, 8 heads, seq 256, batch 16)
  small        a loop of many small kernels (64 tiny elementwise ops per step)
usage: gpu_workloads.py NAME STEPS [--torch-profiler]
Prints one JSON line: median step ms, total seconds."""
import json
import statistics
import sys
import time

import torch


def cnn():
    m = torch.nn.Sequential(
        torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.BatchNorm2d(32), torch.nn.ReLU(),
        torch.nn.Conv2d(32, 64, 3, padding=1), torch.nn.BatchNorm2d(64), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, 10)).cuda()
    opt = torch.optim.SGD(m.parameters(), lr=0.01)
    x = torch.randn(64, 3, 64, 64, device="cuda")
    y = torch.randint(0, 10, (64,), device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(m(x), y).backward()
        opt.step()
    return step


def transformer():
    m = torch.nn.TransformerEncoderLayer(512, 8, 2048, batch_first=True).cuda()
    opt = torch.optim.SGD(m.parameters(), lr=0.01)
    x = torch.randn(16, 256, 512, device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        m(x).square().mean().backward()
        opt.step()
    return step


def small():
    x = torch.randn(1024, device="cuda")

    def step():
        y = x
        for _ in range(64):
            y = y * 1.0001 + 0.5
    return step


def main():
    name, steps = sys.argv[1], int(sys.argv[2])
    step = {"cnn": cnn, "transformer": transformer, "small": small}[name]()
    for _ in range(5):
        step()
    torch.cuda.synchronize()
    prof = None
    if "--torch-profiler" in sys.argv:
        prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                  torch.profiler.ProfilerActivity.CUDA])
        prof.__enter__()
    times = []
    t_all = time.perf_counter()
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    total = time.perf_counter() - t_all
    if prof is not None:
        prof.__exit__(None, None, None)
        prof.key_averages()  # what a user of torch.profiler pays to see the result
    print(json.dumps({"workload": name, "steps": steps, "median_step_ms": statistics.median(times) * 1e3,
                      "loop_s": total}))


if __name__ == "__main__":
    main()
