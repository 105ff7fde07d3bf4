# Target for the runtime's Python test: hot() does 3x the work of cold().
import sys


def hot():
    s = 0
    for i in range(300000):
        s += i * 2
    return s


def cold():
    s = 0
    for i in range(100000):
        s += i * 2
    return s


def main(n):
    for _ in range(n):
        hot()
        cold()


main(int(sys.argv[1]) if len(sys.argv) > 1 else 60)
