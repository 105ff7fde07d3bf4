"""Data-parallel training of a real model on GPUs, one process per rank (torchrun): DDP or FSDP,
NCCL or gloo, for the per-rank profiles, collectives and the rank timeline (bench/ranks/ranks_gpu.sh).
Random data and weights, nothing downloaded. Each rank prints its step times (ms, after a warm-up
step) so runs with and without Strata can be set side by side; with --torch-profiler, rank 0 also
writes a Kineto trace whose NCCL kernels are the reference for Strata's collective times.
usage: torchrun --nproc_per_node N ddp_gpu.py [--model resnet50|gpt2] [--wrap ddp|fsdp]
       [--backend nccl|gloo] [--steps S] [--torch-profiler DIR]"""
import argparse
import os
import time

import torch
import torch.distributed as dist

ap = argparse.ArgumentParser()
ap.add_argument("--model", default="resnet50", choices=["resnet50", "gpt2"])
ap.add_argument("--wrap", default="ddp", choices=["ddp", "fsdp"])
ap.add_argument("--backend", default="nccl")
ap.add_argument("--steps", type=int, default=12)
ap.add_argument("--torch-profiler", default="")
args = ap.parse_args()

local = int(os.environ.get("LOCAL_RANK", "0"))
# Several ranks may share one GPU (gloo moves CUDA tensors through the host; NCCL refuses that).
torch.cuda.set_device(local % torch.cuda.device_count())
dist.init_process_group(args.backend)
rank = dist.get_rank()
torch.manual_seed(rank)

if args.model == "resnet50":
    import torchvision
    model = torchvision.models.resnet50().cuda()
    def batch():
        return torch.randn(32, 3, 224, 224, device="cuda"), torch.randint(0, 1000, (32,), device="cuda")
    def loss_of(m, b):
        return torch.nn.functional.cross_entropy(m(b[0]), b[1])
else:
    from transformers import GPT2Config, GPT2LMHeadModel
    model = GPT2LMHeadModel(GPT2Config(n_layer=6)).cuda()
    def batch():
        ids = torch.randint(0, 50257, (8, 512), device="cuda")
        return ids, ids
    def loss_of(m, b):
        return m(input_ids=b[0], labels=b[1]).loss

if args.wrap == "ddp":
    from torch.nn.parallel import DistributedDataParallel
    model = DistributedDataParallel(model)
else:
    from torch.distributed.fsdp import FullyShardedDataParallel
    model = FullyShardedDataParallel(model)
opt = torch.optim.SGD(model.parameters(), lr=1e-3)


def train_step(b):
    opt.zero_grad(set_to_none=True)
    loss = loss_of(model, b)  # DDP_FORWARD
    loss.backward()           # DDP_BACKWARD: gradient all-reduce (DDP) / reduce-scatter (FSDP)
    opt.step()
    return loss


profiler = None
if args.torch_profiler and rank == 0:
    profiler = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA])
    profiler.start()
times = []
for step in range(args.steps):
    b = batch()
    torch.cuda.synchronize()
    t = time.perf_counter()
    loss = train_step(b)
    torch.cuda.synchronize()
    times.append(1e3 * (time.perf_counter() - t))
if profiler:
    profiler.stop()
    os.makedirs(args.torch_profiler, exist_ok=True)
    profiler.export_chrome_trace(os.path.join(args.torch_profiler, "rank0.trace.json"))
steady = sorted(times[1:])
print(f"rank {rank} {args.model} {args.wrap} {args.backend}: loss {float(loss):.3f}; "
      f"median step {steady[len(steady) // 2]:.2f} ms; steps_ms {' '.join(f'{x:.2f}' for x in times)}", flush=True)
dist.destroy_process_group()
