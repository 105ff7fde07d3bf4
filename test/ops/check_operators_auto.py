#!/usr/bin/env python3
"""The default operator mode (`--operators auto`): RecordFunction callbacks wait for the program's
first autograd graph; until then the views name operators from torch's dispatcher frames.
  - test/ops/eval_then_train.py (an evaluation loop under no_grad, then training): meta
    "operators" says recorded from the first autograd graph on, with backward operators linked; the
    evaluation line's operators are named from frames (aten::linear / aten::addmm with
    libtorch's module) and hold >= 80% of that line's CPU time; the training line's forward
    operators are recorded ones (no module), and AddmmBackward0 sits under the training line
    (linked to its forward); no recorded operator directly above or below its own entry named
    from frames (counted twice).
  - training from the start (a small model, under 32 operators a forward): at most 2 backward
    operators unlinked (the nodes built before the first operator that built one ended): the
    program's first operators are all watched, so the first step's forward is recorded.
  - an inference loop under no_grad (no autograd graph ever): meta "operators" starts with
    "from frames:" and says no autograd graph was built; aten::linear / aten::addmm from frames
    under the model's line.
With --gpu-fixture FILE (a GPU training profile recorded in the default mode, e.g. ResNet-50 on
the H200): meta "operators" says recorded from the first autograd graph (or, recorded before that
rule, the first backward) on; >= 99% of kernel gpu_time has an operator on its path, part of it
named from frames (before the switch) and most of it under recorded operators, >= 99% with a
Python line above its outermost operator; no recorded operator directly above or below its own
entry named from frames; at most 2 backward operators unlinked.
usage: check_operators_auto.py STRATA WORKDIR TEST_OPS_DIR
       check_operators_auto.py STRATA --gpu-fixture FILE"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_operators_from_frames import Tree, gpu_tree, record  # noqa: E402

INFERENCE = """
import time, torch
torch.set_num_threads(1)
m = torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32))
x = torch.randn(4096, 32)
end = time.monotonic() + 1.5
with torch.no_grad():
    while time.monotonic() < end:
        y = m(x)  # MODEL_LINE
