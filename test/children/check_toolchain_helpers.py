"""Compiler toolchain helpers a profiled program starts (ptxas here: a copy of the Python
interpreter named ptxas, busy for half a second) write no profile by default; with
STRATA_TOOLCHAIN_CHILDREN=1 they do; a child of another name (the same copy named worker) is
profiled either way. When the profiled program is itself a compiler or a build (the parent run
as a copy named g++, then one named make), its helpers are its work and are profiled by default;
STRATA_TOOLCHAIN_CHILDREN=0 still keeps them out.

  check_toolchain_helpers.py STRATA WORKDIR
"""
import glob
import json
import os
import shutil
import subprocess
import sys

strata, work = sys.argv[1:3]
folder = os.path.join(work, "toolchain_helpers")
shutil.rmtree(folder, ignore_errors=True)
os.makedirs(folder)
python = os.path.realpath("/usr/bin/python3")
for name in ("ptxas", "worker", "g++", "make"):
    shutil.copy(python, os.path.join(folder, name))
BUSY = "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass\n"
PARENT = ("import subprocess, sys\n"
          f"for name in ('ptxas', 'worker'): subprocess.run([{folder!r} + '/' + name, '-c', {BUSY!r}], check=True)\n")
failures = []


def run(label, extra_env, parent="/usr/bin/python3"):
    out = os.path.join(folder, label)
    os.makedirs(out)
    env = {k: v for k, v in os.environ.items() if k != "STRATA_TOOLCHAIN_CHILDREN"}
    env.update(extra_env)
    p = subprocess.run([strata, "record", "-o", os.path.join(out, "run.strata"), "--", parent, "-c", PARENT],
                       env=env, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        failures.append(f"{label}: strata record failed: {p.stderr}")
        return []
    children = sorted(glob.glob(os.path.join(out, "run.*.strata")))
    names = []
    for c in children:
        report = subprocess.run([strata, "report", c, "--format", "json", "--limit", "1"], capture_output=True, text=True)
        meta = json.loads(report.stdout)["profile"]["meta"]
        names.append(os.path.basename(meta.get("command", "").split(" ")[0]))
    return sorted(names)


cases = (
    ("default", run("default", {}), ["worker"]),
    ("STRATA_TOOLCHAIN_CHILDREN=1", run("included", {"STRATA_TOOLCHAIN_CHILDREN": "1"}), ["ptxas", "worker"]),
    ("a compiler profiled", run("compiler", {}, os.path.join(folder, "g++")), ["ptxas", "worker"]),
    ("a build profiled", run("build", {}, os.path.join(folder, "make")), ["ptxas", "worker"]),
    ("a compiler, STRATA_TOOLCHAIN_CHILDREN=0", run("compiler-off", {"STRATA_TOOLCHAIN_CHILDREN": "0"},
                                                    os.path.join(folder, "g++")), ["worker"]),
)
for label, got, want in cases:
    ok = got == want
    print(("ok   " if ok else "FAIL ") + f"{label}: child profiles of {want} ({got})")
    if not ok:
        failures.append(label)
if failures:
    print("\n".join(failures), file=sys.stderr)
    sys.exit(1)
