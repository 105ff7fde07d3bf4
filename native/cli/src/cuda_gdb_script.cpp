// The scripts `strata trace` hands cuda-gdb: a Python one (cuda-gdb built with Python) that
// writes one JSON object a line (docs/async-copies.md "Trace": the log core::ParseCudaGdbLog
// reads), and a plain command file for a cuda-gdb without Python (x/i lines only).
#include "cuda_gdb_script.h"

#include <string>

namespace strata::cli {

// Parameters come through the environment (STRATA_TRACE_*: the log, kernel, focus, limit and the
// operand table core::TraceOperandTable writes): the script stays a constant.
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
symbol = run("info symbol $pc").strip()
emit(kind="entry", pc=entry, symbol=symbol)
m = re.match(r"^\S+ \+ (\d+) in section", symbol)
start = entry - (int(m.group(1)) if m else 0)  # the function's first instruction

# Per offset: the registers read and written, the guard, the memory a load reads (from
# nvdisasm's listing: STRATA_TRACE_OPERANDS). Without it the disassembly's text is split.
table = {}
if os.environ.get("STRATA_TRACE_OPERANDS"):
    try:
        table = json.load(open(os.environ["STRATA_TRACE_OPERANDS"]))
    except Exception as e:
        emit(kind="note", command="operand table", result=str(e))

REG = re.compile(r"\b(U?R\d+|U?P\d)(\.64|\.128)?\b")
GUARD = re.compile(r"^\s*@(!?)(U?P\d|U?PT)\s")
known = set()   # registers this warp wrote or whose first value is recorded
seen_mem = set()
SPACE = {"global": "@global ", "shared": "@shared ", "local": "@local ", "generic": ""}

def reg_value(name):
    try:
        return int(gdb.parse_and_eval("$" + name)) & 0xFFFFFFFF
    except Exception:
        return None

def next_reg(name):
    base = name.rstrip("0123456789")
    return "%s%d" % (base, int(name[len(base):]) + 1)

def from_text(text):
    """(guard, uses, defs, mem) from the debugger's disassembly when no table entry exists."""
    sass = re.sub(r"^.*?>:\s*", "", text.strip()).split(";")[0].strip()
    sass = re.sub(r"([\w\]])\[", r"\1, [", sass)  # "R72[R104]" -> "R72, [R104]"
    guard = None
    g = GUARD.match(sass + " ")
    if g:
        guard = (g.group(2), g.group(1) == "!")
        sass = sass[g.end() - 1:].strip()
    parts = sass.split(None, 1)
    ops = [o.strip() for o in (parts[1] if len(parts) > 1 else "").split(",")]
    regs = lambda o: [r.group(1) for r in REG.finditer(o) if not r.group(1).endswith("PT")]
    return guard, [r for o in ops[1:] for r in regs(o)], regs(ops[0]) if ops else [], None

def read_memory(mem):
    base = mem.get("base") or ""
    addr = 0
    if base:
        lo = reg_value(base)
        if lo is None:
            return None
        addr = lo
        if mem.get("wide"):
            addr |= (reg_value(next_reg(base)) or 0) << 32
    if mem.get("index"):
        addr += reg_value(mem["index"]) or 0
    addr = (addr + int(mem.get("imm", 0))) & 0xFFFFFFFFFFFFFFFF
    key = (mem["space"], addr)
    if key in seen_mem:
        return None
    seen_mem.add(key)
    words = max(1, int(mem.get("bytes", 4)) // 4)
    x = run("x/%dxw (%sunsigned int *) %d" % (words, SPACE.get(mem["space"], ""), addr))
    vals = re.findall(r"0x[0-9a-fA-F]+", x.split(":", 1)[1]) if ":" in x and not x.startswith("error") else []
    return dict(space=mem["space"], address=addr, words=[int(v, 16) for v in vals[:words]], error="" if vals else x.strip())

steps = 0
reason = "limit"
try:
    while steps < limit:
        pc = int(gdb.parse_and_eval("$pc"))
        text = run("x/i $pc").strip()
        info = table.get(str(pc - start))
        if info:
            guard = (info["guard"], info.get("negated", False)) if info.get("guard") else None
            uses, defs, mem = info.get("uses", []), info.get("defs", []), info.get("mem")
            sass = info.get("text", "")
        else:
            guard, uses, defs, mem = from_text(text)
            sass = re.sub(r"^.*?>:\s*", "", text).split(";")[0].strip()
        rec = dict(kind="step", i=steps, pc=pc, text=sass)
        if guard:
            v = 1 if guard[0].endswith("PT") else reg_value(guard[0])
            if v is not None:
                rec["guard"] = (v == 0) if guard[1] else (v != 0)
        reads = []
        for r in uses:
            if r in known or r.endswith("PT"):
                continue
            known.add(r)
            reads.append([r, reg_value(r)])
        if reads:
            rec["reads"] = reads
        if mem and rec.get("guard", True):
            got = read_memory(mem)
            if got:
                rec["mem"] = got
        s = run("stepi")
        if s.startswith("error"):
            rec["after"] = s.strip()
        emit(**rec)
        steps += 1
        op = sass.split()[0] if sass.split() else ""
        if op.startswith("@"):
            op = sass.split()[1] if len(sass.split()) > 1 else ""
        if s.startswith("error") or (op == "EXIT" and rec.get("guard", True)):
            reason = "exited" if op == "EXIT" else "error"
            break
        if "Switching focus" in s:
            reason = "focus lost: " + s.strip()[-200:]
            break
        for r in defs:
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