print(float(y.sum()))
"""
TRAIN = """
import time, torch
torch.set_num_threads(1)
m = torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32))
opt = torch.optim.SGD(m.parameters(), lr=1e-3)
x, target = torch.randn(256, 32), torch.randn(256, 32)
for step in range(50):
    loss = torch.nn.functional.mse_loss(m(x), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(float(loss))
"""
LINEAR = ("aten::linear", "aten::addmm")


def unlinked_backward(status):
    """The backward operators meta "operators" counts as unlinked to their forward (0 if unsaid)."""
    m = re.search(r"(\d+) backward unlinked", status)
    return int(m.group(1)) if m else 0


def marker(text, name):
    return next(i for i, line in enumerate(text.splitlines(), 1) if f"# {name}" in line)


def from_frames(n):
    return "libtorch" in (n.get("module") or "")


def line_of(t, n, base):
    return {a["line"] for a in t.ancestors(n) if a["kind"] == "python" and os.path.basename(a["file"] or "") == base}


def line_total(t, base, line):
    at = [n for n in t.nodes.values() if n["kind"] == "python" and n["line"] == line
          and os.path.basename(n["file"] or "") == base]
    return sum(t.value(n) for n in at if not any(a in at for a in t.ancestors(n)))


def outer_ops(t, base, line, names, pick):
    return sum(t.value(n) for n in t.ops if n["name"] in names and pick(n) and line in line_of(t, n, base)
               and not any(a["kind"] == "operator" for a in t.ancestors(n)))


def doubled(t):
    """An operator counted twice: a recorded one and the entry it was recorded at named from
    frames, one directly under the other (recorded ones under recorded ones of the same name are
    torch's own: an overload calling another, as mse_loss_backward does)."""
    for n in t.ops:
        p = t.parent(n)
        if p is None or p["kind"] != "operator" or from_frames(n) == from_frames(p):
            continue
        a, b = (p, n) if not from_frames(p) else (n, p)
        if b["name"] == a["name"] or b["name"].startswith(a["name"] + "_"):
            return f"{n['name']} directly under {p['name']}, one recorded, one from frames"
    return None


def check_gpu_fixture(strata, profile):
    t = gpu_tree(strata, profile)
    status = t.meta.get("operators", "")
    print(f"meta operators: {status[:160]}")
    failures = []
    if not status.startswith("recorded:") or "RecordFunction callbacks from the first" not in status:
        failures.append("meta operators does not say recorded from the first autograd graph on")
    total = recorded = named = with_line = 0.0
    for v, path in t.kernels():
        total += v
        ops = [i for i, a in enumerate(path) if a["kind"] == "operator"]
        if not ops:
            continue
        if any(not from_frames(path[i]) for i in ops):
            recorded += v
        else:
            named += v
        if any(a["kind"] == "python" for a in path[ops[-1] + 1:]):
            with_line += v
    if total <= 0:
        raise SystemExit("FAIL: no kernel time in the fixture")
    print(f"kernel time {total / 1e6:.1f} ms: under recorded operators {recorded / total:.1%}, under operators named"
          f" from frames only {named / total:.1%}, with a Python line above the outermost {with_line / total:.1%}")
    if (recorded + named) / total < 0.99 or with_line / total < 0.99:
        failures.append("kernels not under operators with a Python line (want >= 99% each)")
    if named <= 0 or recorded / total < 0.5:
        failures.append("want some kernel time under operators from frames and most under recorded ones")
    if d := doubled(t):
        failures.append(d)
    unlinked = unlinked_backward(status)
    print(f"backward operators unlinked: {unlinked}")
    if unlinked > 2:
        failures.append(f"{unlinked} backward operators unlinked (want <= 2: the switch at the first node)")
    if failures:
        raise SystemExit("FAIL:\n  " + "\n  ".join(failures))
    print("ok")


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "--gpu-fixture":
        return check_gpu_fixture(sys.argv[1], sys.argv[3])
    strata, workdir, ops_dir = sys.argv[1:4]
    os.makedirs(workdir, exist_ok=True)
    failures = []

    source = os.path.join(ops_dir, "eval_then_train.py")
    text = open(source).read()
    base = os.path.basename(source)
    eval_line, train_line = marker(text, "EVAL_LINE"), marker(text, "TRAIN_LINE")
    t = Tree(record(strata, os.path.join(workdir, "auto-train.strata"), ["/usr/bin/python3", source, "1.5"], []))
    status = t.meta.get("operators", "")
    print(f"meta operators (eval, then train): {status[:220]} ... {status[-90:]}")
    if not status.startswith("recorded:") or "from the first autograd graph on" not in status:
        failures.append(f"meta operators does not say recorded from the first autograd graph on: {status[:160]!r}")
    if " 0 backward linked" in status or "backward linked" not in status:
        failures.append("no backward operator linked to its forward")
    total = line_total(t, base, eval_line)
    named = outer_ops(t, base, eval_line, LINEAR, from_frames)
    recorded = outer_ops(t, base, eval_line, LINEAR, lambda n: not from_frames(n))
    print(f"evaluation line {base}:{eval_line}: {total / 1e6:.0f} ms, operators from frames {named / max(total, 1):.1%},"
          f" recorded {recorded / max(total, 1):.1%}")
    if total <= 0 or named / total < 0.5 or recorded > 0:
        failures.append("the evaluation line's operators are not named from frames (want >= 50% from frames, none recorded)")
    total = line_total(t, base, train_line)
    rec = outer_ops(t, base, train_line, LINEAR, lambda n: not from_frames(n))
    print(f"training line {base}:{train_line}: {total / 1e6:.0f} ms, recorded aten::linear/addmm {rec / max(total, 1):.1%}")
    if rec <= 0:
        failures.append("the training line has no recorded operator")
    linked = [n for n in t.ops if n["name"] == "AddmmBackward0" and train_line in line_of(t, n, base)]
    print(f"AddmmBackward0 under the training line: {sum(t.value(n) for n in linked) / 1e6:.1f} ms")
    if not linked:
        failures.append("AddmmBackward0 is not under the training line")
    if d := doubled(t):
        failures.append(d)

    t = Tree(record(strata, os.path.join(workdir, "auto-train-only.strata"), ["/usr/bin/python3", "-c", TRAIN], []))
    status = t.meta.get("operators", "")
    unlinked = unlinked_backward(status)
    linked = re.search(r"(\d+) backward linked", status)
    print(f"training from the start: {linked.group(0) if linked else 'no backward linked'}, {unlinked} backward unlinked")
    if not linked or int(linked.group(1)) == 0:
        failures.append("training from the start: no backward operator linked")
    if unlinked > 2:
        failures.append(f"training from the start: {unlinked} backward operators unlinked (want <= 2)")

    t = Tree(record(strata, os.path.join(workdir, "auto-inference.strata"), ["/usr/bin/python3", "-c", INFERENCE], []))
    status = t.meta.get("operators", "")
    print(f"meta operators (inference): {status[:220]}")
    if not status.startswith("from frames:") or "no autograd graph was built" not in status:
        failures.append(f"the inference run's meta operators does not say from frames, no autograd graph: {status[:160]!r}")
    line = marker(INFERENCE, "MODEL_LINE")
    named = sum(t.value(n) for n in t.ops if n["name"] in LINEAR and from_frames(n)
                and any(a["kind"] == "python" and a["line"] == line for a in t.ancestors(n))
                and not any(a["kind"] == "operator" for a in t.ancestors(n)))
    print(f"inference: aten::linear/addmm from frames under the model's line {named / 1e6:.0f} ms")
    if named <= 0:
        failures.append("no operator from frames under the inference model's line")

    if failures:
        raise SystemExit("FAIL:\n  " + "\n  ".join(failures))
    print("ok")


if __name__ == "__main__":
    main()
