# A 4-rank gloo job with a planted slow rank: every rank computes, then all ranks meet in an
# all_reduce. With STRATA_TEST_SLOW_RANK=N, rank N also runs extra_work() before each all_reduce,
# so the others wait for it inside the collective (the straggler the analyzers must name).
import os
import time

import torch
import torch.distributed as dist


def compute(x, reps):
    for _ in range(reps):
        x = torch.tanh(x @ x) * 0.5
    return x


def extra_work(x):
    # The straggler's extra work: as much again as compute() on the same data.
    return compute(x, 12)


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    rank_map = os.environ.get("STRATA_TEST_RANK_MAP")
    if rank_map:  # which process is which rank, for stamping rank meta onto the profiles
        with open(os.path.join(rank_map, str(os.getpid())), "w") as f:
            f.write(f"{rank} {os.environ['LOCAL_RANK']} {dist.get_world_size()}\n")
    slow = int(os.environ.get("STRATA_TEST_SLOW_RANK", "-1"))
    steps = int(os.environ.get("STRATA_TEST_STEPS", "30"))
    torch.set_num_threads(1)
    torch.manual_seed(rank)
    x = torch.randn(256, 256)
    grad = torch.zeros(1 << 16)
    for _ in range(steps):
        y = compute(x, 12)
        if rank == slow:
            y = extra_work(y)
        grad += y.sum()
        dist.all_reduce(grad)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
