"""Attribution workload: hot() does three times the work of cold(), so about 75% / 25%."""
import sys


def spin(n):
    total = 0
    for i in range(n):
        total += i * i % 7  # SPIN_LINE
    return total


def hot(n):
    return spin(3 * n)  # HOT_CALL_LINE


def cold(n):
    return spin(n)  # COLD_CALL_LINE


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    acc = 0
    for _ in range(rounds):
        acc += hot(50_000)
        acc += cold(50_000)
    print(acc)


if __name__ == "__main__":
    main()
