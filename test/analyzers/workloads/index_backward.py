"""Analyzer workload (forward-backward rule): an embedding looked up by advanced indexing with
many repeated indices; its backward (index_put_ with accumulate) costs far more than the
forward. `--twin` uses index_select, whose backward is cheap: the rule must not fire.
Runs on CUDA when available, else CPU.  usage: index_backward.py [--twin] [steps]"""
import sys

import torch


def main():
    twin = "--twin" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--twin"]
    steps = int(args[0]) if args else 30
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    weight = torch.randn(5000, 256, device=dev, requires_grad=True)
    idx = torch.randint(0, 16, (400_000,), device=dev)  # few distinct rows: many duplicates
    opt = torch.optim.SGD([weight], lr=0.01)
    for _ in range(steps):
        opt.zero_grad()
        if twin:
            rows = torch.index_select(weight, 0, idx)  # SELECT_LINE
        else:
            rows = weight[idx]  # INDEX_LINE
        loss = rows.square().mean()
        loss.backward()
        opt.step()
    if dev == "cuda":
        torch.cuda.synchronize()
    print(f"loss {float(loss):.4f}")


if __name__ == "__main__":
    main()
