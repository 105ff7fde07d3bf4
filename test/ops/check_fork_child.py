#!/usr/bin/env python3
"""A worker forked after the parent has recorded operators (DataLoader workers, multiprocessing's
fork start method) profiles itself into a CCT of its own; its operator frames must be that CCT's
frames, not the ids the parent's CCT gave the same operators. Found on a real training script
(an nn.TransformerEncoder fed by a DataLoader with two workers): the second epoch's workers wrote
profiles whose nodes named frames that did not exist ("node 137 refers to frame 1160, there are
200").

Records a parent that spends ~1 s in aten::mm and then forks a worker that does the same; checks
that every profile of the run reads back, and that the worker's profile has aten::mm operator
frames under its own Python line (WORKER_LINE).
usage: check_fork_child.py STRATA WORKDIR"""
import glob
import json
import os
import subprocess
import sys

PROGRAM = r"""
import multiprocessing as mp
import time
import torch

def spin(seconds):
    a = torch.randn(256, 256)
    end = time.time() + seconds
    while time.time() < end:
        a = torch.mm(a, a).clamp_(-1, 1)  # PARENT_LINE
    return float(a.sum())

def worker(seconds):
    a = torch.randn(256, 256)
    end = time.time() + seconds
    while time.time() < end:
        a = torch.mm(a, a).clamp_(-1, 1)  # WORKER_LINE
    print("worker", float(a.sum()))

if __name__ == "__main__":
    torch.set_num_threads(1)
    spin(1.0)
    p = mp.get_context("fork").Process(target=worker, args=(1.0,))
    p.start()
    p.join()
    print("parent", spin(0.2), p.exitcode)
"""


def line_of(marker):
    return next(i for i, text in enumerate(PROGRAM.splitlines(), 1) if f"# {marker}" in text)


def report(strata, path):
    rep = subprocess.run([strata, "report", path, "--view", "top-down", "--format", "json"],
                         capture_output=True, text=True)
    if rep.returncode != 0:
        raise SystemExit(f"FAIL: {os.path.basename(path)} does not read back: {rep.stderr.strip()}")
    return json.loads(rep.stdout)


def main():
    strata, workdir = sys.argv[1:3]
    work = os.path.join(workdir, "fork-child")
    os.makedirs(work, exist_ok=True)
    for f in glob.glob(os.path.join(work, "*.strata")):
        os.unlink(f)
    script = os.path.join(work, "fork_child.py")
    with open(script, "w") as f:
        f.write(PROGRAM)
    out = os.path.join(work, "parent.strata")
    rec = subprocess.run([strata, "record", "-o", out, "--", "/usr/bin/python3", script],
                         capture_output=True, text=True)
    if rec.returncode != 0:
        raise SystemExit(f"record failed ({rec.returncode}): {rec.stderr.strip()[-2000:]}")
    children = [p for p in glob.glob(os.path.join(work, "parent.*.strata"))]
    if len(children) != 1:
        raise SystemExit(f"FAIL: expected one worker profile, found {children}; stderr: {rec.stderr.strip()}")
    report(strata, out)
    child = report(strata, children[0])
    metric = child["metrics"][0]["name"]
    nodes = {n["id"]: n for n in child["nodes"]}
    want = line_of("WORKER_LINE")

    def under_worker_line(n):
        p = n["parent"]
        while p not in (None, -1):
            a = nodes[p]
            if a["kind"] == "python" and a["line"] == want and os.path.basename(a["file"] or "") == "fork_child.py":
                return True
            p = a["parent"]
        return False

    mm = [n for n in nodes.values() if n["kind"] == "operator" and n["name"] == "aten::mm"]
    placed = sum(n["metrics"][metric]["inclusive"] for n in mm if under_worker_line(n))
    total = sum(n["metrics"][metric]["inclusive"] for n in mm)
    kinds = sorted({n["kind"] for n in nodes.values()})
    print(f"worker profile: {len(nodes)} nodes, kinds {kinds}; aten::mm {total / 1e6:.0f} ms, "
          f"{placed / 1e6:.0f} ms under fork_child.py:{want}")
    if not mm or placed <= 0 or placed < 0.9 * total:
        raise SystemExit("FAIL: the worker's aten::mm time is not under its own line")
    print("ok")


if __name__ == "__main__":
    main()
