// Perfetto's TrackEvent model: a TrackDescriptor per track (uuid, parent, name), then slices as
// TYPE_SLICE_BEGIN / TYPE_SLICE_END pairs on a track, nested by time. The GPU timeline's slices
// repeat their names and call paths thousands of times: those strings are interned (one
// InternedData packet ahead of the events, referred to by iid), the call path written as
// DebugAnnotation dict_entries / array_values, whose names and string values can be interned. Field numbers (perfetto_trace.h) are those of
// perfetto/protos/perfetto/trace/{trace,trace_packet}.proto and track_event/*.proto (the subset
// the tests decode with is test/interop/perfetto_trace.proto).
#include "perfetto_export.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "perfetto_trace.h"
#include "protobuf_writer.h"

namespace strata::core::detail {
namespace {

namespace rg = regions;

// An array of strings: one entry per frame of a call path, outermost first.
ProtobufWriter StringArrayAnnotation(const std::string& name, const std::vector<std::string>& values) {
  ProtobufWriter nested;
  nested.Varint(kNestedType, kNestedTypeArray);
  for (const std::string& v : values) {
    ProtobufWriter item;
    item.Bytes(kNestedString, v);
    nested.Message(kNestedArray, item);
  }
  ProtobufWriter a = Annotation(name);
  a.Message(kAnnotationNested, nested);
  return a;
}

ProtobufWriter NestedInt(int64_t v) {
  ProtobufWriter n;
  n.Int64(kNestedInt, v);
  return n;
}
// An array of three integers (a launch's grid or block, x y z).
ProtobufWriter DimsAnnotation(const std::string& name, const uint32_t dims[3]) {
  ProtobufWriter nested;
  nested.Varint(kNestedType, kNestedTypeArray);
  for (int d = 0; d < 3; ++d) nested.Message(kNestedArray, NestedInt(dims[d]));
  ProtobufWriter a = Annotation(name);
  a.Message(kAnnotationNested, nested);
  return a;
}
std::string FrameText(const FrameInfo& f) {
  std::string out = f.name.empty() ? "[" + f.kind + "]" : f.name;
  if (!f.file.empty()) out += "  " + f.file + (f.line ? ":" + std::to_string(f.line) : "");
  return out;
}

// Call paths (outermost first, the root left out) of the kernel nodes named `kernel`.
std::vector<std::vector<std::string>> KernelPaths(const View& view, const std::string& kernel) {
  std::vector<std::vector<std::string>> out;
  for (size_t i = 1; i < view.size(); ++i) {
    const FrameInfo& f = view.frame(i);
    if (f.kind != "kernel" || f.name != kernel) continue;
    std::vector<std::string> path;
    for (size_t n = i; n > 0; n = size_t(view.parent[n])) path.insert(path.begin(), FrameText(view.frame(n)));
    out.push_back(std::move(path));
  }
  return out;
}

std::string LaneName(const rg::LaneMeta& m) {
  std::ostringstream o;
  o << "block " << m.block_linear << " (" << m.block[0] << "," << m.block[1] << "," << m.block[2] << ") "
    << (m.grouping == 0 ? "warp group " : m.grouping == 1 ? "warp " : "lane ") << m.group << " (SM " << m.smid
    << ")";
  return o.str();
}

// Replay can put a start a few ns before the origin (the earliest raw lane start).
uint64_t Ns(uint64_t origin, double offset_ns) {
  return uint64_t(std::max<int64_t>(0, int64_t(origin) + std::llround(offset_ns)));
}

struct Slice {
  const rg::Interval* interval;
  uint64_t begin, end;
};

// Splits a lane's slices into tracks on which they nest (Perfetto nests a track's slices by
// time): the first track takes every slice that nests with those before it, a slice that
// overlaps without nesting (an async region) goes on the next track that fits.
std::vector<std::vector<Slice>> NestingTracks(std::vector<Slice> slices) {
  std::stable_sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
  });
  std::vector<std::vector<Slice>> tracks;
  std::vector<std::vector<uint64_t>> open_ends;  // per track, the ends of the slices still open
  for (const Slice& s : slices) {
    size_t t = 0;
    for (; t < tracks.size(); ++t) {
      auto& open = open_ends[t];
      while (!open.empty() && open.back() <= s.begin) open.pop_back();
      if (open.empty() || s.end <= open.back()) break;
    }
    if (t == tracks.size()) {
      tracks.emplace_back();
      open_ends.emplace_back();
    }
    tracks[t].push_back(s);
    open_ends[t].push_back(s.end);
  }
  return tracks;
}

