"""Token-by-token decoding of a small GPT-like model (6 blocks, width 64, random weights) on the
CPU with one intra-op thread: dispatch-bound, thousands of tiny operators a token, like GPU
decoding without the GPU. Prints the median step (one token) in ms.
usage: cpu_decode.py [TOKENS]"""
import sys, time, torch, torch.nn as nn
torch.set_num_threads(1)
class Block(nn.Module):
    def __init__(s, d, h):
        super().__init__(); s.ln1 = nn.LayerNorm(d); s.att = nn.MultiheadAttention(d, h, batch_first=True)
        s.ln2 = nn.LayerNorm(d); s.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
    def forward(s, x):
        y = s.ln1(x); x = x + s.att(y, y, y, need_weights=False)[0]; return x + s.mlp(s.ln2(x))
class Tiny(nn.Module):
    def __init__(s, v=1000, d=64, h=4, n=6):
        super().__init__(); s.emb = nn.Embedding(v, d); s.pos = nn.Embedding(512, d)
        s.blocks = nn.ModuleList(Block(d, h) for _ in range(n)); s.head = nn.Linear(d, v)
    def forward(s, ids):
        x = s.emb(ids) + s.pos(torch.arange(ids.shape[1]))
        for b in s.blocks: x = b(x)
        return s.head(x[:, -1])
def main():
    tokens = int(sys.argv[1]) if len(sys.argv) > 1 else 100; torch.manual_seed(0); m = Tiny().eval(); ids = torch.randint(0, 1000, (1, 8))
    with torch.no_grad():
        for _ in range(5): m(ids)
        t0 = time.perf_counter(); steps = []
        for _ in range(tokens):
            s = time.perf_counter(); nxt = m(ids[:, -64:]).argmax(-1, keepdim=True); ids = torch.cat([ids, nxt], 1)
            steps.append(time.perf_counter() - s)
    steps.sort(); print(f"median_step_ms {steps[len(steps)//2]*1e3:.3f} total_s {time.perf_counter()-t0:.3f}")
main()
