"""An evaluation phase, then training (test/ops/check_operators_auto.py): the default operator
mode names operators from the dispatcher's frames until the first autograd graph and records them with
RecordFunction callbacks from then on. Linear + ReLU + Linear on the CPU; marker comments name the
lines.

usage: eval_then_train.py [SECONDS_EACH]
"""
import sys
import time

import torch


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.5
    torch.manual_seed(0)
    torch.set_num_threads(1)
    width = 32
    model = torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.ReLU(), torch.nn.Linear(width, width))
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(4096, width)
    target = torch.randn(4096, width)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        with torch.no_grad():
            y = model(x)  # EVAL_LINE
    end = time.monotonic() + seconds
    steps = 0
    while time.monotonic() < end:
        out = model(x)  # TRAIN_LINE
        loss = torch.nn.functional.mse_loss(out, target)
        opt.zero_grad()
        loss.backward()  # BACKWARD_LINE
        opt.step()
        steps += 1
    print(f"steps {steps} loss {loss.item():.4f} eval {float(y.sum()):.2f} torch {torch.__version__}")


if __name__ == "__main__":
    main()
