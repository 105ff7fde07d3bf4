"""DeepContext's four case studies, rebuilt with random weights and data (nothing downloaded), each
with the change the analyzers suggest (`--fixed`). NOT YET RUN: prepared for the H100 (issue's
item 5); run_case_studies.sh records each variant with Strata, prints the findings and the step
times, and the numbers go to docs/analyzers.md once measured.

usage: case_studies.py CASE [--fixed] [--steps N]
CASE: recommender  embedding-heavy model; base gathers rows with advanced indexing (x[idx]),
                   fixed uses index_select (DeepContext: x1.66 on DLRM)
      unet         small UNet in NCHW with channels_last conversions around the convolutions;
                   fixed converts the model and input once (DeepContext: x1.28)
      loader       a training loop fed by a DataLoader doing CPU work per item, num_workers=0;
                   fixed uses num_workers = cores and pin_memory (DeepContext: x1.15)
      transformer  a transformer encoder trained eagerly; fixed wraps it in torch.compile
                   (DeepContext: x1.06 on Transformer-Big)
Prints one line: "CASE VARIANT step_ms=X" (median of the timed steps after 10 warm-up steps)."""
import argparse
import os
import statistics
import time

import torch
import torch.nn as nn


def recommender(fixed):
    rows, dim, batch, lookups = 1_000_000, 128, 4096, 64
    table = nn.Parameter(torch.randn(rows, dim, device="cuda") * 0.01)
    mlp = nn.Sequential(nn.Linear(dim, 256), nn.ReLU(), nn.Linear(256, 1)).cuda()
    opt = torch.optim.SGD([table, *mlp.parameters()], lr=0.01)
    # Zipf-like indices: many repeats, as in click logs.
    idx = (torch.rand(batch * lookups, device="cuda") ** 4 * rows).long()

    def step():
        opt.zero_grad(set_to_none=True)
        if fixed:
            emb = torch.index_select(table, 0, idx)  # CASE_GATHER
        else:
            emb = table[idx]  # CASE_GATHER
        x = emb.view(batch, lookups, dim).sum(1)
        loss = mlp(x).square().mean()
        loss.backward()
        opt.step()
    return step


class UNet(nn.Module):
    def __init__(self, convert):
        super().__init__()
        self.convert = convert
        ch = [3, 64, 128, 256]
        self.down = nn.ModuleList(nn.Sequential(nn.Conv2d(a, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU())
                                  for a, b in zip(ch, ch[1:]))
        self.up = nn.ModuleList(nn.Sequential(nn.Conv2d(b, a if a > 3 else 64, 3, padding=1), nn.ReLU())
                                for a, b in zip(ch[1:][::-1][1:] + [3], ch[1:][::-1]))

    def forward(self, x):
        for m in self.down:
            if self.convert:
                x = x.contiguous(memory_format=torch.channels_last)  # CASE_CONVERT
            x = m(x)
            if self.convert:
                x = x.contiguous()
        for m in self.up:
            x = m(x)
        return x


def unet(fixed):
    model = UNet(convert=not fixed).cuda()
    x = torch.randn(16, 3, 256, 256, device="cuda")
    if fixed:
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)

    def step():
        opt.zero_grad(set_to_none=True)
        model(x).square().mean().backward()
        opt.step()
    return step


class Items(torch.utils.data.Dataset):
    def __len__(self):
        return 1 << 20

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        img = torch.rand(3, 64, 64, generator=g)
        for _ in range(4):  # CPU augmentation work per item
            img = torch.flip(img, dims=[2]) * 0.99 + 0.01
        return img, i % 10


def loader(fixed):
    cores = len(os.sched_getaffinity(0))
    dl = torch.utils.data.DataLoader(Items(), batch_size=128, num_workers=cores if fixed else 0,
                                     pin_memory=fixed, persistent_workers=fixed)
    it = iter(dl)
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 64 * 64, 512), nn.ReLU(), nn.Linear(512, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)

    def step():
        x, y = next(it)  # CASE_LOAD
        x, y = x.cuda(non_blocking=fixed), y.cuda(non_blocking=fixed)
        opt.zero_grad(set_to_none=True)
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return step


def transformer(fixed):
    layer = nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096, batch_first=True)
    model = nn.TransformerEncoder(layer, num_layers=6).cuda()
    if fixed:
        model = torch.compile(model)
    x = torch.randn(32, 256, 1024, device="cuda")
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)

    def step():
        opt.zero_grad(set_to_none=True)
        model(x).square().mean().backward()  # CASE_MODEL
        opt.step()
    return step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=["recommender", "unet", "loader", "transformer"])
    ap.add_argument("--fixed", action="store_true")
    ap.add_argument("--steps", type=int, default=50)
    a = ap.parse_args()
    torch.manual_seed(0)
    step = globals()[a.case](a.fixed)
    for _ in range(10):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(a.steps):
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    print(f"{a.case} {'fixed' if a.fixed else 'base'} step_ms={statistics.median(times):.3f}")


if __name__ == "__main__":
    main()
