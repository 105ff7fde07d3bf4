"""Sanity of a profile's GPU activity timeline (its GPU activities section, docs/profile-format.md),
read with the standard library only so that it runs on the GPU machine as it is:
  - every record ends at or after its start and sits on a kernel node of the tree;
  - on one (device, context, stream) records start in launch order; overlaps there are reported,
    not failed: on an H100 a stream's next kernel may start before the previous one ends
    (programmatic dependent launch: cuDNN's sm90 kernels, XLA's fusions), and a copy's record can
    span a kernel launched behind it (XLA's autotuner, pageable copies); the Perfetto export puts
    those records on an extra track of the stream;
  - mapped through the header's clock readings, the records fall inside the run's host window
    (meta start_unix_ns + duration_ns): the CPU<->GPU clock relation holds;
  - with nothing dropped, record count and summed duration equal the tree's gpu_time counts and
    sums over the kernel / memcpy / memset nodes.
usage: check_timeline.py PROFILE.strata [--json]   (exit 1 when a check fails)"""
import json
import struct
import sys
from collections import Counter, defaultdict

GPU_ACTIVITIES = 11
KINDS = {1: "kernel", 2: "memcpy", 3: "memset"}
HOST_TO_HOST = 9  # GpuCopyKind kHtoH


def sections(data):
    if data[:8] != b"STRATAPF":
        sys.exit(f"{sys.argv[1]}: not a Strata profile")
    table, count = struct.unpack_from("<QI", data, 24)
    out = {}
    for i in range(count):
        kind, rsize, off, size, n = struct.unpack_from("<IIQQQ", data, table + 32 * i)
        out[kind] = (off, size, n)
    return out


def read(path):
    data = open(path, "rb").read()
    sec = sections(data)
    off, _, _ = sec[1]
    n, = struct.unpack_from("<I", data, off)
    offs = struct.unpack_from(f"<{n + 1}I", data, off + 8)
    blob = off + 8 + 4 * (n + 1)
    strings = [data[blob + offs[i]:blob + offs[i + 1]].decode("utf-8", "replace") for i in range(n)]
    off, _, n = sec.get(2, (0, 0, 0))
    meta = {strings[k]: strings[v] for k, v in (struct.unpack_from("<II", data, off + 8 * i) for i in range(n))}
    off, _, n = sec[4]
    frames = [struct.unpack_from("<IIQIIII", data, off + 32 * i) for i in range(n)]
    off, _, n = sec[5]
    nodes = [struct.unpack_from("<II", data, off + 8 * i) for i in range(n)]
    off, _, n = sec.get(6, (0, 0, 0))
    metrics = [strings[struct.unpack_from("<I", data, off + 16 * i)[0]] for i in range(n)]
    off, _, n = sec.get(7, (0, 0, 0))
    node_metrics = [struct.unpack_from("<IIQdddd", data, off + 48 * i) for i in range(n)]
    timeline = None
    if GPU_ACTIVITIES in sec:
        off, _, n = sec[GPU_ACTIVITIES]
        h = struct.unpack_from("<IIQQQQQQQQ", data, off)
        recs = [struct.unpack_from("<QQIIIIIIIIQIIIIII", data, off + 72 + 80 * i) for i in range(n)]
        timeline = {"version": h[0], "dropped": h[2], "limit": h[3], "first": h[4:7], "last": h[7:10], "records": recs}
    return strings, meta, frames, nodes, metrics, node_metrics, timeline


