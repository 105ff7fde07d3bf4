#!/usr/bin/env python3
"""Checks PyTorch operator frames in a Strata profile of test/ops/torch_model.py (Linear + ReLU +
Linear, MSE loss, backward, SGD step). Records the model with `strata record`, or checks a
recorded fixture; reads `strata report --format json`.

usage: check_ops.py STRATA WORKDIR SOURCE [--gpu] -- CMD ARGS...   (records CMD)
       check_ops.py STRATA WORKDIR SOURCE [--gpu] --profile FILE     (a recorded fixture)

SOURCE is torch_model.py: its marker comments name the Python lines (FC1_LINE, RELU_LINE,
FC2_LINE, LOSS_LINE, BACKWARD_LINE). Checks, on the CPU metric (cpu_time or wall_time):
  1. meta "operators" starts with "recorded:" and counts backward operators linked.
  2. Forward operators under the right Python lines: an operator frame (JSON kind "operator")
     aten::linear or aten::addmm with a Python ancestor at FC1_LINE and one at FC2_LINE,
     aten::relu (or aten::clamp_min/threshold) at RELU_LINE, aten::mse_loss at LOSS_LINE.
  3. Placement "Python > operator > native": the outermost operator of a path hangs directly under
     a Python frame (the bindings between them are dropped) for >= 95% of operator time; native
     frames are never between two operators.
  4. Backward operators under the forward operator's Python line, with the forward <-> backward
     link: AddmmBackward0 under FC1_LINE and FC2_LINE inside aten::addmm, ReluBackward0 (or
     ThresholdBackward0) at RELU_LINE inside aten::relu, MseLossBackward0 at LOSS_LINE inside
     aten::mse_loss. Each backward sits in the subtree of its forward operator's own CCT node:
     the aten::addmm node holding AddmmBackward0 also holds forward time of its own (the
     backward was linked to the node the forward samples landed on, not to a copy of it).
  5. Backward nodes (…Backward<k>) are not left at BACKWARD_LINE (loss.backward()): at most 10%
     of backward-node time sits there (AccumulateGrad has no forward and stays there).
With --gpu (a CUDA run), on gpu_time:
  6. >= 95% of kernel gpu_time has an operator frame on its path;
  7. kernels of backward operators (autograd's own thread, no Python frames there) carry the
     forward operator's Python line: >= 90% of backward-operator kernel time lies under one of
     FC1/RELU/FC2/LOSS_LINE, and AddmmBackward0 kernels appear under FC1_LINE and FC2_LINE.
"""
import json
import os
import re
import subprocess
import sys

MARKERS = ("FC1_LINE", "RELU_LINE", "FC2_LINE", "FORWARD_LINE", "LOSS_LINE", "BACKWARD_LINE")
ENGINE = "autograd::engine::evaluate_function: "


def marker_lines(source):
    lines = {}
    with open(source) as f:
        for number, text in enumerate(f, 1):
            for m in MARKERS:
                if f"# {m}" in text:
                    lines[m] = number
    missing = [m for m in MARKERS if m not in lines]
    if missing:
        raise SystemExit(f"markers {missing} not in {source}")
    return lines


def is_backward(name):
    return name.startswith(ENGINE) or re.search(r"Backward\d+$", name) is not None