// Begin and end events of one track's nested slices, in time order: at one instant, ends before
// begins, inner ends before outer ones, outer begins before inner ones.
void EmitNested(TraceOut& out, uint64_t track, const std::vector<Slice>& slices, const rg::RegionNames& names) {
  struct Edge {
    uint64_t ts;
    bool end;
    size_t order;  // begin: position in start order (outer first); end: reversed for inner first
    const Slice* slice;
  };
  std::vector<Edge> edges;
  for (size_t k = 0; k < slices.size(); ++k) {
    edges.push_back({slices[k].begin, false, k, &slices[k]});
    edges.push_back({slices[k].end, true, slices.size() - k, &slices[k]});
  }
  std::stable_sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    if (a.ts != b.ts) return a.ts < b.ts;
    if (a.end != b.end) return a.end;
    return a.order < b.order;
  });
  for (const Edge& e : edges) {
    ProtobufWriter event;
    if (!e.end) {
      const rg::Interval& iv = *e.slice->interval;
      const rg::RegionName n = rg::NameOf(names, iv.region);
      std::string name = n.name;
      if (iv.iteration >= 0) name += " #" + std::to_string(iv.iteration);
      event.Bytes(kEventName, name);
      event.Message(kEventAnnotations, UintAnnotation("region", iv.region));
      if (!n.file.empty()) {
        event.Message(kEventAnnotations, StringAnnotation("file", n.file));
        event.Message(kEventAnnotations, UintAnnotation("line", n.line));
      }
      if (iv.iteration >= 0) event.Message(kEventAnnotations, IntAnnotation("iteration", iv.iteration));
      event.Message(kEventAnnotations, DoubleAnnotation("raw_ns", iv.raw_duration_ns()));
      if (iv.wait_ns >= 0) event.Message(kEventAnnotations, DoubleAnnotation("wait_ns", iv.wait_ns));
      if (iv.unmatched) event.Message(kEventAnnotations, StringAnnotation("unmatched", "start without its end"));
    }
    out.Event(e.ts, e.end ? kSliceEnd : kSliceBegin, track, event);
  }
}

// Track uuids of the GPU activity timeline: above the region launches' ((n + 1) << 32 upward).
constexpr uint64_t kGpuTrackBase = uint64_t(1) << 62;

