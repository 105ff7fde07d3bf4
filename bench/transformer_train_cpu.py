"""A training loop of torch's own nn.TransformerEncoder on the CPU (small enough that its
operators, not its arithmetic, set the pace): the operator contexts a training step takes at
each outermost forward operator are most of what Strata adds to it. Prints one JSON line: the
median step in ms over STEPS steps after two warm-up steps.
usage: transformer_train_cpu.py [STEPS] [LAYERS]"""
import json
import statistics
import sys
import time

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 40
layers = int(sys.argv[2]) if len(sys.argv) > 2 else 6
torch.manual_seed(0)
torch.set_num_threads(1)
layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, batch_first=True)
model = torch.nn.Sequential(torch.nn.Embedding(100, 32), torch.nn.TransformerEncoder(layer, layers),
                            torch.nn.Linear(32, 100))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
ids = torch.randint(0, 100, (2, 8))
times = []
for i in range(steps + 2):
    t0 = time.perf_counter()
    opt.zero_grad(set_to_none=True)
    torch.nn.functional.cross_entropy(model(ids).flatten(0, 1), ids.flatten()).backward()
    opt.step()
    if i >= 2:
        times.append((time.perf_counter() - t0) * 1e3)
print(json.dumps({"median_step_ms": statistics.median(times), "steps": steps}))