def main():
    args = sys.argv[1:]
    gpu = "--gpu" in args
    if gpu:
        args.remove("--gpu")
    fixture = None
    if "--profile" in args:
        i = args.index("--profile")
        fixture = args[i + 1]
        args[i:i + 2] = ["--"]
    sep = args.index("--")
    strata, workdir, source = args[:sep]
    cmd = args[sep + 1:]
    lines = marker_lines(source)
    src_base = os.path.basename(source)
    if fixture:
        out = fixture
    else:
        os.makedirs(workdir, exist_ok=True)
        out = os.path.join(workdir, "ops-torch-model.strata")
        if os.path.exists(out):
            os.unlink(out)
        rec = subprocess.run([strata, "record", "-o", out, "--period-ms", "1", "--", *cmd],
                             capture_output=True, text=True)
        if rec.returncode != 0 or not os.path.exists(out):
            raise SystemExit(f"record failed ({rec.returncode}): {rec.stderr.strip()[-2000:]}")
        print(rec.stdout.strip())
    rep = subprocess.run([strata, "report", out, "--view", "top-down", "--format", "json"],
                         capture_output=True, text=True)
    if rep.returncode != 0:
        raise SystemExit(f"strata report failed: {rep.stderr.strip()}")
    report = json.loads(rep.stdout)
    meta = report["profile"]["meta"]
    names = [m["name"] for m in report["metrics"]]
    cpu = next((m for m in ("cpu_time", "wall_time") if m in names), names[0])
    nodes = {n["id"]: n for n in report["nodes"]}
    failures = []

    def parent(n):
        p = n["parent"]
        return None if p in (None, -1) else nodes[p]

    def ancestors(n):
        p = parent(n)
        while p is not None:
            yield p
            p = parent(p)

    def value(n, metric=cpu):
        return n["metrics"].get(metric, {}).get("inclusive", 0.0)

    def py_lines(n):  # lines of SOURCE on n's path
        return {a["line"] for a in ancestors(n)
                if a["kind"] == "python" and os.path.basename(a["file"] or "") == src_base}

    ops = [n for n in report["nodes"] if n["kind"] == "operator"]

    # 1. meta
    status = meta.get("operators", "")
    print(f"meta operators: {status}")
    if not status.startswith("recorded:"):
        raise SystemExit(f"FAIL: operators not recorded: {status!r}")
    linked = re.search(r"(\d+) backward linked", status)
    if not linked or int(linked.group(1)) == 0:
        failures.append("meta operators counts no backward operator linked to its forward")

    # 2. forward operators under their lines (forward = no backward operator on the path)
    def forward_at(marker, want):
        total = 0.0
        for n in ops:
            if n["name"] in want and lines[marker] in py_lines(n) and \
                    not any(a["kind"] == "operator" and (is_backward(a["name"]) or a["name"] in want)
                            for a in ancestors(n)):
                total += value(n)
        return total

    fwd_expect = {"FC1_LINE": {"aten::linear", "aten::addmm"},
                  "FC2_LINE": {"aten::linear", "aten::addmm"},
                  "RELU_LINE": {"aten::relu", "aten::clamp_min", "aten::threshold"},
                  "LOSS_LINE": {"aten::mse_loss"}}
    metric_check = "gpu_time" if gpu else cpu
    for marker, want in fwd_expect.items():
        v = forward_at(marker, want)
        print(f"forward  {'/'.join(sorted(want)):<40} at {src_base}:{lines[marker]:<4} {v / 1e6:10.2f} ms {cpu} (incl. its backward)")
        if v <= 0 and not gpu:
            failures.append(f"no forward operator {sorted(want)} under {src_base}:{lines[marker]} ({marker})")
        if gpu and not any(n["name"] in want and lines[marker] in py_lines(n) for n in ops):
            failures.append(f"no operator {sorted(want)} under {src_base}:{lines[marker]} ({marker})")

    # 3. placement
    outer = [n for n in ops if not any(a["kind"] == "operator" for a in ancestors(n))]
    outer_total = sum(value(n) for n in outer)
    under_py = sum(value(n) for n in outer if parent(n) and parent(n)["kind"] == "python")
    between = [n for n in ops if parent(n) and parent(n)["kind"] == "native"
               and any(a["kind"] == "operator" for a in ancestors(n))]
    share = under_py / outer_total if outer_total else 0.0
    print(f"outermost operators directly under a Python frame: {100 * share:.1f}% of {outer_total / 1e6:.1f} ms")
    if outer_total > 0 and share < 0.95:
        failures.append(f"only {100 * share:.1f}% of outermost-operator time hangs directly under a Python frame")
    if between:
        failures.append(f"{len(between)} operator nodes under native frames inside another operator, "
                        f"e.g. {between[0]['name']}")

    # 4. backward under the forward line, inside the forward operator, same node
    bwd_expect = {"FC1_LINE": (r"AddmmBackward\d+$", {"aten::addmm", "aten::linear"}),
                  "FC2_LINE": (r"AddmmBackward\d+$", {"aten::addmm", "aten::linear"}),
                  "RELU_LINE": (r"(Relu|Threshold)Backward\d+$", {"aten::relu"}),
                  "LOSS_LINE": (r"MseLossBackward\d+$", {"aten::mse_loss"})}
    bwd_metric = "gpu_time" if gpu else cpu
    for marker, (pattern, fwd_names) in bwd_expect.items():
        found = [n for n in ops if re.search(pattern, n["name"]) and not n["name"].startswith(ENGINE)
                 and lines[marker] in py_lines(n)]
        linked_nodes = []
        for n in found:
            fwd = next((a for a in ancestors(n) if a["kind"] == "operator" and not is_backward(a["name"])), None)
            if fwd is not None and fwd["name"] in fwd_names:
                linked_nodes.append((n, fwd))
        v = sum(value(n, bwd_metric) for n, _ in linked_nodes)
        fname = "/".join(sorted(fwd_names))
        label = pattern.replace("\\d+$", "<k>")
        print(f"backward {label:<26} at {src_base}:{lines[marker]:<4} inside {fname:<24} "
              f"{v / 1e6:10.2f} ms {bwd_metric}  ({len(linked_nodes)} nodes)")
        if not linked_nodes:
            failures.append(f"no backward {pattern} under {src_base}:{lines[marker]} ({marker}) inside {sorted(fwd_names)}")
            continue
        if marker in ("FC1_LINE", "FC2_LINE") and not gpu:
            # The forward node holding the backward also holds forward samples of its own.
            own = []
            for n, fwd in linked_nodes:
                bwd_in = sum(value(c) for c in report["nodes"] if c["kind"] == "operator" and is_backward(c["name"])
                             and parent(c) is not None and parent(c)["id"] == fwd["id"])
                own.append(value(fwd) - bwd_in)
            if max(own) <= 0:
                failures.append(f"the {fname} node holding the backward at {marker} has no forward time of its own "
                                "(backward linked to a separate node)")

    # 5. backward nodes not left at the backward() line
    bnodes = [n for n in ops if re.search(r"Backward\d+$", n["name"]) and not n["name"].startswith(ENGINE)
              and not any(a["kind"] == "operator" and re.search(r"Backward\d+$", a["name"])
                          and not a["name"].startswith(ENGINE) for a in ancestors(n))]
    btotal = sum(value(n, bwd_metric) for n in bnodes)
    at_bwd_line = sum(value(n, bwd_metric) for n in bnodes if lines["BACKWARD_LINE"] in py_lines(n))
    bshare = at_bwd_line / btotal if btotal else 0.0
    print(f"backward-node time at BACKWARD_LINE (unlinked): {100 * bshare:.1f}% of {btotal / 1e6:.1f} ms {bwd_metric}")
    if btotal <= 0:
        failures.append("no backward-node time")
    elif bshare > 0.10:
        failures.append(f"{100 * bshare:.1f}% of backward-node time stays at loss.backward() (not linked)")

    # 6./7. GPU
    if gpu:
        kernels = [n for n in report["nodes"] if n["kind"] == "kernel" and value(n, "gpu_time") > 0]
        ktotal = sum(value(n, "gpu_time") for n in kernels)
        kop = sum(value(n, "gpu_time") for n in kernels if any(a["kind"] == "operator" for a in ancestors(n)))
        kshare = kop / ktotal if ktotal else 0.0
        print(f"kernels under an operator: {100 * kshare:.1f}% of {ktotal / 1e6:.1f} ms gpu_time ({len(kernels)} nodes)")
        if ktotal <= 0:
            failures.append("no kernel gpu_time")
        elif kshare < 0.95:
            failures.append(f"only {100 * kshare:.1f}% of kernel time has an operator frame on its path")
        kb = [n for n in kernels if any(a["kind"] == "operator" and is_backward(a["name"]) for a in ancestors(n))]
        kbt = sum(value(n, "gpu_time") for n in kb)
        fwd_lines = {lines[m] for m in ("FC1_LINE", "RELU_LINE", "FC2_LINE", "LOSS_LINE")}
        kbl = sum(value(n, "gpu_time") for n in kb if py_lines(n) & fwd_lines)
        kbshare = kbl / kbt if kbt else 0.0
        print(f"backward kernels under the forward's line: {100 * kbshare:.1f}% of {kbt / 1e6:.1f} ms gpu_time")
        if kbt <= 0:
            failures.append("no kernel time under backward operators")
        elif kbshare < 0.90:
            failures.append(f"only {100 * kbshare:.1f}% of backward-operator kernel time carries a forward line")
        for marker in ("FC1_LINE", "FC2_LINE"):
            if not any(lines[marker] in py_lines(n) and any(re.search(r"AddmmBackward\d+$", a["name"])
                                                            for a in ancestors(n)) for n in kb):
                failures.append(f"no AddmmBackward kernel under {src_base}:{lines[marker]} ({marker})")

    if failures:
        for f in failures:
            print("FAIL:", f)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
