#!/usr/bin/env python3
"""Operators named from native frames (`strata record --operators frames`): no RecordFunction
callbacks, the views name torch's dispatcher entry points (`at::_ops::<op>::call`) as operators.
Records test/ops/torch_model.py (Linear + ReLU + Linear, MSE loss, backward, SGD) with Debian's
torch twice, with callbacks (the default) and from frames, and checks on the frames profile:
  1. meta "operators" starts with "from frames:" (no plugin started);
  2. forward operators under their Python lines: aten::linear / aten::addmm at FC1_LINE and
     FC2_LINE, aten::relu at RELU_LINE, aten::mse_loss at LOSS_LINE;
  3. at FORWARD_LINE (the model's call) >= 80% of the CPU time is inside an operator frame;
  4. every forward operator holding >= 3% of the callbacks profile's operator time appears in the
     frames profile under the same name (or that name with its overload, `aten::add_Tensor`);
  5. no operator frame directly under another of the same name (a dispatcher entry is not counted
     twice).
With --gpu-fixture FILE (a GPU profile recorded without the operator plugin, e.g. HF GPT-2
decoding on the H100): >= 95% of kernel gpu_time has an operator frame named from the dispatcher
on its path (libtorch's module on it), and >= 95% a Python line above its outermost operator.
With --cpp PROGRAM (test/ops/libtorch_program.cpp: a C++ program on libtorch, where no plugin
ever starts): meta "operators" says "from frames: ... linked into the program", and aten::addmm,
named from frames, holds >= 50% of the CPU time with main() above it.
usage: check_operators_from_frames.py STRATA WORKDIR SOURCE
       check_operators_from_frames.py STRATA --gpu-fixture FILE
       check_operators_from_frames.py STRATA --cpp PROGRAM"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_ops import is_backward, marker_lines  # noqa: E402


def record(strata, out, argv, extra):
    if os.path.exists(out):
        os.unlink(out)
    rec = subprocess.run([strata, "record", "-o", out, "--period-ms", "1", *extra, "--", *argv],
                         capture_output=True, text=True)
    if rec.returncode != 0 or not os.path.exists(out):
        raise SystemExit(f"record failed ({rec.returncode}): {rec.stderr.strip()[-2000:]}")
    rep = subprocess.run([strata, "report", out, "--view", "top-down", "--format", "json"],
                         capture_output=True, text=True)
    if rep.returncode != 0:
        raise SystemExit(f"strata report failed: {rep.stderr.strip()}")
    return json.loads(rep.stdout)


class Tree:
    def __init__(self, report):
        self.meta = report["profile"]["meta"]
        names = [m["name"] for m in report["metrics"]]
        self.metric = next((m for m in ("cpu_time", "wall_time") if m in names), names[0])
        self.nodes = {n["id"]: n for n in report["nodes"]}
        self.ops = [n for n in report["nodes"] if n["kind"] == "operator"]

    def parent(self, n):
        p = n["parent"]
        return None if p in (None, -1) else self.nodes[p]

    def ancestors(self, n):
        p = self.parent(n)
        while p is not None:
            yield p
            p = self.parent(p)

    def value(self, n):
        return n["metrics"].get(self.metric, {}).get("inclusive", 0.0)

    def kernels(self):
        """Each kernel node's gpu_time and its path, innermost first."""
        for n in self.nodes.values():
            if n["kind"] == "kernel":
                yield n["metrics"].get("gpu_time", {}).get("inclusive", 0.0), list(self.ancestors(n))

    def outermost_forward(self):
        return [n for n in self.ops if not is_backward(n["name"])
                and not any(a["kind"] == "operator" for a in self.ancestors(n))]


def gpu_tree(strata, profile):
    """The whole top-down tree of a GPU profile, on gpu_time."""
    rep = subprocess.run([strata, "report", profile, "--format", "json", "--limit", "0", "--metric", "gpu_time"],
                         capture_output=True, text=True)
    if rep.returncode != 0:
        raise SystemExit(f"strata report failed: {rep.stderr.strip()}")
    return Tree(json.loads(rep.stdout))


