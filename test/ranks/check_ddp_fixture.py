#!/usr/bin/env python3
"""The real two-rank DDP recording (test/fixtures/ranks/ddp_gloo_h100, gzipped) read by
`strata report --by-rank`: one step per training step (DDP issues one all-reduce per gradient
bucket, all from one line: a step is not one all-reduce), and a step's communication counted as
the time with a call in flight (the buckets' all-reduces overlap), so it never exceeds the step.
Rank 0's findings: the backward of a group of 1x1 convolutions runs cuDNN's wgrad as sm80 CUTLASS
kernels at 12x the Hopper forward; the advice is the convolution's (cudnn.benchmark, layout,
precision), not a GEMM call site's.

  check_ddp_fixture.py STRATA FIXTURE_DIR WORKDIR
"""
import gzip
import json
import os
import shutil
import subprocess
import sys

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def main():
    strata, fixture, work = sys.argv[1:4]
    run = os.path.join(work, "ddp_gloo_h100")
    shutil.rmtree(run, ignore_errors=True)
    os.makedirs(run)
    for name in sorted(os.listdir(fixture)):
        if name.endswith(".strata.gz"):
            with gzip.open(os.path.join(fixture, name)) as src, open(os.path.join(run, name[:-3]), "wb") as dst:
                shutil.copyfileobj(src, dst)
    p = subprocess.run([strata, "report", "--by-rank", run, "--format", "json"], capture_output=True, text=True)
    check(p.returncode == 0, f"report --by-rank exits 0 ({p.returncode}: {p.stderr.strip()[:300]})")
    if p.returncode != 0:
        sys.exit(1)
    rep = json.loads(p.stdout)
    check(sorted(r["rank"] for r in rep["ranks"]) == [0, 1], "two ranks")
    steps = rep["steps"]
    check(steps["count"] == 9, f"9 steps for 10 training steps ({steps['count']})")
    check(steps["collective"] == "broadcast" and os.path.basename(steps["file"]) == "ddp_gpu.py" and steps["line"] == 36,
          f"each step from the forward's buffer broadcast at ddp_gpu.py:36 ({steps['collective']} "
          f"{os.path.basename(steps['file'])}:{steps['line']})")
    for i, st in enumerate(steps["steps"]):
        for r in range(2):
            comm, compute = st["communication_ns"][r], st["compute_ns"][r]
            check(comm > 0 and compute > 0, f"step {i + 1} rank {r}: communication and compute both seen "
                  f"({comm / 1e6:.1f}, {compute / 1e6:.1f} ms)")
    for pr in steps["per_rank"]:
        c, k = pr["median_communication_ns"] / 1e6, pr["median_compute_ns"] / 1e6
        # The recorded round's own step times: 66.4 and 66.8 ms (medians, its log).
        check(40 < c + k < 120, f"rank {pr['rank']}: a median step of {c + k:.1f} ms (communication {c:.1f}, compute {k:.1f})")
    # Frames by spread: the ranks started at different speeds (imports 5-8 s a rank), which is
    # startup's table; the steady state's names the training's own lines, no import machinery.
    importlib = lambda f: f["file"].startswith("<frozen importlib") or f["name"] == "_find_and_load"
    widest = rep["frames"][:10]
    check(bool(widest) and not any(importlib(f) for f in widest),
          f"the steady state's widest frames are no imports ({[(f['name'], os.path.basename(f['file']), f['line']) for f in widest[:4]]})")
    check(any(os.path.basename(f["file"]) in ("resnet.py", "ddp_gpu.py") for f in widest),
          "the model's or the script's lines among the steady state's widest")
    check(any(importlib(f) for f in rep["startup_frames"][:10]), "imports among startup's widest")
    p = subprocess.run([strata, "analyze", os.path.join(run, "run.2032.strata"), "--format", "json"],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"analyze rank 0 exits 0 ({p.returncode}: {p.stderr.strip()[:300]})")
    if p.returncode == 0:
        conv = [f for f in json.loads(p.stdout)["findings"]
                if f["rule"] == "forward-backward" and "ConvolutionBackward0" in f["message"]]
        check(bool(conv) and all("cuDNN convolution" in f["message"] and "cudnn.benchmark" in f["message"] and
                                 "library GEMM" not in f["message"] for f in conv),
              f"a convolution's slow backward gets the convolution's advice ({[f['message'][-160:] for f in conv][:1]})")
    shutil.rmtree(run, ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
