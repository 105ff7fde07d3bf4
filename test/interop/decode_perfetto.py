"""Decodes a Perfetto trace with the protobuf library (schema: perfetto_trace.proto beside this
file, compiled by protoc) and prints it as JSON for the export tests: the tracks (uuid, parent,
name) and each track's slices rebuilt from its begin and end events (name, begin, end, depth,
annotations). Exits non-zero when an end has no open begin on its track, a slice is left open, a
track event names an undeclared track, or the timestamps of a sequence go back.

Usage: decode_perfetto.py TRACE.pftrace   (needs protoc and Python's protobuf package)
"""
import importlib
import json
import os
import subprocess
import sys
import tempfile


def load_schema(out_dir):
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run(["protoc", f"--proto_path={here}", f"--python_out={out_dir}", "perfetto_trace.proto"], check=True)
    sys.path.insert(0, out_dir)
    return importlib.import_module("perfetto_trace_pb2")


def annotation_value(a):
    kind = a.WhichOneof("value")
    if kind == "nested_value":
        return [v.string_value for v in a.nested_value.array_values]
    return getattr(a, kind)


def main():
    with tempfile.TemporaryDirectory() as out_dir:
        schema = load_schema(out_dir)
        trace = schema.Trace()
        with open(sys.argv[1], "rb") as f:
            trace.ParseFromString(f.read())
    tracks, order, open_slices, slices = {}, [], {}, {}
    last_ts = 0
    for packet in trace.packet:
        if not packet.HasField("trusted_packet_sequence_id"):
            sys.exit("a packet without its sequence id")
        if packet.HasField("track_descriptor"):
            d = packet.track_descriptor
            if d.uuid in tracks:
                sys.exit(f"track {d.uuid} declared twice")
            if d.parent_uuid and d.parent_uuid not in tracks:
                sys.exit(f"track {d.uuid}'s parent {d.parent_uuid} is not declared before it")
            tracks[d.uuid] = {"uuid": d.uuid, "parent": d.parent_uuid, "name": d.name}
            order.append(d.uuid)
        elif packet.HasField("track_event"):
            e = packet.track_event
            if e.track_uuid not in tracks:
                sys.exit(f"an event on undeclared track {e.track_uuid}")
            if packet.timestamp < last_ts:
                sys.exit("timestamps go back")
            last_ts = packet.timestamp
            stack = open_slices.setdefault(e.track_uuid, [])
            if e.type == schema.TrackEvent.TYPE_SLICE_BEGIN:
                stack.append({"name": e.name, "begin": packet.timestamp, "depth": len(stack),
                              "args": {a.name: annotation_value(a) for a in e.debug_annotations}})
            elif e.type == schema.TrackEvent.TYPE_SLICE_END:
                if not stack:
                    sys.exit(f"an end without a begin on track {e.track_uuid}")
                s = stack.pop()
                s["end"] = packet.timestamp
                slices.setdefault(e.track_uuid, []).append(s)
            else:
                sys.exit(f"unexpected event type {e.type}")
    for uuid, stack in open_slices.items():
        if stack:
            sys.exit(f"{len(stack)} slices left open on track {uuid}")
    print(json.dumps({"tracks": [dict(tracks[u], slices=sorted(slices.get(u, []), key=lambda s: (s["begin"], s["depth"])))
                                 for u in order]}))


if __name__ == "__main__":
    main()
