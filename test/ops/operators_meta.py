"""Records a command with `strata record` and returns the profile's meta `operators` line (the
operator tests read what the runtime counted there)."""
import os
import subprocess


def record_operators_line(strata, out, argv, env=None):
    if os.path.exists(out):
        os.unlink(out)
    rec = subprocess.run([strata, "record", "-o", out, "--", *argv], capture_output=True, text=True, env=env)
    if rec.returncode != 0 or not os.path.exists(out):
        raise SystemExit(f"record failed ({rec.returncode}): {rec.stderr.strip()[-2000:]}")
    rep = subprocess.run([strata, "report", out, "--limit", "1"], capture_output=True, text=True)
    status = next((l.split(":", 1)[1].strip() for l in rep.stdout.splitlines()
                   if l.strip().startswith("operators:")), "")
    print(f"meta operators: {status}")
    return status