// The GPU activity timeline: a track per device, a child per (context, stream) with its kernels,
// copies and sets as slices (a stream runs its work in order; records that overlap anyway go on
// an extra track of that stream, so that no slice is cut). Each slice's arguments: kind,
// correlation id, device, context, stream, grid and block (kernels), bytes (copies, sets), the
// mangled name, and call_path: the launch's frames, outermost first, each a dictionary.
void EmitGpuActivities(TraceOut& out, const View& view, const GpuTimeline& timeline) {
  using fmt_kind = strata::format::GpuActivityKind;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<const GpuTimelineRecord*>> streams;
  std::map<uint32_t, std::vector<uint32_t>> contexts;  // per device, its contexts
  for (const GpuTimelineRecord& r : timeline.records) {
    streams[{r.device, r.context, r.stream}].push_back(&r);
    auto& c = contexts[r.device];
    if (std::find(c.begin(), c.end(), r.context) == c.end()) c.push_back(r.context);
  }
  // call_path: an array of frames, each a dictionary (function, kind, file, line) whose names and
  // strings are interned; per stored node, its bytes are built once.
  std::unordered_map<uint32_t, std::string> path_of;
  auto call_path = [&](uint32_t node) -> const std::string& {
    auto it = path_of.find(node);
    if (it != path_of.end()) return it->second;
    auto string_entry = [&](const char* key, const std::string& value) {
      ProtobufWriter e;
      e.Varint(kAnnotationNameIid, out.AnnotationNameIid(key));
      e.Varint(kAnnotationStringIid, out.AnnotationStringIid(value));
      return e;
    };
    ProtobufWriter a;
    a.Varint(kAnnotationNameIid, out.AnnotationNameIid("call_path"));
    for (size_t n : LaunchPath(view, node)) {
      const FrameInfo& f = view.frame(n);
      ProtobufWriter frame;
      frame.Message(kAnnotationDictEntries, string_entry("function", f.name.empty() ? "[" + f.kind + "]" : f.name));
      frame.Message(kAnnotationDictEntries, string_entry("kind", f.kind));
      if (!f.file.empty()) frame.Message(kAnnotationDictEntries, string_entry("file", f.file));
      if (f.line) {
        ProtobufWriter line;
        line.Varint(kAnnotationNameIid, out.AnnotationNameIid("line"));
        line.Int64(kAnnotationInt, f.line);
        frame.Message(kAnnotationDictEntries, line);
      }
      a.Message(kAnnotationArrayValues, frame);
    }
    return path_of.emplace(node, a.bytes()).first->second;
  };

  uint64_t next = kGpuTrackBase;
  uint32_t device_track_of = UINT32_MAX;
  uint64_t device_track = 0;
  for (auto& [key, records] : streams) {
    const auto [device, context, stream] = key;
    if (device != device_track_of) {
      device_track_of = device;
      device_track = next++;
      out.Track(device_track, 0, "GPU " + std::to_string(device));
    }
    std::string stream_name = "stream " + std::to_string(stream);
    if (contexts[device].size() > 1) stream_name += " (context " + std::to_string(context) + ")";
    std::stable_sort(records.begin(), records.end(), [](const GpuTimelineRecord* a, const GpuTimelineRecord* b) {
      return a->start_ns != b->start_ns ? a->start_ns < b->start_ns : a->end_ns < b->end_ns;
    });
    std::vector<std::pair<uint64_t, uint64_t>> lanes;  // (track, end of its last slice)
    for (const GpuTimelineRecord* r : records) {
      size_t lane = 0;
      while (lane < lanes.size() && lanes[lane].second > r->start_ns) ++lane;
      if (lane == lanes.size()) {
        const uint64_t track = next++;
        out.Track(track, device_track, lane == 0 ? stream_name : stream_name + ", overlapping " + std::to_string(lane));
        lanes.emplace_back(track, 0);
      }
      lanes[lane].second = r->end_ns;
      ProtobufWriter begin;
      begin.Varint(kEventNameIid, out.EventNameIid(SliceName(view, *r)));
      begin.Message(kEventAnnotations, StringAnnotation("kind", ActivityKindName(r->kind)));
      begin.Message(kEventAnnotations, UintAnnotation("correlation_id", r->correlation_id));
      begin.Message(kEventAnnotations, UintAnnotation("device", r->device));
      begin.Message(kEventAnnotations, UintAnnotation("context", r->context));
      begin.Message(kEventAnnotations, UintAnnotation("stream", r->stream));
      if (r->kind == fmt_kind::kKernel) {
        begin.Message(kEventAnnotations, DimsAnnotation("grid", r->grid));
        begin.Message(kEventAnnotations, DimsAnnotation("block", r->block));
        if (!r->mangled.empty()) {
          ProtobufWriter mangled;
          mangled.Varint(kAnnotationNameIid, out.AnnotationNameIid("mangled"));
          mangled.Varint(kAnnotationStringIid, out.AnnotationStringIid(r->mangled));
          begin.Message(kEventAnnotations, mangled);
        }
      } else {
        begin.Message(kEventAnnotations, UintAnnotation("bytes", r->bytes));
      }
      begin.Bytes(kEventAnnotations, call_path(r->node));
      out.Event(r->start_ns, kSliceBegin, lanes[lane].first, begin);
      out.Event(r->end_ns, kSliceEnd, lanes[lane].first, ProtobufWriter());
    }
  }
}

}  // namespace

