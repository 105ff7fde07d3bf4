#include "gpu_timeline.h"

#include <llvm/Demangle/Demangle.h>

#include <algorithm>
#include <cmath>

#include "../rewrite.h"
#include "strata/core/api.h"
#include "strata/format/reader.h"

namespace strata::core::detail {
namespace fmt = strata::format;

namespace {

// Tracer ns -> host unix ns: the line through the first and last readings (the two clocks may
// drift over a long run); one reading, or two at one tracer time, is an offset.
// Differences are taken in integers: a unix time in ns is beyond a double's whole-ns range.
struct ClockMap {
  bool known = false;
  uint64_t g0 = 0, u0 = 0;
  double slope = 1;
  explicit ClockMap(const fmt::GpuActivitiesHeader& h) {
    if (h.first_clock.gpu_ns == 0 || h.first_clock.unix_ns == 0) return;
    known = true;
    g0 = h.first_clock.gpu_ns;
    u0 = h.first_clock.unix_ns;
    if (h.last_clock.gpu_ns > h.first_clock.gpu_ns && h.last_clock.unix_ns > h.first_clock.unix_ns)
      slope = double(h.last_clock.unix_ns - h.first_clock.unix_ns) / double(h.last_clock.gpu_ns - h.first_clock.gpu_ns);
    // A reading pair more than 1% apart in rate is not a clock drift: keep the offset only.
    if (std::fabs(slope - 1) > 0.01) slope = 1;
  }
  uint64_t operator()(uint64_t g) const {
    if (!known) return g;
    const int64_t d = std::llround(double(int64_t(g - g0)) * slope);
    return d < 0 && uint64_t(-d) > u0 ? 0 : u0 + uint64_t(d);
  }
};

}  // namespace

const char* CopyKindName(fmt::GpuCopyKind kind) {
  switch (kind) {
    case fmt::GpuCopyKind::kHtoD: return "memcpy HtoD";
    case fmt::GpuCopyKind::kDtoH: return "memcpy DtoH";
    case fmt::GpuCopyKind::kHtoA: return "memcpy HtoA";
    case fmt::GpuCopyKind::kAtoH: return "memcpy AtoH";
    case fmt::GpuCopyKind::kAtoA: return "memcpy AtoA";
    case fmt::GpuCopyKind::kAtoD: return "memcpy AtoD";
    case fmt::GpuCopyKind::kDtoA: return "memcpy DtoA";
    case fmt::GpuCopyKind::kDtoD: return "memcpy DtoD";
    case fmt::GpuCopyKind::kHtoH: return "memcpy HtoH";
    case fmt::GpuCopyKind::kPtoP: return "memcpy PtoP";
    default: return "memcpy";
  }
}

const char* ActivityKindName(fmt::GpuActivityKind kind) {
  switch (kind) {
    case fmt::GpuActivityKind::kKernel: return "kernel";
    case fmt::GpuActivityKind::kMemcpy: return "memcpy";
    case fmt::GpuActivityKind::kMemset: return "memset";
  }
  return "?";
}

std::string SliceName(const View& view, const GpuTimelineRecord& r) {
  if (r.kind == fmt::GpuActivityKind::kMemcpy) return CopyKindName(r.copy_kind);
  if (r.kind == fmt::GpuActivityKind::kMemset) return "memset";
  if (r.node < view.landing.size() && view.landing[r.node] < view.size()) {
    const FrameInfo& f = view.frame(view.landing[r.node]);
    if (f.kind == "kernel" && !f.name.empty()) return f.name;
  }
  return r.mangled.empty() ? "<kernel>" : llvm::demangle(r.mangled);
}

std::vector<size_t> LaunchPath(const View& view, uint32_t node) {
  std::vector<size_t> chain;
  if (node >= view.landing.size() || view.landing[node] >= view.size()) return chain;
  for (int32_t n = view.parent[view.landing[node]]; n > 0; n = view.parent[size_t(n)]) chain.push_back(size_t(n));
  std::reverse(chain.begin(), chain.end());
  return chain;
}

GpuTimeline ReadGpuTimeline(const unsigned char* data, size_t size) {
  fmt::ProfileReader r;
  try {
    r = fmt::ProfileReader::Parse(data, size);
  } catch (const fmt::ReadError& e) {
    throw Error(e.what());
  }
  GpuTimeline out;
  if (r.gpu_activities_version() > fmt::kGpuActivitiesVersion)
    throw Error("the profile's GPU activities are of format version " + std::to_string(r.gpu_activities_version()) +
                ", newer than this Strata reads (" + std::to_string(fmt::kGpuActivitiesVersion) + ")");
  const fmt::GpuActivitiesHeader* h = r.gpu_timeline();
  if (!h) return out;
  out.present = true;
  out.dropped = h->dropped;
  out.limit = h->limit;
  const ClockMap to_host(*h);
  out.host_clock = to_host.known;
  for (const fmt::GpuActivityRecord& a : r.gpu_activities()) {
    if (a.kind < uint32_t(fmt::GpuActivityKind::kKernel) || a.kind > uint32_t(fmt::GpuActivityKind::kMemset)) continue;
    GpuTimelineRecord t;
    t.start_ns = to_host(a.start_ns);
    t.end_ns = std::max(t.start_ns, to_host(a.end_ns));
    t.kind = fmt::GpuActivityKind(a.kind);
    t.device = a.device;
    t.context = a.context;
    t.stream = a.stream;
    t.correlation_id = a.correlation_id;
    t.node = a.node;
    t.mangled = std::string(r.string(a.name));
    t.copy_kind = a.copy_kind <= uint32_t(fmt::GpuCopyKind::kPtoP) ? fmt::GpuCopyKind(a.copy_kind) : fmt::GpuCopyKind::kOther;
    t.bytes = a.bytes;
    for (int d = 0; d < 3; ++d) t.grid[d] = a.grid[d], t.block[d] = a.block[d];
    out.records.push_back(std::move(t));
  }
  return out;
}

GpuTimeline ReadGpuTimeline(const std::string& profile_path) {
  std::vector<unsigned char> bytes = ReadProfileBytes(profile_path);
  return ReadGpuTimeline(bytes.data(), bytes.size());
}

}  // namespace strata::core::detail
