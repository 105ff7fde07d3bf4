#!/usr/bin/env python3
"""The operator plugin is built on first use for the torch the target imports, with no
configuration: the runtime is copied alone into a folder (no plugin beside it), then
torch_model.py is recorded with an empty cache and checked:
  1. first run: the plugin is built into the cache, operators recorded, backward ops linked;
  2. second run: the cached plugin is used, nothing is built;
  3. two processes at once on an empty cache: one builds, the other waits and uses it;
  4. STRATA_TORCH_BUILD=0, a compiler that cannot start, one that fails: the program runs through
     unchanged and meta "operators" says why; a failed compile is not retried on the next run.

usage: check_plugin_build.py STRATA RUNTIME WORKDIR MODEL
"""
import json
import os
import shutil
import subprocess
import sys


def record(strata, runtime, out, model, cache, **extra):
    env = dict(os.environ, STRATA_RUNTIME_LIB=runtime, STRATA_CACHE_DIR=cache, **extra)
    env.pop("STRATA_TORCH_PLUGIN", None)
    return subprocess.Popen([strata, "record", "-o", out, "--", "/usr/bin/python3", model, "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def finish(strata, proc, out):
    stdout, stderr = proc.communicate()
    if proc.returncode != 0 or "steps" not in stdout or not os.path.exists(out):
        raise SystemExit(f"FAIL: the program did not run through ({proc.returncode}): {stderr[-2000:]}")
    rep = json.loads(subprocess.run([strata, "report", out, "--format", "json"], capture_output=True,
                                    text=True, check=True).stdout)
    status = rep["profile"]["meta"].get("operators", "")
    # Recorded operator frames (the views also name operators from torch's dispatcher frames in a
    # profile without recorded ones: those carry libtorch's module).
    operators = sum(1 for n in rep["nodes"] if n["kind"] == "operator" and not n.get("module"))
    print(f"  operators: {status}")
    return status, operators, stderr


def run(strata, runtime, work, model, name, cache, **extra):
    out = os.path.join(work, name + ".strata")
    if os.path.exists(out):
        os.unlink(out)
    return finish(strata, record(strata, runtime, out, model, cache, **extra), out)


def expect(cond, what):
    if not cond:
        raise SystemExit("FAIL: " + what)


def main():
    strata, runtime_built, work, model = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "rt"))
    runtime = os.path.join(work, "rt", "libstrata_runtime.so")
    shutil.copy(runtime_built, runtime)
    cache = os.path.join(work, "cache")

    print("first run, empty cache:")
    status, ops, stderr = run(strata, runtime, work, model, "first", cache)
    expect(status.startswith("recorded:") and "built on first use" in status, "the plugin was not built on first use")
    expect("building the PyTorch operator plugin" in stderr, "no progress line while building")
    expect(ops > 0 and "backward linked" in status and " 0 backward linked" not in status,
           "no operator frames or no backward op linked to its forward")
    # The plugin built there is the one a GPU host uses: its entry points driven in torch.
    built = [os.path.join(d, f) for d, _, fs in os.walk(cache) for f in fs if f == "libstrata_torch.so"]
    expect(len(built) == 1, f"one plugin in the cache: {built}")
    switch = subprocess.run(["/usr/bin/python3", os.path.join(os.path.dirname(__file__), "check_plugin_switch.py"),
                             built[0]], capture_output=True, text=True)
    print(switch.stdout.strip())
    expect(switch.returncode == 0, f"the built plugin's entry points: {switch.stdout[-500:]} {switch.stderr[-1500:]}")
    print("second run:")
    status, ops, stderr = run(strata, runtime, work, model, "second", cache)
    expect(status.startswith("recorded:") and "cached " in status and ops > 0, "the cached plugin was not used")
    expect("building" not in stderr, "the plugin was built again")

    print("two processes at once, empty cache:")
    both = os.path.join(work, "cache-both")
    outs = [os.path.join(work, f"both{i}.strata") for i in range(2)]
    procs = [record(strata, runtime, o, model, both) for o in outs]
    statuses = [finish(strata, p, o)[0] for p, o in zip(procs, outs)]
    expect(all(s.startswith("recorded:") for s in statuses), "a concurrent process did not get the plugin")
    expect(sum("built on first use" in s for s in statuses) == 1, "not exactly one process built the plugin")

    print("building off:")
    status, ops, _ = run(strata, runtime, work, model, "off", os.path.join(work, "cache-off"), STRATA_TORCH_BUILD="0")
    expect(status.startswith("not recorded:") and "STRATA_TORCH_BUILD=0" in status and ops == 0,
           "building off was not reported")
    print("a compiler that cannot run, then one that fails:")
    bad = os.path.join(work, "cache-bad")
    status, ops, _ = run(strata, runtime, work, model, "nocxx", bad, CXX=os.path.join(work, "no-such-c++"))
    expect(status.startswith("not recorded:") and "cannot run" in status and ops == 0, "a missing compiler was not reported")
    status, ops, _ = run(strata, runtime, work, model, "bad", bad, CXX="/bin/false")
    expect(status.startswith("not recorded:") and "failed" in status and ops == 0, "the failed build was not reported")
    status, ops, stderr = run(strata, runtime, work, model, "bad2", bad, CXX="/bin/false")
    expect("in an earlier run; remove" in status and "building" not in stderr, "a failed build was retried")
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
