# Writes, for a few functions, the data the linetable decoder test needs, one function per line:
#   firstlineno <hex co_linetable> unit:line,unit:line,...   (line -1 = no location)
# using co_lines() of the running interpreter as the expected answer.
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
    for start, end, line in co.co_lines():
        for b in range(start, end, 2):
            pairs.append("%d:%d" % (b // 2, -1 if line is None else line))
    out.write("%d %s %s\n" % (co.co_firstlineno, co.co_linetable.hex(), ",".join(pairs)))


with open(sys.argv[1], "w") as out:
    for f in (simple, branches, ns["far"], dump):
        dump(f, out)
