#!/usr/bin/env python3
"""Writes the cubins a Strata profile carries (blobs section, kind 1) and, when nvdisasm is
given, their `nvdisasm -c -gi` listings, named by the module's build id (the cubin CRC):
  extract_cubins.py PROFILE OUTDIR [--nvdisasm PATH]
Used on the GPU host, where nvdisasm is, to bring listings back for fixtures; `strata sass`
embeds listings directly when it runs where nvdisasm is."""
import argparse
import os
import struct
import subprocess
import sys


def sections(data):
    if data[:8] != b"STRATAPF":
        raise SystemExit("not a Strata profile")
    table, count = struct.unpack_from("<QI", data, 24)
    for i in range(count):
        kind, rsize, off, size, n = struct.unpack_from("<IIQQQ", data, table + 32 * i)
        yield kind, off, size, n


def strings(data, off):
    count, = struct.unpack_from("<I", data, off)
    offs = struct.unpack_from(f"<{count + 1}I", data, off + 8)
    blob = off + 8 + 4 * (count + 1)
    return [data[blob + offs[i]:blob + offs[i + 1]].decode() for i in range(count)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profile")
    ap.add_argument("outdir")
    ap.add_argument("--nvdisasm")
    a = ap.parse_args()
    data = open(a.profile, "rb").read()
    secs = {k: (o, s, n) for k, o, s, n in sections(data)}
    if 8 not in secs:
        print(f"{a.profile}: no blobs")
        return
    strs = strings(data, secs[1][0])
    mods = []
    if 3 in secs:
        o, _, n = secs[3]
        for i in range(n):
            path, build_id = struct.unpack_from("<II", data, o + 32 * i)
            mods.append((strs[path], strs[build_id]))
    o, _, _ = secs[8]
    count, = struct.unpack_from("<I", data, o)
    base = o + 8 + 32 * count
    os.makedirs(a.outdir, exist_ok=True)
    for i in range(count):
        module, kind, off, size, _ = struct.unpack_from("<IIQQQ", data, o + 8 + 32 * i)
        if kind != 1:
            continue
        name = mods[module][1] if module < len(mods) else f"module{module}"
        path = os.path.join(a.outdir, name + ".cubin")
        with open(path, "wb") as f:
            f.write(data[base + off:base + off + size])
        line = f"{name}: cubin {size} bytes"
        if a.nvdisasm:
            r = subprocess.run([a.nvdisasm, "-c", "-gi", path], capture_output=True, text=True)
            with open(os.path.join(a.outdir, name + ".sass"), "w") as f:
                f.write(r.stdout)
            line += f", listing {len(r.stdout)} bytes (nvdisasm exit {r.returncode})"
        print(line)


if __name__ == "__main__":
    sys.exit(main())
