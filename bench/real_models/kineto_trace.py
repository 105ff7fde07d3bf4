#!/usr/bin/env python3
"""Records a real PyTorch-profiler (Kineto) trace for `strata import` to be tested on: torchvision
ResNet-18 training at batch 8 on the GPU, CPU and CUDA activities, Python stacks on
(with_stack=True), one warm-up and one active step of torch.profiler's schedule, written as
gzipped Chrome-trace JSON.
  python3 bench/real_models/kineto_trace.py OUT.json.gz [--no-stack]"""
import gzip
import os
import shutil
import sys
import tempfile

import torch
import torchvision


def main():
    out = sys.argv[1]
    stacks = "--no-stack" not in sys.argv
    model = torchvision.models.resnet18(num_classes=10).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(8, 3, 112, 112, device="cuda"), torch.randint(0, 10, (8,), device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    sched = torch.profiler.schedule(wait=0, warmup=1, active=1, repeat=1)
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "trace.json")
        with torch.profiler.profile(activities=acts, schedule=sched, with_stack=stacks, record_shapes=True,
                                    on_trace_ready=lambda p: p.export_chrome_trace(raw)) as prof:
            for _ in range(2):
                step()
                prof.step()
        torch.cuda.synchronize()
        with open(raw, "rb") as src, gzip.open(out, "wb") as dst:
            shutil.copyfileobj(src, dst)
    print(f"{out}: {os.path.getsize(out)} bytes, torch {torch.__version__}, stacks {stacks}")


if __name__ == "__main__":
    main()
