"""Decodes a Perfetto trace with the protobuf library (schema: perfetto_trace.proto beside this
file, compiled by protoc) and prints it as JSON for the export tests: the tracks (uuid, parent,
name) and each track's slices rebuilt from its begin and end events (name, begin, end, depth,
annotations, interned names and strings resolved). Exits non-zero when an end has no open begin on its track, a slice is left open, a
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


def nested_value(v):
    """A NestedValue as JSON: a dictionary, an array, or its one scalar."""
    if v.nested_type == v.DICT:
        return {k: nested_value(x) for k, x in zip(v.dict_keys, v.dict_values)}
    if v.nested_type == v.ARRAY:
        return [nested_value(x) for x in v.array_values]
    for field in ("int_value", "double_value", "bool_value", "string_value"):
        if v.HasField(field):
            return getattr(v, field)
    return None


def annotation_value(a, interned):
    """A DebugAnnotation's value as JSON: nested values, dict_entries / array_values (the form
    whose names and strings can be interned), or its one scalar."""
    if a.dict_entries:
        return {annotation_name(e, interned): annotation_value(e, interned) for e in a.dict_entries}
    if a.array_values:
        return [annotation_value(e, interned) for e in a.array_values]
    kind = a.WhichOneof("value")
    if kind == "nested_value":
        return nested_value(a.nested_value)
    if kind == "string_value_iid":
        return lookup(interned["strings"], a.string_value_iid, "annotation string")
    return getattr(a, kind)


def annotation_name(a, interned):
    if a.HasField("name_iid"):
        return lookup(interned["annotation_names"], a.name_iid, "annotation name")
    return a.name


def lookup(table, iid, what):
    if iid not in table:
        sys.exit(f"{what} iid {iid} is not interned before its use")
    return table[iid]


def main():
    with tempfile.TemporaryDirectory() as out_dir:
        schema = load_schema(out_dir)
        trace = schema.Trace()
        with open(sys.argv[1], "rb") as f:
            trace.ParseFromString(f.read())
    tracks, order, open_slices, slices = {}, [], {}, {}
    last_ts = 0
    interned = {"event_names": {}, "annotation_names": {}, "strings": {}}
    for packet in trace.packet:
        if not packet.HasField("trusted_packet_sequence_id"):
            sys.exit("a packet without its sequence id")
        if packet.sequence_flags & schema.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED:
            interned = {"event_names": {}, "annotation_names": {}, "strings": {}}
        if packet.HasField("interned_data"):
            d = packet.interned_data
            for table, entries, value in (("event_names", d.event_names, "name"),
                                          ("annotation_names", d.debug_annotation_names, "name"),
                                          ("strings", d.debug_annotation_string_values, "str")):
                for entry in entries:
                    if entry.iid in interned[table]:
                        sys.exit(f"{table} iid {entry.iid} interned twice")
                    v = getattr(entry, value)
                    interned[table][entry.iid] = v.decode("utf-8") if isinstance(v, bytes) else v
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
                if (e.HasField("name_iid") or any(a.HasField("name_iid") for a in e.debug_annotations)) and \
                        not packet.sequence_flags & schema.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE:
                    sys.exit("an event refers to interned data without SEQ_NEEDS_INCREMENTAL_STATE")
                name = lookup(interned["event_names"], e.name_iid, "event name") if e.HasField("name_iid") else e.name
                stack.append({"name": name, "begin": packet.timestamp, "depth": len(stack),
                              "args": {annotation_name(a, interned): annotation_value(a, interned)
                                       for a in e.debug_annotations}})
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
