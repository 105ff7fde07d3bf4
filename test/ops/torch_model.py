"""Small PyTorch training loop for the operator tests (test/ops/check_ops.py): Linear + ReLU +
Linear with an MSE loss, forward, backward and an SGD step, on the CPU (or `--device cuda`).
The checker finds the Python lines by their marker comments.

usage: torch_model.py [SECONDS] [--device cpu|cuda]
"""
import sys
import time

import torch


class Net(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc1 = torch.nn.Linear(width, width)
        self.fc2 = torch.nn.Linear(width, width)

    def forward(self, x):
        h = self.fc1(x)  # FC1_LINE
        h = torch.relu(h)  # RELU_LINE
        return self.fc2(h)  # FC2_LINE


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else 3.0
    device = sys.argv[sys.argv.index("--device") + 1] if "--device" in sys.argv else "cpu"
    torch.manual_seed(0)
    torch.set_num_threads(1)  # one thread: samples land on the thread that runs the operators
    width = 32
    model = Net(width).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(4096, width, device=device)
    target = torch.randn(4096, width, device=device)
    end = time.monotonic() + seconds
    steps = 0
    while time.monotonic() < end:
        out = model(x)  # FORWARD_LINE
        loss = torch.nn.functional.mse_loss(out, target)  # LOSS_LINE
        opt.zero_grad()
        loss.backward()  # BACKWARD_LINE
        opt.step()  # STEP_LINE
        steps += 1
    if device == "cuda":
        torch.cuda.synchronize()
    print(f"steps {steps} loss {loss.item():.4f} torch {torch.__version__} device {device}")


if __name__ == "__main__":
    main()