def main():
    path = sys.argv[1]
    strings, meta, frames, nodes, metrics, node_metrics, t = read(path)
    failures = []
    report = {"profile": path, "gpu": meta.get("gpu", "")}
    if t is None:
        print(json.dumps(dict(report, failures=["no GPU activities section"]), indent=1))
        return 1
    recs = t["records"]
    report.update(records=len(recs), dropped=t["dropped"], limit=t["limit"])
    kinds = Counter(KINDS.get(r[2], "?") for r in recs)
    report["kinds"] = dict(kinds)
    bad_end = sum(1 for r in recs if r[1] < r[0])
    not_kernel_node = sum(1 for r in recs if r[7] == 0 or frames[nodes[r[7]][1]][0] != 5)
    if bad_end: failures.append(f"{bad_end} records end before they start")
    if not_kernel_node: failures.append(f"{not_kernel_node} records not on a kernel/memcpy/memset node")

    # Streams: in start order, each record against the previous one's end. Overlaps are counted
    # by the pair of kinds and names, and records out of launch order (correlation ids going back
    # while starts go forward) fail, host-to-host copies left out: the driver runs those on the
    # host, not in the stream's order (XLA's autotuner copies 8 bytes host to host per check).
    by_stream = defaultdict(list)
    for r in recs:
        by_stream[(r[3], r[4], r[5])].append(r)
    overlaps, worst, pairs, out_of_order = 0, 0, Counter(), 0
    for rs in by_stream.values():
        rs.sort(key=lambda r: (r[0], r[1]))
        for a, b in zip(rs, rs[1:]):
            if b[0] < a[1]:
                overlaps += 1
                worst = max(worst, a[1] - b[0])
                pairs[f"{KINDS.get(a[2], '?')} {strings[a[8]][:60]} -> {KINDS.get(b[2], '?')} {strings[b[8]][:60]}"] += 1
            host_copy = HOST_TO_HOST in (a[9], b[9])
            if a[6] and b[6] and b[6] < a[6] and b[0] > a[0] and not host_copy:
                out_of_order += 1
    report["streams"] = {f"device {d} context {c} stream {s}": len(v) for (d, c, s), v in sorted(by_stream.items())}
    report["stream_overlaps"] = overlaps
    report["worst_overlap_ns"] = worst
    report["overlap_pairs"] = pairs.most_common(8)
    report["out_of_launch_order"] = out_of_order
    if out_of_order: failures.append(f"{out_of_order} records start after one launched later on their stream")

    # Clock relation: the records mapped to host time lie in the run's window.
    g0, u0, _ = t["first"]
    g1, u1, _ = t["last"]
    report["clock"] = {"first_gpu_minus_unix_ns": g0 - u0, "last_gpu_minus_unix_ns": g1 - u1,
                       "span_s": (u1 - u0) / 1e9}
    if g0 and recs:
        slope = (u1 - u0) / (g1 - g0) if g1 > g0 else 1.0
        to_unix = lambda g: u0 + (g - g0) * slope
        lo = min(to_unix(r[0]) for r in recs)
        hi = max(to_unix(r[1]) for r in recs)
        start = int(meta.get("start_unix_ns", "0"))
        end = start + int(meta.get("duration_ns", "0"))
        report["window"] = {"records_from_start_s": (lo - start) / 1e9, "records_until_end_s": (end - hi) / 1e9}
        slack = 50e6  # the run's start and end are read a little apart from the program's own
        if lo < start - slack or hi > end + slack:
            failures.append(f"records at host times {lo:.0f}..{hi:.0f} outside the run {start}..{end}")
    elif recs:
        failures.append("no clock reading in the header")

    # Round trip against the tree: gpu_time count and sum over the nodes the records sit on.
    if "gpu_time" in metrics:
        m = metrics.index("gpu_time")
        tree_count = sum(nm[2] for nm in node_metrics if nm[1] == m and frames[nodes[nm[0]][1]][0] == 5)
        tree_sum = sum(nm[3] for nm in node_metrics if nm[1] == m and frames[nodes[nm[0]][1]][0] == 5)
        rec_sum = sum(r[1] - r[0] for r in recs)
        report["tree_gpu_time"] = {"count": tree_count, "sum_ns": tree_sum}
        report["timeline_gpu_time"] = {"count": len(recs), "sum_ns": rec_sum}
        if t["dropped"] == 0 and "sampled" not in meta.get("gpu", ""):
            if tree_count != len(recs) or abs(tree_sum - rec_sum) > 1e-6 * max(1.0, tree_sum):
                failures.append(f"timeline {len(recs)} records / {rec_sum} ns, tree {tree_count} / {tree_sum:.0f} ns")
        elif t["dropped"] and tree_count != len(recs) + t["dropped"]:
            failures.append(f"kept {len(recs)} + dropped {t['dropped']} != tree's {tree_count}")
    top = Counter()
    for r in recs:
        if r[2] == 1:
            top[strings[r[8]][:80]] += r[1] - r[0]
    report["top_kernels_ns"] = top.most_common(5)
    report["failures"] = failures
    print(json.dumps(report, indent=1))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
