"""A data loader with more threads than cores (the cpu-latency rule's thread check, issue 5)
and, with --twin, the same loader with one thread per core.

  python3 loader_threads.py [--twin] [--items N] [--gpu]

--gpu: each loaded item feeds a small PyTorch step on the GPU (the H100 fixture), so the GPU
waits on an oversubscribed loader as in a real training loop.

Each item is "decoded" by hashing a few MB (hashlib releases the GIL for large buffers, so the
threads really compete for the cores)."""
import argparse
import hashlib
import os
from concurrent.futures import ThreadPoolExecutor

BLOB = os.urandom(4 << 20)


def load_item(i):
    h = hashlib.sha256()
    for _ in range(4):
        h.update(BLOB)  # LOAD_LINE
    return h.digest()[0] + i


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--twin", action="store_true")
    ap.add_argument("--items", type=int, default=160)
    ap.add_argument("--gpu", action="store_true")
    a = ap.parse_args()
    cores = len(os.sched_getaffinity(0))
    threads = cores if a.twin else 4 * cores
    step = None
    if a.gpu:
        import torch
        w = torch.randn(512, 512, device="cuda")

        def step(v):
            x = torch.full((512, 512), float(v % 7), device="cuda")
            return float((x @ w).sum().item())
    with ThreadPoolExecutor(max_workers=threads) as pool:
        total = 0
        for v in pool.map(load_item, range(a.items)):
            total += v
            if step:
                step(v)
    print(f"loader: {a.items} items on {threads} threads ({cores} cores): {total}")


if __name__ == "__main__":
    main()
