# Target for the end-of-run tests (Python side): one way to end per mode, observations on stdout.
#   ways_to_end.py os_exit N      : work, os._exit(N)
#   ways_to_end.py sys_exit N     : work, sys.exit(N)
#   ways_to_end.py raise          : work, an uncaught exception (exit status 1)
#   ways_to_end.py interrupt-read : print "ready", block reading a pipe nobody writes; a SIGINT
#                                   must raise KeyboardInterrupt there (prints it, exits 0)
#   ways_to_end.py spin           : print "ready", work until a signal ends it
import os
import sys
import time


def work(seconds):
    end = time.process_time() + seconds
    n = 0
    while time.process_time() < end:
        n += sum(i * i for i in range(1000))
    return n


def main():
    mode = sys.argv[1]
    code = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    if mode == "os_exit":
        work(0.3)
        sys.stdout.flush()
        os._exit(code)
    if mode == "sys_exit":
        work(0.3)
        sys.exit(code)
    if mode == "raise":
        work(0.3)
        raise RuntimeError("uncaught")
    if mode == "interrupt-read":
        r, w = os.pipe()
        print("ready", flush=True)
        try:
            os.read(r, 1)
        except KeyboardInterrupt:
            print("KeyboardInterrupt in read", flush=True)
        return
    if mode == "spin":
        print("ready", flush=True)
        while True:
            work(0.01)
    sys.exit("unknown mode " + mode)


main()
