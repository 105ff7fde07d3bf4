# Target: CPython must still install its own SIGINT handler under the runtime (it only does so
# when SIGINT looks like SIG_DFL), so Ctrl-C raises KeyboardInterrupt. Exit 0 only if it did.
import os
import signal
import sys

if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
    sys.exit(5)
print("ready", flush=True)
if os.environ.get("READY_FILE"):  # the test sends SIGINT once this exists, not after a fixed delay
    open(os.environ["READY_FILE"], "w").close()
try:
    while True:
        sum(range(10000))
except KeyboardInterrupt:
    sys.exit(0)
