# Target for the line-number test on every CPython: while busy() runs, main()'s frame sits on
# the CALL line and busy()'s on its LOOP lines. The markers are found by the test, not counted.
import sys


def busy(n):
    total = 0
    for i in range(n):  # LOOP
        total += i * i  # LOOP
    return total


def main(reps):
    for _ in range(reps):
        busy(200000)  # CALL


main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
