# Target for the truncated-stack tests (Python side): recursion 600 deep, then ~0.5 s of work;
# each Python call is several native frames, so the native walk is cut long before the root.
import sys
import time

sys.setrecursionlimit(10000)


def recurse(depth):
    if depth == 0:
        end = time.process_time() + 0.5
        while time.process_time() < end:
            sum(i * i for i in range(1000))
        return 0
    return recurse(depth - 1) + 1


recurse(600)
