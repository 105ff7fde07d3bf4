"""What Inductor records about where its kernels came from, on the torch of the GPU machine:
prints the config switches about provenance / stack traces / origins and the generated wrapper
and kernel sources of a small compiled module (forward and backward), so the placement of
compiled kernels under model lines is built on what this torch actually writes.
usage: inductor_probe.py OUT_DIR"""
import glob
import os
import sys

import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(64, 64)

    def forward(self, x):
        y = self.fc(x)          # PROBE_LINEAR
        return torch.relu(y) * 2.0 + x  # PROBE_FUSED


def main():
    out = sys.argv[1]
    cfg = torch._inductor.config
    keys = [k for k in dir(cfg) if any(w in k.lower() for w in ("proven", "stack", "origin", "comment", "trace"))]
    keys += [f"trace.{k}" for k in dir(cfg.trace) if not k.startswith("_")]
    with open(os.path.join(out, "inductor_config.txt"), "w") as f:
        for k in keys:
            try:
                v = eval("cfg." + k)
            except Exception as e:  # noqa: BLE001
                v = f"<{e}>"
            if not callable(v):
                f.write(f"{k} = {v!r}\n")
    model = torch.compile(Block().cuda())
    x = torch.randn(32, 64, device="cuda", requires_grad=True)
    model(x).sum().backward()
    torch.cuda.synchronize()
    cache = os.environ.get("TORCHINDUCTOR_CACHE_DIR", "/tmp/torchinductor_" + os.environ.get("USER", "root"))
    files = sorted(glob.glob(cache + "/**/*.py", recursive=True), key=os.path.getmtime)
    with open(os.path.join(out, "inductor_sources.txt"), "w") as f:
        for p in files[-12:]:
            f.write(f"===== {p}\n")
            with open(p) as src:
                f.write(src.read()[:20000])
    print(f"{len(files)} generated files under {cache}")


if __name__ == "__main__":
    main()
