"""Processes the target leaves running when it exits are waited for a little, so that the run
`strata record` reports is whole: a child that ends 1 s after the target has its profile
written and counted when strata record returns; one that runs on (a daemon) is left after the
wait (5 s), and strata record says it is still running.

  check_left_processes.py STRATA WORKDIR
"""
import glob
import os
import shutil
import signal
import subprocess
import sys
import time

strata, work = sys.argv[1:3]
folder = os.path.join(work, "left_processes")
shutil.rmtree(folder, ignore_errors=True)
os.makedirs(folder)
failures = []


def parent(child_code):
    # The child keeps no pipe of ours open (strata record's stderr is read here to its end).
    return ("import subprocess, sys\n"
            f"subprocess.Popen([sys.executable, '-c', {child_code!r}], stdin=subprocess.DEVNULL,"
            " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n")


def record(label, child_code):
    out = os.path.join(folder, label, "run.strata")
    os.makedirs(os.path.dirname(out))
    t0 = time.monotonic()
    p = subprocess.run([strata, "record", "-o", out, "--", "/usr/bin/python3", "-c", parent(child_code)],
                       capture_output=True, text=True, timeout=120)
    took = time.monotonic() - t0
    children = glob.glob(os.path.join(folder, label, "run.*.strata"))
    print(f"{label}: strata record returned in {took:.1f} s, child profiles {len(children)}")
    print("  " + "\n  ".join(p.stderr.strip().splitlines()[-3:]))
    return p, took, children


SLOW = "import time\ntime.sleep(1.0)\nend = time.process_time() + 0.2\nwhile time.process_time() < end: pass\n"
p, took, children = record("ends-later", SLOW)
if p.returncode != 0 or len(children) != 1:
    failures.append(f"ends-later: the child's profile is not there when strata record returns ({children})")
elif "1 process started by the target was profiled too" not in p.stderr:
    failures.append("ends-later: the child is not counted in strata record's output")
else:
    rep = subprocess.run([strata, "report", children[0], "--limit", "1"], capture_output=True, text=True)
    if rep.returncode != 0 or "ended:   exit" not in rep.stdout:
        failures.append(f"ends-later: the child's profile does not read back as ended: {rep.stderr.strip()}")

DAEMON = "import os, time\nopen(os.environ['PIDFILE'], 'w').write(str(os.getpid()))\ntime.sleep(60)\n"
pidfile = os.path.join(folder, "daemon.pid")
os.environ["PIDFILE"] = pidfile
p, took, children = record("runs-on", DAEMON)
try:
    if p.returncode != 0 or not (4.5 <= took <= 30):
        failures.append(f"runs-on: strata record should return after its wait of 5 s, took {took:.1f} s")
    if "1 process the target started is still running" not in p.stderr:
        failures.append("runs-on: strata record did not say a process is still running")
finally:
    try:
        os.kill(int(open(pidfile).read()), signal.SIGTERM)
    except (OSError, ValueError):
        pass

if failures:
    print("\n".join("FAIL " + f for f in failures), file=sys.stderr)
    sys.exit(1)
print("ok")
