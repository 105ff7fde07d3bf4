import torch, torch.nn as nn
from torch.utils.checkpoint import checkpoint
torch.set_num_threads(1)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(1000, 64)
        self.lstm = nn.LSTM(64, 128, batch_first=True)
        self.conv = nn.Conv1d(128, 128, 3, padding=1)
        self.block = nn.Sequential(nn.Linear(128, 256), nn.GELU(), nn.Linear(256, 128))
        self.out = nn.Linear(128, 1000)
    def forward(self, tok):
        x = self.emb(tok)                                  # EMB_LINE
        x, _ = self.lstm(x)                                # LSTM_LINE
        x = self.conv(x.transpose(1, 2)).transpose(1, 2)   # CONV_LINE
        x = checkpoint(self.block, x, use_reentrant=False) # CKPT_LINE
        return self.out(x)                                 # OUT_LINE

@torch.jit.script
def scripted_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1))

def main():
    m = Net(); opt = torch.optim.Adam(m.parameters())
    for step in range(12):
        tok = torch.randint(0, 1000, (16, 64))
        loss = scripted_loss(m(tok), tok)                  # LOSS_LINE
        opt.zero_grad(); loss.backward()                   # BACKWARD_LINE
        opt.step()                                         # STEP_LINE
main()