def check_gpu_fixture(strata, profile):
    t = gpu_tree(strata, profile)
    status = t.meta.get("operators", "")
    print(f"meta operators: {status[:120]}")
    if status.startswith("recorded:"):
        raise SystemExit("FAIL: the fixture has recorded operators; it must be one recorded without them")
    total = with_op = with_line = 0.0
    by_op = {}
    for v, path in t.kernels():
        total += v
        ops = [i for i, a in enumerate(path) if a["kind"] == "operator" and "libtorch" in (a.get("module") or "")]
        if not ops:
            continue
        with_op += v
        outer = path[ops[-1]]
        by_op[outer["name"]] = by_op.get(outer["name"], 0.0) + v
        if any(a["kind"] == "python" for a in path[ops[-1] + 1:]):
            with_line += v
    if total <= 0:
        raise SystemExit("FAIL: no kernel time in the fixture")
    for name, v in sorted(by_op.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {name:<40} {v / total:6.1%} of kernel time")
    print(f"kernel time with an operator from frames {with_op / total:.1%}, with a Python line above it {with_line / total:.1%}")
    if with_op / total < 0.95 or with_line / total < 0.95:
        raise SystemExit("FAIL: kernels not attributed to operators named from frames (want >= 95% each)")
    print("ok")


def check_cpp_program(strata, program):
    with tempfile.TemporaryDirectory() as d:
        t = Tree(record(strata, os.path.join(d, "libtorch.strata"), [program], []))
    status = t.meta.get("operators", "")
    print(f"meta operators: {status[:120]}")
    if not (status.startswith("from frames:") and "linked into the program" in status):
        raise SystemExit("FAIL: meta operators does not say that a program linked with libtorch has them from frames")
    total = sum(t.value(n) for n in t.nodes.values() if n["parent"] == 0)
    addmm = [n for n in t.ops if n["name"] == "aten::addmm" and "libtorch" in (n.get("module") or "")
             and not any(a["kind"] == "operator" and a["name"] == "aten::addmm" for a in t.ancestors(n))]
    under_main = sum(t.value(n) for n in addmm if any(a["kind"] == "native" and a["name"] == "main" for a in t.ancestors(n)))
    share = under_main / total if total else 0.0
    print(f"aten::addmm under main(): {share:.1%} of {total / 1e6:.0f} ms")
    if share < 0.5:
        raise SystemExit("FAIL: aten::addmm from frames under main() holds under 50% of the CPU time")
    print("ok")


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "--cpp":
        return check_cpp_program(sys.argv[1], sys.argv[3])
    if len(sys.argv) == 4 and sys.argv[2] == "--gpu-fixture":
        return check_gpu_fixture(sys.argv[1], sys.argv[3])
    strata, workdir, source = sys.argv[1:4]
    os.makedirs(workdir, exist_ok=True)
    lines = marker_lines(source)
    base = os.path.basename(source)
    argv = ["/usr/bin/python3", source, "3"]
    callbacks = Tree(record(strata, os.path.join(workdir, "ops-callbacks.strata"), argv, []))
    frames = Tree(record(strata, os.path.join(workdir, "ops-frames.strata"), argv, ["--operators", "frames"]))
    failures = []

    status = frames.meta.get("operators", "")
    print(f"meta operators (frames): {status}")
    if not status.startswith("from frames:"):
        raise SystemExit(f"FAIL: the frames run says {status!r}")
    if not callbacks.meta.get("operators", "").startswith("recorded:"):
        raise SystemExit(f"FAIL: the callbacks run did not record operators: {callbacks.meta.get('operators')!r}")

    def py_lines(t, n):
        return {a["line"] for a in t.ancestors(n) if a["kind"] == "python" and os.path.basename(a["file"] or "") == base}

    expect = {"FC1_LINE": ("aten::linear", "aten::addmm"), "FC2_LINE": ("aten::linear", "aten::addmm"),
              "RELU_LINE": ("aten::relu", "aten::clamp_min", "aten::threshold"), "LOSS_LINE": ("aten::mse_loss",)}
    for marker, want in expect.items():
        v = sum(frames.value(n) for n in frames.ops if n["name"] in want and lines[marker] in py_lines(frames, n)
                and not any(a["kind"] == "operator" and a["name"] in want for a in frames.ancestors(n)))
        print(f"{'/'.join(want):<45} at {base}:{lines[marker]:<4} {v / 1e6:9.2f} ms")
        if v <= 0:
            failures.append(f"no operator {want} under {base}:{lines[marker]} ({marker})")

    # 3. the model's call: its time inside operators (the rest: Python and the bindings).
    fwd = [n for n in frames.nodes.values() if n["kind"] == "python" and n["line"] == lines["FORWARD_LINE"]
           and os.path.basename(n["file"] or "") == base]
    fwd_total = sum(frames.value(n) for n in fwd if not any(a in fwd for a in frames.ancestors(n)))
    in_ops = sum(frames.value(n) for n in frames.outermost_forward() if lines["FORWARD_LINE"] in py_lines(frames, n))
    share = in_ops / fwd_total if fwd_total else 0.0
    print(f"at FORWARD_LINE {fwd_total / 1e6:.1f} ms, {share:.1%} inside operator frames")
    if share < 0.80:
        failures.append(f"only {share:.1%} of {base}:{lines['FORWARD_LINE']} is inside operator frames (want >= 80%)")

    # 4. the callbacks profile's heavy forward operators, by name.
    by_name = {}
    for n in callbacks.ops:
        if not is_backward(n["name"]) and not any(is_backward(a["name"]) for a in callbacks.ancestors(n) if a["kind"] == "operator"):
            by_name[n["name"]] = by_name.get(n["name"], 0.0) + callbacks.value(n)
    total = sum(callbacks.value(n) for n in callbacks.outermost_forward()) or 1.0
    frame_names = {n["name"] for n in frames.ops}
    for name, v in sorted(by_name.items(), key=lambda kv: -kv[1]):
        if v / total < 0.03:
            continue
        found = name in frame_names or any(f.startswith(name + "_") for f in frame_names)
        print(f"callbacks {name:<28} {v / total:6.1%}  {'named from frames too' if found else 'MISSING from frames'}")
        if not found:
            failures.append(f"{name} ({v / total:.1%} of the callbacks profile's operator time) has no operator from frames")

    # 5. no doubled entry.
    for n in frames.ops:
        p = frames.parent(n)
        if p is not None and p["kind"] == "operator" and p["name"] == n["name"]:
            failures.append(f"{n['name']} directly under itself")
            break

    if failures:
        raise SystemExit("FAIL:\n  " + "\n  ".join(failures))
    print("ok")


if __name__ == "__main__":
    main()
