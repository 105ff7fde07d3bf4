// Calling context tree with online metric aggregation. Thread-safe: the sampling aggregator
// feeds it, and other producers (GPU activity, operators) can call AddPath from their own
// normal threads. Its size grows with distinct paths and frames, never with run length.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "strata/format/layout.h"
#include "strata/format/writer.h"

namespace strata::rt {

class Cct {
 public:
  using FrameKind = strata::format::FrameKind;

  uint32_t Module(std::string_view path, std::string_view build_id, uint64_t load_bias);
  // Interned by all fields, flags (strata::format::kFrameFlag*) included.
  uint32_t Frame(FrameKind kind, uint32_t module, uint64_t address, std::string_view name,
                 std::string_view file, uint32_t line, uint32_t flags = 0);
  uint32_t Metric(std::string_view name, std::string_view unit);

  // Adds one value of `metric` at the node reached by `frames` (frame ids, root first).
  void AddPath(const uint32_t* frames, size_t n, uint32_t metric, double value);

  // Holds the lock across a batch of calls on the returned builder (used by the aggregator to
  // add many samples without re-locking). Do not keep the reference past `fn`.
  template <typename Fn>
  void Locked(Fn&& fn) {
    std::lock_guard<std::mutex> lock(mu_);
    fn(*this, Unlocked{this});
  }
  struct Unlocked {
    Cct* c;
    uint32_t Frame(FrameKind kind, uint32_t module, uint64_t address, std::string_view name,
                   std::string_view file, uint32_t line, uint32_t flags = 0) {
      return c->w_.Frame(kind, module, address, name, file, line, flags);
    }
    // A frame with the source lines it stands for (a fused kernel's lines: role kFused), kept
    // in the profile's frame source lines section; interned with its list.
    uint32_t Frame(FrameKind kind, std::string_view name, strata::format::SourceLinesRole role,
                   const std::vector<strata::format::SourceLine>& lines) {
      return c->w_.Frame(kind, strata::format::kNone, 0, name, "", 0, 0, role, lines);
    }
    uint32_t Module(std::string_view path, std::string_view build_id, uint64_t bias) {
      return c->w_.Module(path, build_id, bias);
    }
    void AddPath(const uint32_t* frames, size_t n, uint32_t metric, double value) {
      c->AddPathLocked(frames, n, metric, value);
    }
    // Node of `frames` (root first) / child of a node, interned; node 0 is the root.
    uint32_t Node(const uint32_t* frames, size_t n) { return c->NodeLocked(frames, n); }
    uint32_t Child(uint32_t node, uint32_t frame) { return c->w_.Child(node, frame); }
    // Adds one value of `metric` at a node from Node/Child (several metrics, one walk).
    void AddAt(uint32_t node, uint32_t metric, double value) { c->AddAtLocked(node, metric, value); }
    uint32_t Metric(std::string_view name, std::string_view unit) { return c->w_.Metric(name, unit); }
    // Bytes kept with the profile for a module (a cubin the PC samples point into).
    void Blob(uint32_t module, strata::format::BlobKind kind, std::string_view bytes) {
      c->w_.Blob(module, kind, bytes);
    }
    // A launch whose in-kernel region buffer was read back (the profile's region launches).
    void RegionLaunch(const strata::format::RegionLaunch& launch) { c->w_.AddRegionLaunch(launch); }
    // The GPU activity timeline: a record (`name` from String, `node` from Node/Child) and the
    // section's header.
    uint32_t String(std::string_view s) { return c->w_.String(s); }
    void GpuActivity(const strata::format::GpuActivityRecord& r) { c->w_.AddGpuActivity(r); }
    // The collectives section: sites and calls, updated in place as calls complete.
    uint32_t AddCollectiveSite(const strata::format::CollectiveSiteRecord& r) { return c->w_.AddCollectiveSite(r); }
    strata::format::CollectiveSiteRecord& CollectiveSite(uint32_t i) { return c->w_.collective_site(i); }
    uint32_t AddCollectiveCall(const strata::format::CollectiveCallRecord& r) { return c->w_.AddCollectiveCall(r); }
    strata::format::CollectiveCallRecord& CollectiveCall(uint32_t i) { return c->w_.collective_call(i); }
    void CollectivesLimit(uint64_t dropped, uint64_t limit) { c->w_.SetCollectivesLimit(dropped, limit); }
    // The GPU activity timeline so far (read by the collectives' device sites).
    size_t GpuActivityCount() const { return c->w_.gpu_activity_count(); }
    const strata::format::GpuActivityRecord& GpuActivityAt(size_t i) const { return c->w_.gpu_activity(i); }
    const std::string& StringAt(uint32_t i) const { return c->w_.string_at(i); }
    void GpuTimeline(uint64_t dropped, uint64_t limit, const strata::format::GpuClockReading& first,
                     const strata::format::GpuClockReading& last) {
      c->w_.SetGpuTimeline(dropped, limit, first, last);
    }
  };

  size_t NodeCount();
  // Held across fork() (pthread_atfork): a forked child starts a CCT of its own and must not
  // inherit the locks of the others mid-change.
  void LockForFork() { mu_.lock(); }
  void UnlockAfterFork() { mu_.unlock(); }
  // A value that counts in one written file only (a checkpoint's per-thread roles, which are
  // final only at the end).
  struct TransientValue { uint32_t node; uint32_t metric; double value; };
  // A metric whose every value is multiplied by `factor` in the written file (sampled GPU
  // tracing's scale, known better at the end than when the values were added).
  struct MetricFactor { std::string name; double factor; };
  // Writes the profile with these meta entries (strata::format::WriteFileAtomically). Can be
  // called any number of times (periodic checkpoints, then the end): each file holds every
  // value added so far plus `transient`. The lock is held while serializing, not while writing.
  bool Write(const std::string& path, const std::vector<std::pair<std::string, std::string>>& meta,
             std::string* error, const std::vector<TransientValue>& transient = {},
             const std::vector<MetricFactor>& factors = {});
  // For tests: exclusive stats of the node at `frames` (root first); false if absent.
  bool Stats(const uint32_t* frames, size_t n, uint32_t metric, strata::format::MetricStats* out);

 private:
  void AddPathLocked(const uint32_t* frames, size_t n, uint32_t metric, double value);
  uint32_t NodeLocked(const uint32_t* frames, size_t n);
  void AddAtLocked(uint32_t node, uint32_t metric, double value);
  std::mutex mu_;
  strata::format::ProfileWriter w_;
  // Stats live here until Write (ProfileWriter only merges); one vector slot per node.
  std::vector<std::vector<std::pair<uint32_t, strata::format::MetricStats>>> stats_;
};

}  // namespace strata::rt
