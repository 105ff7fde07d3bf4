"""A PyTorch training loop fed by a DataLoader whose Dataset does CPU work per item (the
data-loader rule's case): with --workers 0 the main thread loads every batch itself between the
steps; with --workers N the batches come from N worker processes and the main thread waits for
them when the workers are slower than the step.

  python3 loader_bound.py [--workers N] [--steps N] [--item-rounds N]

Runs on the CPU (Debian's python3-torch is enough); the step is a small MLP's forward, backward
and SGD update."""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Augmented(Dataset):
    """Synthetic images with a per-item "augmentation": the CPU work a real pipeline's decode and
    transforms do."""

    def __init__(self, rounds):
        self.rounds = rounds

    def __len__(self):
        return 1 << 20

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        img = torch.rand(3, 32, 32, generator=g)
        for _ in range(self.rounds):
            img = torch.flip(img, dims=[2]) * 0.99 + 0.01  # ITEM_LINE
        return img, i % 10


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--item-rounds", type=int, default=32)
    a = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    loader = DataLoader(Augmented(a.item_rounds), batch_size=32, num_workers=a.workers)
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 64), nn.ReLU(), nn.Linear(64, 10))
    opt = torch.optim.SGD(model.parameters(), lr=1e-2)
    done = 0
    for x, y in loader:  # LOAD_LINE
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(x), y)  # STEP_LINE
        loss.backward()
        opt.step()
        done += 1
        if done == a.steps:
            break
    print(f"loader_bound: {done} steps, workers {a.workers}, loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
