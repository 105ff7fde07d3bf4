#include "gpu/activity/gpu_timeline.h"

#include <cerrno>
#include <cstdlib>


namespace strata::rt::gpu {
namespace fmt = strata::format;

static_assert(uint32_t(CopyKind::kHtoD) == uint32_t(fmt::GpuCopyKind::kHtoD) &&
                  uint32_t(CopyKind::kPtoP) == uint32_t(fmt::GpuCopyKind::kPtoP),
              "the runtime's copy directions are numbered as the format's");

bool GpuTimeline::ParseLimit(const char* text, uint64_t* limit, std::string* why) {
  if (!text || !*text) { *why = "STRATA_GPU_TIMELINE is empty"; return false; }
  char* end = nullptr;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || *text == '-' || *text == '+') {
    *why = std::string("STRATA_GPU_TIMELINE=") + text + " is not a record count (0 = off)";
    return false;
  }
  *limit = v;
  return true;
}

GpuTimeline::GpuTimeline() : limit_(kDefaultLimit) {
  if (const char* t = getenv("STRATA_GPU_TIMELINE")) {
    if (!ParseLimit(t, &limit_, &setting_issue_)) limit_ = kDefaultLimit;
  }
}

void GpuTimeline::Add(Cct::Unlocked& u, const GpuActivity& a, uint32_t node) {
  fmt::GpuActivityKind kind;
  switch (a.kind) {
    case GpuActivityKind::kKernel: kind = fmt::GpuActivityKind::kKernel; break;
    case GpuActivityKind::kMemcpy: kind = fmt::GpuActivityKind::kMemcpy; break;
    case GpuActivityKind::kMemset: kind = fmt::GpuActivityKind::kMemset; break;
    default: return;
  }
  if (kept_ >= limit_) {
    ++dropped_;
    return;
  }
  fmt::GpuActivityRecord r{};
  r.start_ns = a.start_ns;
  r.end_ns = a.end_ns;
  r.kind = uint32_t(kind);
  r.device = a.device;
  r.context = a.context;
  r.stream = a.stream;
  r.correlation_id = a.correlation_id;
  r.node = node;
  if (kind == fmt::GpuActivityKind::kKernel) {
    r.name = u.String(a.name);  // interned: one hash lookup per record
    for (int d = 0; d < 3; ++d) r.grid[d] = a.grid[d], r.block[d] = a.block[d];
  } else {
    r.bytes = a.bytes;
    // The runtime's CopyKind lists the directions in the format's order.
    if (kind == fmt::GpuActivityKind::kMemcpy) r.copy_kind = uint32_t(a.copy_kind);
  }
  u.GpuActivity(r);
  ++kept_;
}

void GpuTimeline::NoteClock(Cct::Unlocked& u, const fmt::GpuClockReading& reading) {
  if (reading.gpu_ns != 0) {
    if (!has_first_) {
      first_ = reading;
      has_first_ = true;
    }
    last_ = reading;
  }
  if (limit_ > 0 || dropped_ > 0) u.GpuTimeline(dropped_, limit_, first_, last_);
}

std::string GpuTimeline::StatusPart() const {
  if (limit_ == 0) return "timeline off (STRATA_GPU_TIMELINE=0)";
  std::string s = "timeline " + std::to_string(kept_) + " records";
  if (dropped_) s += ", " + std::to_string(dropped_) + " dropped past its limit of " + std::to_string(limit_) +
                     " (STRATA_GPU_TIMELINE)";
  if (!setting_issue_.empty()) s += " (" + setting_issue_ + ": the default limit kept)";
  return s;
}

}  // namespace strata::rt::gpu
