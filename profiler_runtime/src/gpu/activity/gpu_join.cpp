#include "gpu/activity/gpu_join.h"

#include <cstring>

#include "aggregator/aggregator.h"
#include "common/clock.h"
#include "gpu/activity/pc_sample_frames.h"
#include "gpu/activity/region_frames.h"
#include "gpu/cupti/cupti_session.h"
#include "sampler/sample.h"
#include "sampler/thread_registry.h"

namespace strata::rt::gpu {
namespace {

// The calibration kernel the region capture launches itself.
constexpr const char kCalibrationKernelPrefix[] = "_ZN6strata7regions17CalibrationKernel";

bool IsGpuStackModule(const std::string& path) {
  size_t s = path.rfind('/');
  const char* base = path.c_str() + (s == std::string::npos ? 0 : s + 1);
  return strncmp(base, "libcuda.so", 10) == 0 || strncmp(base, "libcupti.so", 11) == 0 ||
         strncmp(base, "libcudart.so", 12) == 0 || strncmp(base, "libstrata_runtime.so", 20) == 0;
}

}  // namespace

GpuJoin::GpuJoin(CuptiSession* session) : session_(session), attribution_(&session->options) {
  placements_.push_back(&xla_);
  placements_.push_back(&inductor_);
}

void GpuJoin::Drain(Aggregator* agg, Cct::Unlocked& u, bool final) {
  attribution_.EnsureMetrics(u);
  uint64_t now = NowNs(CLOCK_MONOTONIC);
  for (Placement* p : placements_) p->BeginDrain();
  TakeApiEntries(agg, u, now);
  if (session_->api) TakeActivity(u, now, final);
  PlacementContext c{u, correlations_, attribution_};
  for (Placement* p : placements_) p->EndDrain(c, now, final);
  if (final && session_->options.pc_sampling) AddPcSampleFrames(attribution_, u);
  if (final && session_->options.regions) {
    std::string issues = AddRegionFrames(attribution_, u);
    if (!issues.empty()) region_issues_ = issues;
  }
  correlations_.Sweep(now);
  if (session_->api) attribution_.timeline.NoteClock(u, ClockReading());
}

strata::format::GpuClockReading GpuJoin::ClockReading() const {
  strata::format::GpuClockReading r{};
  uint64_t gpu = 0;
  if (!session_->api || !session_->api->GetTimestamp) return r;
  // A CUPTI call after a detach would attach it again (as FlushAll notes): no reading then.
  if (!session_->collecting.load() || session_->detached.load()) return r;
  // Host clocks on both sides of the tracer's: their midpoint is the reading's host time.
  const uint64_t unix0 = NowNs(CLOCK_REALTIME), mono0 = NowNs(CLOCK_MONOTONIC);
  if (session_->api->GetTimestamp(&gpu) != CUPTI_SUCCESS) return r;
  const uint64_t mono1 = NowNs(CLOCK_MONOTONIC), unix1 = NowNs(CLOCK_REALTIME);
  r.gpu_ns = gpu;
  r.unix_ns = unix0 + (unix1 - unix0) / 2;
  r.monotonic_ns = mono0 + (mono1 - mono0) / 2;
  return r;
}

void GpuJoin::TakeApiEntries(Aggregator* agg, Cct::Unlocked& u, uint64_t now) {
  session_->queue.TakeAll(&batch_);
  ThreadSlot* slots = registry::Slots();
  PlacementContext c{u, correlations_, attribution_};
  size_t next_word = 0;
  for (const ApiEntry& e : batch_.entries) {
    const uint64_t* words = batch_.words.data() + next_word;
    int n = int(e.path_depth);
    next_word += e.path_depth;
    if (e.outer_correlation_id) {
      correlations_.NoteAlias(e.correlation_id, e.outer_correlation_id, e.role, now);
      continue;
    }
    if (e.inner_correlation_id) correlations_.NoteAlias(e.inner_correlation_id, e.correlation_id, e.inner_role, now);
    // Leaf side: our callback, CUPTI, the driver and libcudart are the mechanism, not the caller.
    int k = 0;
    while (k < n && !IsPyFrameWord(words[k]) && IsGpuStackModule(agg->ModulePathOf(words[k]))) ++k;
    words += k;
    n -= k;
    bool slot_ok = e.slot < registry::kMaxSlots && slots[e.slot].generation == e.slot_generation;
    uint64_t filtered[kMaxDepth];
    if (!slot_ok) {  // the thread is gone, and its name ring with it: interned words stay valid
      int m = 0;
      for (int q = 0; q < n; ++q) if (!IsPendingPyWord(words[q])) filtered[m++] = words[q];
      words = filtered;
      n = m;
    }
    ids_.resize(size_t(n) + 1);
    if (n > 0) agg->ResolveWords(slot_ok ? e.slot : 0, slots[slot_ok ? e.slot : 0], words, n, ids_.data(), u);
    uint32_t node = attribution_.AddApiCall(u, ids_.data(), n, e.api_name, e.api_ns);
    if (ExpectsActivity(e.role)) {
      correlations_.NoteApiNode(e.correlation_id, node, e.role, now);
      ApiCallNode call;
      call.node = node;
      call.correlation_id = e.correlation_id;
      call.role = e.role;
      call.slot = slot_ok ? e.slot : kNoSlot;
      call.frames = ids_.data();
      call.depth = n;
      call.words = words;
      for (Placement* p : placements_)
        if (p->Active()) p->OnApiCallNode(call, c);
    }
  }
}

void GpuJoin::Deliver(Cct::Unlocked& u, const GpuActivity& a, uint32_t parent) {
  PlacementContext c{u, correlations_, attribution_};
  for (Placement* p : placements_) {
    if (!p->Active()) continue;
    Placement::Verdict v = p->Place(a, &parent, c);
    if (v == Placement::Verdict::kHeld) return;  // the placement emits it later
    if (v == Placement::Verdict::kPlaced) break;
  }
  attribution_.Emit(u, a, parent);
}

void GpuJoin::TakeActivity(Cct::Unlocked& u, uint64_t now, bool final) {
  auto unattributed = [&](GpuActivity& a) {
    if (a.kind == GpuActivityKind::kSync) return;  // a sync without its API call adds nothing
    Deliver(u, a, attribution_.UnattributedNode(u));
    ++attribution_.counts.unattributed;
  };
  // Records whose API entry was late first (their entries were just taken).
  correlations_.RetryWaiting(now, final, [&](GpuActivity& a, uint32_t node) { Deliver(u, a, node); }, unattributed);
  const CollectionOptions& o = session_->options;
  session_->DrainActivities([&](GpuActivity& ev) {
    // The runtime's own copies and calibration kernel. Calls made inside a launch's callback
    // carry that launch's correlation id (seen on the H100), so the program's kernel with the
    // same id is kept: only copies, sets and the calibration kernel are dropped.
    if (o.regions && (ev.kind == GpuActivityKind::kMemcpy || ev.kind == GpuActivityKind::kMemset ||
                      (ev.kind == GpuActivityKind::kKernel && ev.name.rfind(kCalibrationKernelPrefix, 0) == 0))) {
      if (session_->Ignored(ev.correlation_id)) return;
    }
    uint32_t node = correlations_.NodeOf(ev.correlation_id, now);
    if (node) Deliver(u, ev, node);
    else if (final) unattributed(ev);
    else correlations_.Hold(ev, now);
  });
}

std::string GpuJoin::PlacementStatus() const {
  std::string s;
  for (const Placement* p : placements_) {
    std::string part = p->StatusPart();
    if (!part.empty()) s += "; " + part;
  }
  return s;
}

}  // namespace strata::rt::gpu
