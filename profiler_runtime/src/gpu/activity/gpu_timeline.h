// The GPU activity timeline kept in the profile (its GPU activities section): per kernel, copy
// and set, when and on which device and stream it ran and the tree node its launch was
// attributed to. Bounded: the first `limit` records are kept (STRATA_GPU_TIMELINE=K, default
// kDefaultLimit, 0 = off), later ones only counted. Aggregator thread, under the CCT lock
// (attribution calls Add inside a drain): no lock of its own, one record appended per call.
#pragma once

#include <cstdint>
#include <string>

#include "cct/cct.h"
#include "gpu/activity/gpu_activity.h"
#include "strata/format/layout.h"

namespace strata::rt::gpu {

class GpuTimeline {
 public:
  static constexpr uint64_t kDefaultLimit = 200000;  // 80 bytes each: 16 MB at most

  // The limit from STRATA_GPU_TIMELINE (a count; for a bad value the default is kept and the
  // status part says so).
  GpuTimeline();
  explicit GpuTimeline(uint64_t limit) : limit_(limit) {}
  // Parses a STRATA_GPU_TIMELINE value; false (and *why) when it is not a count.
  static bool ParseLimit(const char* text, uint64_t* limit, std::string* why);

  // A kernel, memcpy or memset attributed at `node` (other kinds are ignored).
  void Add(Cct::Unlocked& u, const GpuActivity& a, uint32_t node);
  // At every drain: a reading of the tracer's clock and the host's (gpu_ns 0: none could be
  // taken), the first kept, the latest replacing the previous last one; then the section's
  // header is (re)written with the counts so far.
  void NoteClock(Cct::Unlocked& u, const strata::format::GpuClockReading& reading);

  uint64_t limit() const { return limit_; }
  uint64_t kept() const { return kept_; }
  uint64_t dropped() const { return dropped_; }
  // The part of meta "gpu" that says what the timeline kept ("" when off and nothing dropped).
  std::string StatusPart() const;

 private:
  uint64_t limit_;
  uint64_t kept_ = 0, dropped_ = 0;
  std::string setting_issue_;
  bool has_first_ = false;
  strata::format::GpuClockReading first_{}, last_{};
};

}  // namespace strata::rt::gpu
