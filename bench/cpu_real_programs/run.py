#!/usr/bin/env python3
"""Real programs under `strata record` on a CPU machine (Debian's torch on /usr/bin/python3, pyenv
CPythons, g++): each run's profiles must read back, and the report says how many processes, how
many Python frames are unnamed, and the heaviest Python lines of the first process. What
docs/benchmarks.md's "Real programs on this VM" section ran.

  python3 bench/cpu_real_programs/run.py build/bin/strata OUT_DIR [--only NAME,...]
"""
import glob
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"
PYENV = os.path.expanduser("~/.pyenv/versions")


def programs():
    yield "dataloader_train", [PY, os.path.join(HERE, "dataloader_train.py")]
    yield "lstm_conv_checkpoint", [PY, os.path.join(HERE, "lstm_conv_checkpoint.py")]
    yield "prefork_forkserver", [PY, os.path.join(HERE, "prefork_forkserver.py")]
    yield "jit_threads_pools", [PY, os.path.join(HERE, "jit_threads_pools.py")]
    for v in sorted(glob.glob(os.path.join(PYENV, "3.1[0-3].*")) + glob.glob(os.path.join(PYENV, "3.9.*"))):
        exe = glob.glob(os.path.join(v, "bin", "python3.*[0-9]"))
        if exe:
            yield "asyncio_threads-" + os.path.basename(v), [exe[0], os.path.join(HERE, "asyncio_threads.py")]
    if os.path.exists(os.path.join(PYENV, "3.13.0")):
        yield "stdlib_tests-3.13", [os.path.join(PYENV, "3.13.0/bin/python3.13"), "-m", "test", "test_json", "test_difflib"]
    src = os.path.join(HERE, "compile_me.cpp")
    yield "g++", ["g++", "-O2", "-c", src, "-o", os.devnull]


def report(strata, path):
    r = subprocess.run([strata, "report", path, "--format", "json", "--view", "top-down"], capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    return json.loads(r.stdout), ""


def main():
    strata, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    only = set(sys.argv[sys.argv.index("--only") + 1].split(",")) if "--only" in sys.argv else None
    for name, cmd in programs():
        if only and name not in only:
            continue
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        for f in glob.glob(os.path.join(folder, "*.strata")):
            os.unlink(f)
        t0 = time.monotonic()
        rec = subprocess.run([strata, "record", "-o", os.path.join(folder, "run.strata"), "--", *cmd],
                             capture_output=True, text=True, cwd=folder)
        took = time.monotonic() - t0
        files = sorted(glob.glob(os.path.join(folder, "*.strata")))
        bad, unnamed, frames = [], 0, 0
        lines = {}
        for f in files:
            rep, err = report(strata, f)
            if rep is None:
                bad.append(f"{os.path.basename(f)}: {err}")
                continue
            m = rep["metrics"][0]["name"]
            for n in rep["nodes"]:
                if n["kind"] == "python":
                    frames += 1
                    unnamed += n["name"] in ("", "<?>")
                    if f.endswith("run.strata") and n["file"] and HERE in n["file"]:
                        key = f"{os.path.basename(n['file'])}:{n['line']}"
                        lines[key] = lines.get(key, 0) + n["metrics"][m]["inclusive"]
        top = sorted(lines.items(), key=lambda kv: -kv[1])[:3]
        print(f"{name}: exit {rec.returncode}, {took:.1f} s, {len(files)} profiles, {len(bad)} unreadable, "
              f"{unnamed} of {frames} Python frames unnamed; heaviest own lines: "
              + ", ".join(f"{k} {v / 1e9:.2f} s" for k, v in top))
        for b in bad:
            print("  UNREADABLE", b)


if __name__ == "__main__":
    main()
