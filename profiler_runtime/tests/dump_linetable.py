# Writes, for a few functions, the data the linetable decoder test needs, one function per line:
#   format firstlineno <hex table> offset:line,offset:line,...   (line -1 = no location)
# format: "loc" (3.11+: co_linetable, offsets in code units), "lt310" (3.10: co_linetable,
# byte offsets), "lnotab" (3.9: co_lnotab, byte offsets). Expected lines: co_lines() of the
# running interpreter (3.10+), dis.findlinestarts() on 3.9.
import dis
import sys


def simple(a, b):
    c = a + b
    return c * 2


def branches(x):
    total = 0
    for i in range(x):
        if i % 3 == 0:
            total += i
        elif i % 3 == 1:
            total -= (i
                      * 2)
        else:
            try:
                total //= i
            except ZeroDivisionError:
                pass
    return [y for y in range(total) if y]


src = "def far():\n    a = 1\n" + "\n" * 300 + "    b = a + 1\n" + "\n" * 5000 + "    return b\n"
ns = {}
exec(compile(src, "<far>", "exec"), ns)


def dump(fn, out):
    co = fn.__code__
    pairs = []
    if sys.version_info >= (3, 10):
        fmt = "loc" if sys.version_info >= (3, 11) else "lt310"
        table = co.co_linetable
        for start, end, line in co.co_lines():
            for b in range(start, end, 2):
                off = b // 2 if fmt == "loc" else b
                pairs.append("%d:%d" % (off, -1 if line is None else line))
    else:
        fmt = "lnotab"
        table = co.co_lnotab
        starts = sorted(dis.findlinestarts(co))
        line = co.co_firstlineno
        k = 0
        for b in range(0, len(co.co_code), 2):
            while k < len(starts) and starts[k][0] <= b:
                line = starts[k][1]
                k += 1
            pairs.append("%d:%d" % (b, line))
    out.write("%s %d %s %s\n" % (fmt, co.co_firstlineno, table.hex(), ",".join(pairs)))


with open(sys.argv[1], "w") as out:
    for f in (simple, branches, ns["far"], dump):
        dump(f, out)