std::string ExportPerfetto(const Profile& profile, const rg::ProfileRegions& launches, const GpuTimeline& timeline) {
  if (launches.launches.empty() && timeline.records.empty())
    throw Error(std::string("perfetto: this profile has no GPU activity timeline and no in-kernel region launches, ") +
                (timeline.present
                     ? "its timeline is empty (STRATA_GPU_TIMELINE=0 or no kernel ran)"
                     : "the parts of a Strata profile with times (its calling context tree keeps GPU time per call "
                       "path, not when or on which stream each kernel ran): record it again with this Strata") +
                ", or export the tree as pprof or speedscope");

  ViewOptions options;
  options.expand = false;
  options.filter = FrameFilter::kAll;
  options.all_metrics = false;  // then View::landing maps the timeline's stored nodes to view nodes
  const View view = profile.BuildView(ViewKind::kTopDown, options);

  TraceOut out;
  EmitGpuActivities(out, view, timeline);
  for (size_t n = 0; n < launches.launches.size(); ++n) {
    const rg::CapturedLaunch& launch = launches.launches[n];
    const rg::Trace trace = rg::DecodeLaunch(launches, n);
    rg::RegionNames names = launch.names;
    for (const auto& [id, name] : launches.names) names.emplace(id, name);

    // Track uuids: launch n+1 in the high half, its lanes' tracks below it.
    const uint64_t launch_track = uint64_t(n + 1) << 32;
    out.Track(launch_track, 0, "launch " + std::to_string(n) + ": " + launch.kernel);
    uint64_t next_track = launch_track + 1;

    // The launch as one slice over its lanes, with the kernel's call paths as arguments.
    if (!trace.lanes.empty()) {
      double first = trace.lanes.front().start_ns, last = trace.lanes.front().end_ns;
      for (const rg::Lane& l : trace.lanes) {
        first = std::min(first, l.start_ns);
        last = std::max(last, l.end_ns);
      }
      ProtobufWriter begin;
      begin.Bytes(kEventName, launch.kernel);
      begin.Message(kEventAnnotations, UintAnnotation("correlation_id", launch.correlation_id));
      begin.Message(kEventAnnotations, UintAnnotation("launch", n));
      const auto paths = KernelPaths(view, launch.kernel);
      for (size_t p = 0; p < paths.size(); ++p)
        begin.Message(kEventAnnotations,
                      StringArrayAnnotation(paths.size() == 1 ? "call_path" : "call_path_" + std::to_string(p + 1), paths[p]));
      out.Event(Ns(trace.origin_ns, first), kSliceBegin, launch_track, begin);
      out.Event(Ns(trace.origin_ns, std::max(first, last)), kSliceEnd, launch_track, ProtobufWriter());
    }

    std::vector<std::vector<Slice>> by_lane(trace.lanes.size());
    for (const rg::Interval& iv : trace.intervals) {
      const uint64_t begin = Ns(trace.origin_ns, iv.start_ns);
      by_lane[iv.lane].push_back({&iv, begin, std::max(begin, Ns(trace.origin_ns, iv.end_ns))});
    }
    for (size_t lane = 0; lane < trace.lanes.size(); ++lane) {
      const std::string lane_name = LaneName(trace.lanes[lane].meta);
      const auto tracks = NestingTracks(std::move(by_lane[lane]));
      const uint64_t lane_track = next_track++;
      out.Track(lane_track, launch_track, lane_name);
      for (size_t t = 0; t < tracks.size(); ++t) {
        uint64_t track = lane_track;
        if (t > 0) {
          track = next_track++;
          out.Track(track, launch_track, lane_name + ", overlapping regions " + std::to_string(t));
        }
        EmitNested(out, track, tracks[t], names);
      }
    }
  }
  return out.Finish();
}

}  // namespace strata::core::detail
