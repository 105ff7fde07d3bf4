// The scripts `strata trace` hands cuda-gdb: a Python one (cuda-gdb built with Python) that
// writes one JSON object a line (docs/async-copies.md "Trace": the log core::ParseCudaGdbLog
// reads), and a plain command file for a cuda-gdb without Python (x/i lines only).
#include "cuda_gdb_script.h"

#include <string>

namespace strata::cli {

// Parameters come through the environment (STRATA_TRACE_*): the script stays a constant.
// Lane 0 of the warp in focus is what registers and memory are read through: values of the
// other lanes are not recorded.
const char* CudaGdbPythonScript() {
  return R"PY(
import gdb, json, os, re, time

out = open(os.environ["STRATA_TRACE_LOG"], "w")
def emit(**kw):
    out.write(json.dumps(kw) + "\n")
    out.flush()

def run(cmd):
    try:
        return gdb.execute(cmd, to_string=True)
    except Exception as e:  # gdb.error and friends: recorded, never fatal
        return "error: %s" % e

kernel = os.environ["STRATA_TRACE_KERNEL"]
block = os.environ.get("STRATA_TRACE_BLOCK", "0,0,0")
thread = os.environ.get("STRATA_TRACE_THREAD", "0,0,0")
limit = int(os.environ.get("STRATA_TRACE_MAX", "2000"))
t0 = time.time()
emit(kind="meta", gdb=(run("show version").splitlines() or [""])[0], kernel=kernel, block=block, thread=thread, limit=limit)
for c in ("set pagination off", "set confirm off", "set width 0", "set cuda break_on_launch application"):
    r = run(c)
    if r.startswith("error"):
        emit(kind="note", command=c, result=r.strip())

def here():
    """The kernel name cuda-gdb reports at the current stop, or ''."""
    try:
        f = gdb.selected_frame()
        return f.name() or ""
    except Exception:
        return ""

def in_kernel():
    n = here()
    if not n:
        s = run("info symbol $pc")
        return kernel in s
    base = n.split("(")[0].split("<")[0].strip()
    return n == kernel or (base and base in kernel)

stopped = False
r = run("run")
for attempt in range(200):
    if gdb.selected_thread() is None:
        emit(kind="end", reason="the process exited before the kernel launched: " + r.strip()[-300:])
        raise SystemExit
    if in_kernel():
        stopped = True
        break
    emit(kind="skip", at=here())
    r = run("continue")
if not stopped:
    emit(kind="end", reason="no stop in the kernel after 200 launches")
    raise SystemExit

emit(kind="kernels", text=run("info cuda kernels"))
focus = run("cuda block %s thread %s" % (block, thread))
emit(kind="focus", request="block (%s) thread (%s)" % (block, thread), result=focus.strip(), now=run("cuda kernel block thread").strip())
if focus.startswith("error"):
    emit(kind="end", reason="cannot focus: " + focus.strip())
    raise SystemExit
entry = int(gdb.parse_and_eval("$pc"))
emit(kind="entry", pc=entry, symbol=run("info symbol $pc").strip())

REG = re.compile(r"\b(U?R\d+|U?P\d)(\.64|\.128)?\b")
GUARD = re.compile(r"^\s*@(!?)(U?P\d|U?PT)\s")
ADDR = re.compile(r"\[(U?R\d+)(\.64)?(?:\s*\+\s*(U?R\d+))?(?:\s*\+\s*(-?0x[0-9a-fA-F]+|-?\d+))?\]")
known = set()   # registers this warp wrote or whose first value is recorded
seen_mem = set()
STORES = ("ST", "STG", "STS", "STL", "RED", "REDG", "REDS", "LDGSTS", "BRA", "BRX", "JMP", "JMX", "CALL", "RET",
          "BAR", "DEPBAR", "WARPSYNC", "BSYNC", "EXIT", "SYNCS", "UTMALDG", "UTMASTG", "UBLKCP", "MEMBAR", "NOP")

def reg_value(name):
    try:
        return int(gdb.parse_and_eval("$" + name)) & 0xFFFFFFFF
    except Exception:
        return None

def regs_of(operand_text):
    names = []
    for m in REG.finditer(operand_text):
        r, wide = m.group(1), m.group(2)
        if r.endswith("PT") or r in ("RZ", "URZ"):
            continue
        names.append(r)
        if wide and r[-1].isdigit():
            base = r.rstrip("0123456789"); n = int(r[len(base):])
            names += ["%s%d" % (base, n + k) for k in range(1, 4 if wide == ".128" else 2)]
    return names

def split_instruction(text):
    """(guard, opcode, operands) of an x/i line's SASS."""
    m = re.search(r">:\s*(.*)$", text.strip()) or re.search(r":\s*(.*)$", text.strip())
    sass = (m.group(1) if m else text).split(";")[0].strip()
    guard = None
    g = GUARD.match(sass + " ")
    if g:
        guard = (g.group(1) == "!", g.group(2))
        sass = sass[g.end() - 1:].strip()
    parts = sass.split(None, 1)
    return guard, (parts[0] if parts else ""), (parts[1] if len(parts) > 1 else ""), sass

steps = 0
reason = "limit"
try:
    while steps < limit:
        pc = int(gdb.parse_and_eval("$pc"))
        text = run("x/i $pc").strip()
        guard, opcode, operands, sass = split_instruction(text)
        base_op = opcode.split(".")[0]
        rec = dict(kind="step", i=steps, pc=pc, text=sass)
        if guard:
            v = reg_value(guard[1]) if not guard[1].endswith("PT") else 1
            if v is not None:
                rec["guard"] = (v == 0) if guard[0] else (v != 0)
        ops = [o.strip() for o in operands.split(",")]
        if base_op in STORES:
            sources = ops
        elif base_op.endswith("SETP") or base_op in ("PLOP3",):
            sources = ops[2:]
        else:
            sources = ops[1:]
        reads = []
        for r in regs_of(", ".join(sources)):
            if r in known:
                continue
            known.add(r)
            v = reg_value(r)
            reads.append([r, v])
        if reads:
            rec["reads"] = reads
        if base_op in ("LDG", "LDS", "LD", "LDL", "LDGSTS") and rec.get("guard", True):
            space = {"LDG": "@global ", "LDS": "@shared ", "LDL": "@local ", "LDGSTS": "@global "}.get(base_op, "")
            mems = [o for o in ops if "[" in o]
            src = mems[-1] if mems else ""
            m = ADDR.search(src)
            if m:
                lo = reg_value(m.group(1)) or 0
                hi = reg_value("R%d" % (int(m.group(1)[1:]) + 1)) if m.group(2) and m.group(1).startswith("R") else 0
                addr = lo | ((hi or 0) << 32)
                if m.group(3):
                    addr += reg_value(m.group(3)) or 0
                if m.group(4):
                    addr += int(m.group(4), 0)
                words = 4 if ".128" in opcode else 2 if ".64" in opcode else 1
                key = (space, addr)
                if key not in seen_mem:
                    seen_mem.add(key)
                    x = run("x/%dxw (%sunsigned int *) %d" % (words, space, addr))
                    vals = re.findall(r"0x[0-9a-fA-F]+", x.split(":", 1)[1]) if ":" in x and not x.startswith("error") else []
                    rec["mem"] = dict(space=space.strip("@ ") or "generic", address=addr, words=[int(v, 16) for v in vals[:words]],
                                      error=x.strip() if not vals else "")
        s = run("stepi")
        if s.startswith("error"):
            rec["after"] = s.strip()
        emit(**rec)
        steps += 1
        if s.startswith("error") or base_op == "EXIT" and rec.get("guard", True):
            reason = "exited" if base_op == "EXIT" else "error"
            break
        if "Switching focus" in s:
            reason = "focus lost: " + s.strip()[-200:]
            break
        for r in regs_of(ops[0] if ops and base_op not in STORES else ""):
            known.add(r)
        if base_op.endswith("SETP") and len(ops) > 1:
            for r in regs_of(ops[1]):
                known.add(r)
finally:
    emit(kind="end", reason=reason, steps=steps, seconds=round(time.time() - t0, 3))
    run("kill")
)PY";
}

std::string CudaGdbCommandFile(const std::string& kernel, const std::string& block, const std::string& thread, long max_instructions) {
  return "set pagination off\nset confirm off\nset width 0\nset breakpoint pending on\nbreak " + kernel +
         "\nrun\ncuda block " + block + " thread " + thread + "\ncuda kernel block thread\nset $strata_i = 0\nwhile $strata_i < " +
         std::to_string(max_instructions) + "\n  x/i $pc\n  stepi\n  set $strata_i = $strata_i + 1\nend\nkill\nquit\n";
}

}  // namespace strata::cli
