#!/usr/bin/env python3
"""What one region record costs in SASS (issue 7, part 6): reads `cuobjdump -sass` of
region_overhead (bench/regions/run_h100.sh keeps the probes in sass.txt) and counts the
instructions between consecutive marker clock reads of RecordProbe<16> (16 markers in a row):
  sass_record_cost.py SASS.txt [--max N]   (exit 1 when a record takes more than N instructions)"""
import re
import sys

FUNC = re.compile(r"Function : (\S+)")
INSN = re.compile(r"/\*[0-9a-f]{4}\*/\s+(.*?)\s*;")


def functions(text):
    out, name = {}, None
    for line in text.splitlines():
        m = FUNC.search(line)
        if m:
            name = m.group(1)
            out[name] = []
            continue
        m = INSN.search(line)
        if m and name:
            out[name].append(m.group(1))
    return out


def opcodes(insns):
    ops = []
    for i in insns:
        op = re.sub(r"^@!?U?P\w+\s+", "", i).split()[0]
        if op != "NOP":
            ops.append(op)
    # the trailing self-branch that pads every kernel
    while ops and ops[-1] == "BRA":
        ops.pop()
    return ops


def main():
    fns = functions(open(sys.argv[1]).read())
    limit = float(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--max" else None
    on16 = fns["_ZN2on11RecordProbeILi16EEEvPi"]
    off16 = opcodes(fns["_ZN3off11RecordProbeILi16EEEvPi"])
    on0 = opcodes(fns["_ZN2on11RecordProbeILi0EEEvPi"])
    # The 16 markers are straight-line code: one clock read each; what lies between two
    # consecutive reads is one record.
    clocks = [i for i, ins in enumerate(on16) if "SR_CLOCKLO" in ins and "CS2R.32" in ins]
    if len(clocks) != 16:
        raise SystemExit(f"expected 16 marker clock reads in RecordProbe<16>, found {len(clocks)}")
    per = (clocks[-1] - clocks[0]) / 15
    one = [re.sub(r"\s+", " ", ins) for ins in on16[clocks[1]:clocks[2]]]
    print(f"per record: {per:.2f} SASS instructions (markers 2..16 of RecordProbe<16>): " + "; ".join(one))
    print(f"RecordProbe<16> whole: {len(opcodes(on16))} instructions with markers, {len(off16)} compiled out; "
          f"RecordProbe<0> (set-up and finalize only): {len(on0)}")
    if limit is not None and per > limit:
        raise SystemExit(f"a record takes {per:.2f} instructions, more than {limit:g}")


if __name__ == "__main__":
    main()
