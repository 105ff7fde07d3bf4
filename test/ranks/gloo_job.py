"""A small data-parallel job on CPU with gloo, run by torchrun: every rank computes, then calls
all_reduce (and a broadcast and a barrier now and then). Rank SLOW_RANK (default 2) does extra
work in slow_down() before each all_reduce: a planted straggler whose lateness the others wait
for inside all_reduce.

  torchrun --standalone --nproc_per_node 4 test/ranks/gloo_job.py [--steps N] [--slow-rank R]
           [--kill-rank R --kill-after-s S] [--dataloader]

--kill-rank: that rank sends itself SIGKILL once S seconds passed (after its checkpoint), the
others then fail in their next collective and torchrun ends them.
--dataloader: each rank also reads a small DataLoader with one worker process (the worker
carries its rank's environment).
"""
import argparse
import os
import signal
import time

import torch
import torch.distributed as dist

ELEMENTS = 16384  # float32: 65536 bytes per all_reduce


def compute(x, ms):
    """Busy CPU work for about `ms` milliseconds."""
    end = time.perf_counter() + ms / 1000.0
    while time.perf_counter() < end:
        x = torch.sin(x) * 0.5 + x * 0.5
    return x


def slow_down(x, ms):
    """The straggler's extra work, before its all_reduce."""
    return compute(x, ms)


class BusyItems(torch.utils.data.Dataset):
    """64 items that take CPU time to make (the DataLoader worker's own samples)."""

    def __len__(self):
        return 64

    def __getitem__(self, i):
        end = time.perf_counter() + 0.01
        v = 0.0
        while time.perf_counter() < end:
            v += 1.0
        return torch.tensor(float(i))


def step(x, grad, rank, args):
    x = compute(x, args.work_ms)
    if rank == args.slow_rank:
        x = slow_down(x, args.slow_ms)
    grad.copy_(x[:ELEMENTS])
    dist.all_reduce(grad)  # the collective line the tests look for
    return x


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--work-ms", type=float, default=20.0)
    p.add_argument("--slow-rank", type=int, default=2)
    p.add_argument("--slow-ms", type=float, default=30.0)
    p.add_argument("--kill-rank", type=int, default=-1)
    p.add_argument("--kill-after-s", type=float, default=2.5)
    p.add_argument("--dataloader", action="store_true")
    args = p.parse_args()

    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    x = torch.rand(ELEMENTS * 2)
    grad = torch.zeros(ELEMENTS)
    counts = torch.zeros(4, dtype=torch.int64)
    if args.dataloader:
        loader = torch.utils.data.DataLoader(BusyItems(), batch_size=8, num_workers=1)
        for batch in loader:
            x[: batch.numel()] += batch
    start = time.monotonic()
    for i in range(args.steps):
        x = step(x, grad, rank, args)
        if i % 10 == 0:
            dist.broadcast(counts, src=0)
        if rank == args.kill_rank and time.monotonic() - start > args.kill_after_s:
            os.kill(os.getpid(), signal.SIGKILL)
    dist.barrier()
    print(f"rank {rank} done: {float(grad[0]):.3f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
