"""Prints a benchmark's result text and, when asked (--record), appends it to docs/benchmarks.md."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def print_and_record(text, record):
    print(text)
    if record:
        with open(os.path.join(ROOT, "docs", "benchmarks.md"), "a") as f:
            f.write("\n" + text)
