# A DataLoader(num_workers=2) feeding an nn.TransformerEncoder for two epochs (its second
# epoch's workers are forked after the parent recorded operators).
import torch, torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

def make_data(n=2048):
    x = torch.randn(n, 32, 64); y = torch.randint(0, 10, (n,))
    return TensorDataset(x, y)

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(64, 4, 128, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(64, 10)
    def forward(self, x):
        return self.head(self.enc(x).mean(1))

def main():
    torch.set_num_threads(2)
    dl = DataLoader(make_data(), batch_size=64, num_workers=2, shuffle=True)
    m = Model(); opt = torch.optim.AdamW(m.parameters(), 1e-3)
    for epoch in range(2):
        for x, y in dl:
            loss = nn.functional.cross_entropy(m(x), y)
            opt.zero_grad(); loss.backward(); opt.step()
    print("loss", float(loss))

if __name__ == "__main__":
    main()
