# DDP training of torch's own nn.TransformerEncoder on CPU with gloo (real library code).
import os, time, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=128, nhead=4, dim_feedforward=256, batch_first=True)
model = DDP(torch.nn.TransformerEncoder(layer, num_layers=2))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(8, 64, 128)
t0 = time.time()
for step in range(15):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
if dist.get_rank() == 0: print(f"15 steps {time.time()-t0:.2f} s")
dist.destroy_process_group()
