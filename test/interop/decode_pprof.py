"""Decodes a gzipped pprof profile with the protobuf library (schema: pprof_profile.proto beside
this file, compiled by protoc) and prints it as JSON for the export tests: sample types, and each
sample's call path outermost first (function name, file, line) with its values.

Usage: decode_pprof.py PROFILE.pb.gz   (needs protoc and Python's protobuf package)
"""
import gzip
import importlib
import json
import os
import subprocess
import sys
import tempfile


def load_schema(out_dir):
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run(["protoc", f"--proto_path={here}", f"--python_out={out_dir}", "pprof_profile.proto"], check=True)
    sys.path.insert(0, out_dir)
    return importlib.import_module("pprof_profile_pb2")


def main():
    with tempfile.TemporaryDirectory() as out_dir:
        schema = load_schema(out_dir)
        profile = schema.Profile()
        with gzip.open(sys.argv[1], "rb") as f:
            profile.ParseFromString(f.read())
    s = profile.string_table
    if s[0] != "":
        sys.exit("string_table[0] is not empty")
    functions = {fn.id: fn for fn in profile.function}
    locations = {loc.id: loc for loc in profile.location}
    samples = []
    for sample in profile.sample:
        path = []
        for location_id in reversed(sample.location_id):  # stored leaf first
            line = locations[location_id].line[0]
            fn = functions[line.function_id]
            path.append({"name": s[fn.name], "file": s[fn.filename], "line": line.line})
        if len(sample.value) != len(profile.sample_type):
            sys.exit("a sample's value count differs from the sample types'")
        samples.append({"path": path, "values": list(sample.value)})
    print(json.dumps({
        "sample_types": [{"type": s[t.type], "unit": s[t.unit]} for t in profile.sample_type],
        "default_sample_type": s[profile.default_sample_type],
        "samples": samples,
    }))


if __name__ == "__main__":
    main()
