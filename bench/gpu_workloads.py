"""Workloads of the GPU overhead benchmark (bench/gpu_overhead.py runs them):
  cnn          a small CNN training step (conv/bn/relu, batch 64, 3x64x64)
  transformer  one transformer encoder block training step (d=512, 8 heads, seq 256, batch 16)
  small        a loop of many small kernels (64 tiny elementwise ops per step)
  cnn-large    a GPU-bound CNN step (ResNet-like stages 64-128-256, batch 128, 3x128x128)
  transformer-large  a GPU-bound transformer block step (d=1024, 16 heads, seq 1024, batch 8)
The first three are launch-bound on an H100 (a few ms per step, most of it in launches); the
large ones spend their step in kernels, as real training does.
usage: gpu_workloads.py NAME STEPS [--torch-profiler]
Prints one JSON line: median step ms, total seconds."""
import json
import statistics
import sys
import time

import torch


def _train_step(m, loss, lr=0.01, momentum=0.0):
    """One SGD training step of model `m` on the loss of its output."""
    opt = torch.optim.SGD(m.parameters(), lr=lr, momentum=momentum)

    def step():
        opt.zero_grad(set_to_none=True)
        loss(m).backward()
        opt.step()
    return step


def _classify(m, batch, size, classes, **sgd):
    x = torch.randn(batch, 3, size, size, device="cuda")
    y = torch.randint(0, classes, (batch,), device="cuda")
    return _train_step(m, lambda m: torch.nn.functional.cross_entropy(m(x), y), **sgd)


def _encoder(d, heads, ff, batch, seq):
    m = torch.nn.TransformerEncoderLayer(d, heads, ff, batch_first=True).cuda()
    x = torch.randn(batch, seq, d, device="cuda")
    return _train_step(m, lambda m: m(x).square().mean())


def cnn():
    m = torch.nn.Sequential(
        torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.BatchNorm2d(32), torch.nn.ReLU(),
        torch.nn.Conv2d(32, 64, 3, padding=1), torch.nn.BatchNorm2d(64), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, 10)).cuda()
    return _classify(m, 64, 64, 10)


def transformer():
    return _encoder(512, 8, 2048, batch=16, seq=256)


def _conv_bn_relu(cin, cout, stride):
    return [torch.nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
            torch.nn.BatchNorm2d(cout), torch.nn.ReLU(inplace=True)]


def cnn_large():
    layers = _conv_bn_relu(3, 64, 2)
    for cin, cout in ((64, 64), (64, 128), (128, 256)):
        layers += _conv_bn_relu(cin, cout, 2 if cin != cout else 1) + _conv_bn_relu(cout, cout, 1)
    m = torch.nn.Sequential(*layers, torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                            torch.nn.Linear(256, 1000)).cuda()
    return _classify(m, 128, 128, 1000, momentum=0.9)


def transformer_large():
    return _encoder(1024, 16, 4096, batch=8, seq=1024)


def small():
    x = torch.randn(1024, device="cuda")

    def step():
        y = x
        for _ in range(64):
            y = y * 1.0001 + 0.5
    return step


def main():
    name, steps = sys.argv[1], int(sys.argv[2])
    step = {"cnn": cnn, "transformer": transformer, "small": small, "cnn-large": cnn_large,
            "transformer-large": transformer_large}[name]()
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
