"""Tiny MLP training loop on CUDA (forward, backward, optimizer step), for checking that
every GPU kernel in a Strata profile lands under a Python line.
usage: torch_train.py [STEPS]"""
import sys

import torch


def make_model():
    return torch.nn.Sequential(
        torch.nn.Linear(512, 1024), torch.nn.ReLU(),
        torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
        torch.nn.Linear(1024, 10)).cuda()


def train_step(model, opt, x, y):
    opt.zero_grad(set_to_none=True)
    out = model(x)  # FORWARD_LINE
    loss = torch.nn.functional.cross_entropy(out, y)
    loss.backward()
    opt.step()  # STEP_LINE
    return loss


def main(steps):
    if not torch.cuda.is_available():
        sys.exit("no CUDA device")
    torch.manual_seed(0)
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(256, 512, device="cuda")
    y = torch.randint(0, 10, (256,), device="cuda")
    for _ in range(steps):
        loss = train_step(model, opt, x, y)
    torch.cuda.synchronize()
    print(f"loss {float(loss.detach()):.4f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
