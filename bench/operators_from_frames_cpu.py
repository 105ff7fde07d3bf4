#!/usr/bin/env python3
"""Benchmark (not a test): operators named from native frames (`strata record --operators frames`)
against operators recorded with RecordFunction callbacks, on a model nobody here wrote: torch's own
nn.TransformerEncoder training on the CPU (bench/transformer_train_cpu.py, Debian's torch).
Records it ROUNDS times each way, alternating, and prints:
  - the median training step of each recording (the program's own timer);
  - each forward operator's share of the run's CPU time, by name, both ways: the time of the
    outermost nodes of that name less the backward work under them (callbacks place a backward
    operator under its forward one; frames leave it under torch::autograd::Engine), the frames'
    overload-carrying names (aten::transpose_int) put on the callbacks' (aten::transpose), medians
    over the rounds;
  - the largest difference between the two ways' shares, in points.
usage: bench/operators_from_frames_cpu.py [--build build] [--rounds 3] [--steps 300] [--record]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_record import print_and_record  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BACKWARD = re.compile(r"Backward\d*$|^autograd::engine::evaluate_function")


def shares(strata, profile):
    """Each forward operator's CPU time by name over the run's, without backward work under it
    (callbacks place a backward operator under its forward one): a node's forward time is its
    exclusive time plus its children's forward time, a backward operator or the autograd engine
    counting nothing; per name, the outermost nodes of that name."""
    rep = json.loads(subprocess.run([strata, "report", profile, "--format", "json", "--limit", "0"],
                                    capture_output=True, text=True, check=True).stdout)
    names = [m["name"] for m in rep["metrics"]]
    metric = next(m for m in ("cpu_time", "wall_time") if m in names)
    nodes = {n["id"]: n for n in rep["nodes"]}
    kids = {}
    for n in rep["nodes"]:
        kids.setdefault(n["parent"], []).append(n["id"])

    def backward(n):
        return (n["kind"] == "operator" and BACKWARD.search(n["name"])) or \
            (n["kind"] == "native" and n["name"].startswith("torch::autograd::Engine::"))

    fwd = {}
    for n in sorted(rep["nodes"], key=lambda n: -n["id"]):  # children have larger ids (preorder)
        fwd[n["id"]] = 0.0 if backward(n) else n["metrics"].get(metric, {}).get("exclusive", 0.0) + \
            sum(fwd[c] for c in kids.get(n["id"], ()))
    all_time = sum(nodes[c]["metrics"].get(metric, {}).get("inclusive", 0.0) for c in kids.get(0, ())) or 1.0
    out = {}
    for n in rep["nodes"]:
        if n["kind"] != "operator" or backward(n):
            continue
        p, outer = n["parent"], True
        while p not in (None, -1):
            if nodes[p]["kind"] == "operator" and nodes[p]["name"] == n["name"]:
                outer = False
                break
            p = nodes[p]["parent"]
        if outer:
            out[n["name"]] = out.get(n["name"], 0.0) + fwd[n["id"]] / all_time
    return out, rep["profile"]["meta"].get("operators", "")


def by_callback_name(frames, callback_names):
    """Frames' names onto the callbacks' (the dispatcher entry carries the overload:
    aten::transpose_int is aten::transpose): the longest callbacks name it equals or extends."""
    out = {}
    for f, v in frames.items():
        match = max((c for c in callback_names if f == c or f.startswith(c + "_")), key=len, default=f)
        out[match] = out.get(match, 0.0) + v
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(os.path.dirname(HERE), "build"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--record", action="store_true")
    a = ap.parse_args()
    strata = os.path.join(a.build, "bin", "strata")
    modes = {"callbacks": [], "frames": ["--operators", "frames"]}
    steps = {m: [] for m in modes}
    got = {m: [] for m in modes}
    status = {}
    with tempfile.TemporaryDirectory() as d:
        for r in range(a.rounds):
            for m in (list(modes) if r % 2 == 0 else list(modes)[::-1]):
                prof = os.path.join(d, f"{m}-{r}.strata")
                run = subprocess.run([strata, "record", "-o", prof, "--period-ms", "1", *modes[m], "--", "/usr/bin/python3",
                                      os.path.join(HERE, "transformer_train_cpu.py"), str(a.steps)],
                                     capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
                if run.returncode != 0:
                    raise SystemExit(f"{m}: exit {run.returncode}: {run.stderr[-1500:]}")
                steps[m].append(json.loads(run.stdout.strip().splitlines()[-1])["median_step_ms"])
                s, status[m] = shares(strata, prof)
                got[m].append(s)
    cb_names = set().union(*got["callbacks"])
    got["frames"] = [by_callback_name(g, cb_names) for g in got["frames"]]
    med = {m: {k: statistics.median([g.get(k, 0.0) for g in got[m]]) for k in set().union(*got[m])} for m in modes}
    top = sorted(set(med["callbacks"]) | set(med["frames"]),
                 key=lambda k: -max(med["callbacks"].get(k, 0), med["frames"].get(k, 0)))[:15]
    rows = [f"| {k} | {100 * med['callbacks'].get(k, 0):.1f} | {100 * med['frames'].get(k, 0):.1f} |" for k in top]
    diff = max(abs(med["callbacks"].get(k, 0) - med["frames"].get(k, 0)) for k in top)
    text = (f"nn.TransformerEncoder training on the CPU, {a.steps} steps, {a.rounds} recordings each way\n"
            f"median step: callbacks {statistics.median(steps['callbacks']):.2f} ms ({', '.join(f'{x:.2f}' for x in steps['callbacks'])}), "
            f"frames {statistics.median(steps['frames']):.2f} ms ({', '.join(f'{x:.2f}' for x in steps['frames'])})\n"
            f"meta operators: callbacks: {status['callbacks'][:120]}; frames: {status['frames'][:60]}\n\n"
            "| forward operator | % of CPU time, callbacks | % of CPU time, frames |\n| --- | --- | --- |\n"
            + "\n".join(rows) + f"\n\nlargest difference among these: {100 * diff:.1f} points")
    print_and_record("Operators from frames against callbacks (bench/operators_from_frames_cpu.py)\n\n" + text, a.record)


if __name__ == "__main__":
    main()
