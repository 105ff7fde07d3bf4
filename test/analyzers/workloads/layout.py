"""Analyzer workload (hotspot rule): a convolution step whose input is converted between
channels-first and channels-last every iteration; the conversion copy is a GPU-time hotspot at
the marked line. `--twin` converts once before the loop.  usage: layout.py [--twin] [steps]"""
import sys

import torch


def main():
    twin = "--twin" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--twin"]
    steps = int(args[0]) if args else 50
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    conv = torch.nn.Conv2d(64, 64, 1).to(dev)
    x = torch.randn(32, 64, 128, 128, device=dev)
    if twin:
        x = x.contiguous(memory_format=torch.channels_last)
        conv = conv.to(memory_format=torch.channels_last)
    for _ in range(steps):
        if not twin:
            x = x.contiguous(memory_format=torch.channels_last)  # CONVERT_LINE
            x = x.contiguous()  # CONVERT_BACK_LINE
        y = conv(x)
    if dev == "cuda":
        torch.cuda.synchronize()
    print(f"mean {float(y.mean()):.4f}")


if __name__ == "__main__":
    main()
