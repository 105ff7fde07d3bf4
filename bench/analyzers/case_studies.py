"""DeepContext's four case studies, rebuilt with random weights and data (nothing downloaded), each
with the change the analyzers suggest (`--fixed`). run_case_studies.sh records each variant with
Strata, prints the findings and the step times (run on the H100, docs/analyzers.md);
case_studies_h100.sh measures the advice of the data-loader rule (`--workers N`) and of the
GEMM hotspot (`--precision`) against the base, alternating.

usage: case_studies.py CASE [--fixed] [--steps N] [--workers N] [--precision fp32|tf32|bf16]
                        [--compile-mode default|reduce-overhead] [--step-times]
CASE: recommender  embedding-heavy model; base gathers rows with advanced indexing (x[idx]),
                   fixed uses index_select (DeepContext: x1.66 on DLRM)
      unet         small UNet in NCHW with channels_last conversions around the convolutions;
                   fixed converts the model and input once (DeepContext: x1.28)
      loader       a training loop fed by a DataLoader doing CPU work per item, num_workers=0;
                   fixed uses num_workers = cores and pin_memory (DeepContext: x1.15);
                   --workers N: N workers (pin_memory and persistent workers when N > 0)
      transformer  a transformer encoder trained eagerly; fixed wraps it in torch.compile
                   (DeepContext: x1.06 on Transformer-Big); --precision: its matrix products in
                   fp32 (the default), TF32 (set_float32_matmul_precision("high")) or bf16 (autocast)
      compiled_transformer  the same encoder under torch.compile (DeepContext's fixed variant, the
                   base of the compiled case: what Strata advises on a compiled model); --precision
                   as above, --compile-mode reduce-overhead: CUDA graphs
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


def loader(fixed, workers=None):
    if workers is None:
        workers = len(os.sched_getaffinity(0)) if fixed else 0
    parallel = workers > 0
    dl = torch.utils.data.DataLoader(Items(), batch_size=128, num_workers=workers,
                                     pin_memory=parallel, persistent_workers=parallel)
    it = iter(dl)
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 64 * 64, 512), nn.ReLU(), nn.Linear(512, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)

    def step():
        x, y = next(it)  # CASE_LOAD
        x, y = x.cuda(non_blocking=parallel), y.cuda(non_blocking=parallel)
        opt.zero_grad(set_to_none=True)
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return step


def transformer(fixed, precision="fp32", compile_mode="default"):
    layer = nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096, batch_first=True)
    model = nn.TransformerEncoder(layer, num_layers=6).cuda()
    if fixed:
        model = torch.compile(model, mode=compile_mode)
    x = torch.randn(32, 256, 1024, device="cuda")
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    # TF32: fp32 tensors, the matrix products on tensor cores with a 10-bit mantissa (what the
    # GEMM hotspot's advice names: torch.set_float32_matmul_precision("high")).
    torch.set_float32_matmul_precision("high" if precision == "tf32" else "highest")

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=precision == "bf16"):
            loss = model(x).square().mean()  # CASE_MODEL
        loss.backward()
        opt.step()
    return step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=["recommender", "unet", "loader", "transformer", "compiled_transformer"])
    ap.add_argument("--fixed", action="store_true")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--workers", type=int, default=None, help="loader: DataLoader num_workers")
    ap.add_argument("--precision", choices=["fp32", "tf32", "bf16"], default="fp32", help="transformer: matmul precision")
    ap.add_argument("--compile-mode", choices=["default", "reduce-overhead"], default="default",
                    help="compiled_transformer: torch.compile's mode")
    ap.add_argument("--step-times", action="store_true",
                    help="also print every step's time, the warm-up steps too (each then waits for the GPU)")
    a = ap.parse_args()
    if a.workers is not None and (a.case != "loader" or a.workers < 0):
        ap.error("--workers N (N >= 0) is for the loader case")
    if a.precision != "fp32" and not a.case.endswith("transformer"):
        ap.error("--precision is for the transformer cases")
    if a.compile_mode != "default" and a.case != "compiled_transformer":
        ap.error("--compile-mode is for the compiled_transformer case")
    torch.manual_seed(0)
    if a.case == "loader":
        step = loader(a.fixed, a.workers)
    elif a.case == "transformer":
        step = transformer(a.fixed, a.precision)
    elif a.case == "compiled_transformer":
        step = transformer(True, a.precision, a.compile_mode)
    else:
        step = globals()[a.case](a.fixed)
    warm = []
    for _ in range(10):
        t0 = time.perf_counter()
        step()
        if a.step_times:
            torch.cuda.synchronize()
            warm.append((time.perf_counter() - t0) * 1e3)
    torch.cuda.synchronize()
    times = []
    for _ in range(a.steps):
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    variant = "fixed" if a.fixed else "base"
    if a.workers is not None:
        variant = f"workers={a.workers}"
    if a.precision != "fp32":
        variant += f" precision={a.precision}"
    if a.compile_mode != "default":
        variant += f" mode={a.compile_mode}"
    print(f"{a.case} {variant} step_ms={statistics.median(times):.3f}", flush=True)
    if a.step_times:
        print("warmup_ms=" + ",".join(f"{t:.3f}" for t in warm) + " timed_ms=" + ",".join(f"{t:.3f}" for t in times),
              flush=True)


if __name__ == "__main__":
    main()
