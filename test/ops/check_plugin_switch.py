#!/usr/bin/env python3
"""The torch plugin's entry points for sampled GPU tracing, driven directly (ctypes) inside a
real torch: every function op_abi.h says a plugin exports is exported (a version script once hid
the switch, so operators kept being recorded between windows); strata_plugin_set_enabled stops
and resumes the operator callbacks; strata_plugin_count_calls counts operator calls with its
probability, whether the callbacks are on or off.

usage: check_plugin_switch.py PLUGIN
"""
import ctypes
import sys

import torch

EXPORTED = ["strata_plugin_framework_version", "strata_plugin_start", "strata_plugin_set_enabled",
            "strata_plugin_count_calls", "strata_plugin_calls_counted"]
ABI_VERSION = 3  # STRATA_OPS_ABI_VERSION

INTERN = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t)
PUSH = ctypes.CFUNCTYPE(None, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int64, ctypes.c_uint64,
                        ctypes.c_uint32)
POP = ctypes.CFUNCTYPE(None, ctypes.c_uint64)
POP_FORWARD = ctypes.CFUNCTYPE(None, ctypes.c_uint64, ctypes.c_int64)
ACTIVE = ctypes.CFUNCTYPE(ctypes.c_int)
ISSUE = ctypes.CFUNCTYPE(None, ctypes.c_char_p)
BEGIN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint64, ctypes.c_void_p)
END = ctypes.CFUNCTYPE(None, ctypes.c_uint64)


class OpsApi(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_uint32), ("intern", INTERN), ("push", PUSH), ("pop", POP),
                ("pop_forward", POP_FORWARD), ("active", ACTIVE), ("collective_issue", ISSUE), ("collective_begin", BEGIN),
                ("collective_end", END)]


def main():
    plugin = ctypes.CDLL(sys.argv[1])
    missing = [f for f in EXPORTED if not hasattr(plugin, f)]
    if missing:
        raise SystemExit(f"FAIL: the plugin does not export {missing}")
    pushes = [0]

    def push(*_):
        pushes[0] += 1

    api = OpsApi(ABI_VERSION, INTERN(lambda s, n: 1), PUSH(push), POP(lambda k: None),
                 POP_FORWARD(lambda k, s: None), ACTIVE(lambda: 1),
                 ISSUE(lambda s: None), BEGIN(lambda k, c: 0), END(lambda k: None))
    plugin.strata_plugin_framework_version.restype = ctypes.c_char_p
    version = plugin.strata_plugin_framework_version()
    why = ctypes.create_string_buffer(256)
    if plugin.strata_plugin_start(ctypes.byref(api), version, why, 256) != 0:
        raise SystemExit(f"FAIL: strata_plugin_start refused: {why.value.decode()}")
    plugin.strata_plugin_count_calls.argtypes = [ctypes.c_double]
    plugin.strata_plugin_calls_counted.restype = ctypes.c_uint64
    probability = 0.25
    if plugin.strata_plugin_count_calls(probability) != 0:
        raise SystemExit("FAIL: strata_plugin_count_calls refused")

    x = torch.ones(4)
    n = 20000

    def run():
        p0, c0 = pushes[0], plugin.strata_plugin_calls_counted()
        for _ in range(n):
            torch.add(x, x)
        return pushes[0] - p0, plugin.strata_plugin_calls_counted() - c0

    on = run()
    plugin.strata_plugin_set_enabled(0)
    off = run()
    plugin.strata_plugin_set_enabled(1)
    again = run()
    print(f"operators pushed (on, off, on again): {on[0]}, {off[0]}, {again[0]}; "
          f"calls counted at p={probability}: {on[1]}, {off[1]}, {again[1]} of {n} each")
    if on[0] < n or again[0] < n:
        raise SystemExit("FAIL: the operator callback did not report every torch.add while enabled")
    if off[0] != 0:
        raise SystemExit(f"FAIL: {off[0]} operators reported while the plugin was switched off")
    # Each torch.add is at least one FUNCTION-scope call; 6 standard deviations of a binomial.
    for counted in (on[1], off[1], again[1]):
        low = n * probability - 6 * (n * probability * (1 - probability)) ** 0.5
        if counted < low:
            raise SystemExit(f"FAIL: {counted} calls counted, expected at least {low:.0f}")
    ratio = off[1] / on[1]
    if not 0.85 < ratio < 1.15:
        raise SystemExit(f"FAIL: the count differs with the callbacks off ({off[1]}) and on ({on[1]})")
    print("OK")


if __name__ == "__main__":
    main()
