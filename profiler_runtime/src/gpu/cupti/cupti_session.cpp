#include "gpu/cupti/cupti_session.h"

#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include "aggregator/aggregator.h"
#include "common/clock.h"
#include "common/log.h"
#include "gpu/api/launch_path_cache.h"
#include "gpu/cupti/activity_decode.h"
#include "gpu/cupti/api_callbacks.h"
#include "gpu/cupti/capture_range.h"
#include "gpu/cupti/pc_sampling.h"
#include "gpu/cupti/region_capture.h"
#include "gpu/cupti/trace_windows.h"
#include "gpu/snap/snap_capture.h"
#include "ops/torch_loader.h"

namespace strata::rt::gpu {
namespace {

struct CbidEntry {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId id;
};
// Generated at configure time from cupti_runtime_cbid.h / cupti_driver_cbid.h (CMake).
const CbidEntry kCallbacks[] = {
#include "strata_gpu_cbids.inc"
};

CuptiSession* g_session = nullptr;

}  // namespace

bool DetachWanted(const CuptiApi* a) {
  const char* d = getenv("STRATA_GPU_DETACH");
  return a->Finalize && !(d && strcmp(d, "0") == 0);
}

CuptiSession::CuptiSession()
    : join(this),
      pc_sampling_state(pcs::NewState()),
      region_capture_state(regions::NewState()),
      launch_path_cache_state(NewLaunchPathCacheState()) {}

CuptiSession* CuptiSession::Create(Aggregator* agg) {
  g_session = new CuptiSession();
  agg->SetDrainHook(&OnDrain);
  return g_session;
}

CuptiSession* CuptiSession::Get() { return g_session; }

void CuptiSession::Fail(const std::string& why) {
  std::lock_guard<std::mutex> lock(status_mu);
  if (!failed) {
    failed = true;
    failure = why;
  }
  phase.store(kFailed);
}

namespace {
// The launch-cost breakdown's switches (collection_options.h); a bad value keeps the default.
void ParseDiagnostics(CollectionOptions* o) {
  if (const char* w = getenv("STRATA_GPU_CALLBACK_WORK"); w && *w) {
    if (strcmp(w, "none") == 0) o->api_work = false;
    else Log("bad STRATA_GPU_CALLBACK_WORK=%s (none: API callbacks do nothing): handled as usual", w);
  }
  if (const char* b = getenv("STRATA_GPU_BUFFER_MB"); b && *b) {
    char* end = nullptr;
    long mb = strtol(b, &end, 10);
    if (!*end && mb >= 1 && mb <= 256) o->buffer_bytes = size_t(mb) << 20;
    else Log("bad STRATA_GPU_BUFFER_MB=%s (1..256): %zu MB", b, o->buffer_bytes >> 20);
  }
  if (const char* f = getenv("STRATA_GPU_FLUSH_MS"); f && *f) {
    char* end = nullptr;
    long ms = strtol(f, &end, 10);
    if (!*end && ms >= 0 && ms <= 60000) o->flush_period_ms = uint32_t(ms);
    else Log("bad STRATA_GPU_FLUSH_MS=%s (0..60000): %u ms", f, o->flush_period_ms);
  }
}
}  // namespace

void CuptiSession::Start() {
  // STRATA_GPU=0 (diagnostic, for the launch-cost breakdown): the runtime without CUPTI.
  if (const char* g = getenv("STRATA_GPU"); g && strcmp(g, "0") == 0) { Fail("switched off (STRATA_GPU=0)"); return; }
  if (const char* p = getenv("STRATA_GPU_CALLPATHS"); p && strcmp(p, "0") == 0) options.take_paths = false;
  ParseDiagnostics(&options);
  ConfigureLaunchPathCache();
  std::string window_why;
  if (!ParseTraceWindows(getenv("STRATA_GPU_SAMPLING"), &options.windows, &window_why)) Log("%s", window_why.c_str());
  auto* a = new CuptiApi();
  std::string why;
  if (!LoadCupti(a, &why)) { Fail(why); return; }
  api = a;
  a->GetVersion(&cupti_version);
  CUptiResult r = a->Subscribe(&sub_, reinterpret_cast<CUpti_CallbackFunc>(&OnApiCallback), nullptr);
  if (r != CUPTI_SUCCESS) {
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
      Fail("CUPTI already taken by another profiler (cuptiSubscribe: " + a->ResultText(r) + ")");
    else
      Fail("cuptiSubscribe failed: " + a->ResultText(r) + " (" + a->path + ")");
    return;
  }
  // STRATA_GPU_CALLBACKS (diagnostic, for measuring CUPTI's own cost): "runtime" tracks runtime
  // API calls only (direct driver launches then go unattributed), "driver" driver API calls only
  // (a runtime call is then seen as the driver call it makes), "none" only activity records,
  // "domains" every call of both APIs, enabled with one call per API (what an attach costs when
  // it does not enable the callbacks one by one; every API call then takes the callback).
  const char* which = getenv("STRATA_GPU_CALLBACKS");
  bool runtime_only = which && strcmp(which, "runtime") == 0;
  bool driver_only = which && strcmp(which, "driver") == 0;
  bool none = which && strcmp(which, "none") == 0;
  by_domain_ = which && strcmp(which, "domains") == 0;
  int enabled = 0;
  if (by_domain_) {
    for (CUpti_CallbackDomain d : {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API})
      if (a->EnableDomain(1, sub_, d) == CUPTI_SUCCESS) ++enabled;
    none = true;  // nothing to enable one by one
  }
  for (const CbidEntry& c : kCallbacks) {
    if (none || (runtime_only && c.domain == CUPTI_CB_DOMAIN_DRIVER_API) ||
        (driver_only && c.domain == CUPTI_CB_DOMAIN_RUNTIME_API))
      continue;
    if (a->EnableCallback(1, sub_, c.domain, c.id) == CUPTI_SUCCESS) {
      ++enabled;
      enabled_callbacks_.emplace_back(c.domain, c.id);
    }
  }
  if (none && !by_domain_) enabled = 1;
  a->EnableCallback(1, sub_, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  if (regions::Configure()) options.regions = true;
  if (snap::Configure()) {
    options.snap = true;
    a->EnableCallback(1, sub_, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
  }
  if (pcs::Configure()) {
    options.pc_sampling = true;
    options.pc_serialized = getenv("STRATA_PC_SAMPLING") && strcmp(getenv("STRATA_PC_SAMPLING"), "serialized") == 0;
    for (CUpti_CallbackId id : {CUPTI_CBID_RESOURCE_CONTEXT_CREATED, CUPTI_CBID_RESOURCE_MODULE_LOADED,
                                CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING})
      a->EnableCallback(1, sub_, CUPTI_CB_DOMAIN_RESOURCE, id);
  }
  if (enabled == 0) { Fail("no CUPTI API callback could be enabled (" + a->path + ")"); return; }
  r = a->ActivityRegisterCallbacks(&BufferRequested, &BufferCompleted);
  if (r != CUPTI_SUCCESS) { Fail("cuptiActivityRegisterCallbacks failed: " + a->ResultText(r)); return; }
  // STRATA_GPU_ACTIVITY: the activity kinds to record, a list of kernel, memcpy, memset, sync
  // ("none": none; subscribed, callbacks as STRATA_GPU_CALLBACKS says). Default: kernel, memcpy,
  // memset. Synchronization records (sync_time) are asked for by name: on the H100 they were
  // most of CUPTI's lasting per-launch cost (tiny kernels x1.80 with them, x1.37 without, and
  // x1.48 against x1.13 once switched off), and api_time of the synchronizing calls already
  // says how long the program waited.
  const char* kinds = getenv("STRATA_GPU_ACTIVITY");
  auto wanted = [kinds](const char* kind) {
    return kinds ? strstr(kinds, kind) != nullptr : strcmp(kind, "sync") != 0;
  };
  r = wanted("kernel") ? a->ActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) : CUPTI_SUCCESS;
  if (r != CUPTI_SUCCESS) { Fail("cannot enable kernel activity: " + a->ResultText(r)); return; }
  if (wanted("kernel")) enabled_kinds_.push_back(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  const std::pair<CUpti_ActivityKind, const char*> others[] = {
      {CUPTI_ACTIVITY_KIND_MEMCPY, "memcpy"}, {CUPTI_ACTIVITY_KIND_MEMSET, "memset"},
      {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "sync"}};
  for (auto [k, kind] : others) {
    if (!wanted(kind)) continue;
    if ((r = a->ActivityEnable(k)) != CUPTI_SUCCESS)
      Log("CUPTI activity kind %d not enabled: %s", int(k), a->ResultText(r).c_str());
    else
      enabled_kinds_.push_back(k);
  }
  if (a->ActivityFlushPeriod && options.flush_period_ms) a->ActivityFlushPeriod(options.flush_period_ms);
  collecting.store(true);
  // Windows need the driver API's own switch for activity kinds; PC sampling and regions rely on
  // seeing every launch, so they keep full tracing.
  if (options.windows.Enabled()) {
    window_rng_ = NowNs(CLOCK_MONOTONIC) | 1;  // seeded before the window thread reads it
    time_read_ns_ = NowNs(CLOCK_MONOTONIC);
    std::string no;
    if (!a->ActivityDisable) no = "cuptiActivityDisable is missing";
    else if (options.pc_sampling || options.regions) no = "PC sampling and regions need every launch";
    else if (!StartTraceWindows(this)) no = "its thread could not be started";
    // Under a capture range, detaching waits for the program's first start to show that starts
    // pass the interposer (capture_range.cpp), as without windows.
    detach_when_off.store(no.empty() && DetachWanted(a) && !CaptureRangeRequested());
    if (!no.empty()) {
      Log("sampled GPU tracing off (%s): tracing every launch", no.c_str());
      options.windows = TraceWindowConfig{};
    } else {
      windows_opened.store(1);
    }
  }
  if (CaptureRangeRequested()) {
    if (options.pc_sampling || options.regions) Log("capture range off: PC sampling and regions need every launch");
    else if (!a->ActivityDisable) Log("capture range off: cuptiActivityDisable is missing");
    else StartCaptureRange(this);
  }
}

void CuptiSession::SetRangeOpen(bool open) {
  std::lock_guard<std::mutex> lock(tracing_mu_);
  AccountLocked();
  range_open_ = open;
  if (open && options.windows.Enabled()) {
    options.windows.StartAt(NextWindowRandom(&window_rng_), &window_open_, &window_part_ms_);
    ++window_phase_;
    window_cv_.notify_all();
    // A range that starts between windows: switched off now, or detached (a start seen
    // attached, after the interposer attached again for it), or left detached.
    if (!window_open_) {
      tracing_on_ = false;
      ApplyTracingLocked(false);
      return;
    }
  }
  UpdateTracingLocked();
}

void CuptiSession::RunWindowCycle() {
  const TraceWindowConfig c = options.windows;
  std::unique_lock<std::mutex> lock(tracing_mu_);
  if (window_part_ms_ == 0) window_part_ms_ = window_open_ ? c.on_ms : c.ClosedMs(NextWindowRandom(&window_rng_));
  while (!windows_stopped_) {
    const uint64_t phase = window_phase_;
    auto restarted = [&] { return windows_stopped_ || window_phase_ != phase; };
    if (window_cv_.wait_for(lock, std::chrono::milliseconds(window_part_ms_), restarted)) continue;
    window_open_ = !window_open_;
    window_part_ms_ = window_open_ ? c.on_ms : c.ClosedMs(NextWindowRandom(&window_rng_));
    UpdateTracingLocked();
  }
}

void CuptiSession::UpdateTracingLocked() {
  const bool on = window_open_ && range_open_;
  if (windows_stopped_ || on == tracing_on_) return;
  // The time and calls so far belong to the state that ends here; a window's begin once CUPTI
  // is attached again (the attach itself counts as outside).
  AccountLocked();
  if (on) {
    ApplyTracingLocked(true);
    AccountLocked();
    tracing_on_ = true;
    return;
  }
  tracing_on_ = false;
  ApplyTracingLocked(false);
}

void CuptiSession::AccountLocked() {
  const uint64_t now = NowNs(CLOCK_MONOTONIC);
  const uint64_t elapsed = now - time_read_ns_;
  time_read_ns_ = now;
  if (range_open_) ns_in_range_ += elapsed;
  if (tracing_on_ && range_open_) ns_traced_ += elapsed;
  CountOperatorCallsLocked();
}

CuptiSession::TracedTime CuptiSession::TracedTimeShare() {
  std::lock_guard<std::mutex> lock(tracing_mu_);
  if (!options.windows.Enabled()) return {};
  if (!windows_stopped_) AccountLocked();
  return {ns_in_range_, ns_traced_};
}

void CuptiSession::CountOperatorCallsLocked() {
  uint64_t now = 0;
  double probability = 0;
  if (!ops::OperatorCallsCounted(&now, &probability)) return;
  const uint64_t calls = now - op_calls_read_;
  op_calls_read_ = now;
  if (range_open_) op_calls_in_range_ += calls;
  if (tracing_on_ && range_open_) op_calls_traced_ += calls;
}

CuptiSession::OperatorCalls CuptiSession::OperatorCallShare() {
  std::lock_guard<std::mutex> lock(tracing_mu_);
  OperatorCalls out;
  if (!options.windows.Enabled()) return out;
  if (!windows_stopped_) AccountLocked();
  uint64_t ignored = 0;
  out.counted = ops::OperatorCallsCounted(&ignored, &out.probability);
  out.all = op_calls_in_range_;
  out.traced = op_calls_traced_;
  return out;
}

void CuptiSession::ApplyTracingLocked(bool on) {
  ops::SetOperatorsEnabled(on);
  if (detach_when_off.load()) {
    if (!on) {
      if (!detached.load()) detach_requested.store(true);  // a detached session stays so
      return;
    }
    trace_epoch.fetch_add(1);
    windows_opened.fetch_add(1, std::memory_order_relaxed);
    if (detach_requested.exchange(false) || !detached.load()) {
      // Still attached: it stays so, switched on again if it was switched off before detaching
      // was chosen (a capture range's first start falling between windows).
      if (switched_off_) SwitchLocked(true);
      return;
    }
    ReattachLocked();
    return;
  }
  if (on) trace_epoch.fetch_add(1);
  SwitchLocked(on);
  if (on) windows_opened.fetch_add(1, std::memory_order_relaxed);
}

void CuptiSession::SwitchLocked(bool on) {
  if (on) {
    EnableApiCallbacksLocked(true);
    for (CUpti_ActivityKind k : enabled_kinds_) api->ActivityEnable(k);
  } else {
    for (CUpti_ActivityKind k : enabled_kinds_) api->ActivityDisable(k);
    EnableApiCallbacksLocked(false);
  }
  switched_off_ = !on;
}

void CuptiSession::DetachIfRequested(uint32_t corr) {
  if (!detach_requested.load(std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> lock(tracing_mu_);
  if (!detach_requested.exchange(false) || windows_stopped_) return;
  const uint64_t t0 = NowNs(CLOCK_MONOTONIC);
  api->ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  detach_flush_ns.fetch_add(NowNs(CLOCK_MONOTONIC) - t0, std::memory_order_relaxed);
  if (api->Finalize() == CUPTI_SUCCESS) {
    detached.store(true);
    detaches.fetch_add(1, std::memory_order_relaxed);
    // Every record of this attach was handed over by the flush; the next attach's ids start
    // past this call's id with room for other threads' calls in flight.
    corr_base.store(JoinId(corr) + (1u << 20));
  }
  detach_ns.fetch_add(NowNs(CLOCK_MONOTONIC) - t0, std::memory_order_relaxed);
}

bool CuptiSession::Reattach() {
  std::lock_guard<std::mutex> lock(tracing_mu_);
  if (windows_stopped_) return false;
  detach_requested.store(false);
  return ReattachLocked();
}

bool CuptiSession::ReattachLocked() {
  if (!detached.load()) return true;
  const uint64_t t0 = NowNs(CLOCK_MONOTONIC);
  struct Timed {
    CuptiSession* s;
    uint64_t t0;
    ~Timed() {
      s->attaches.fetch_add(1, std::memory_order_relaxed);
      s->attach_ns.fetch_add(NowNs(CLOCK_MONOTONIC) - t0, std::memory_order_relaxed);
    }
  } timed{this, t0};
  if (api->Subscribe(&sub_, reinterpret_cast<CUpti_CallbackFunc>(&OnApiCallback), nullptr) != CUPTI_SUCCESS) return false;
  const uint64_t t1 = NowNs(CLOCK_MONOTONIC);
  attach_subscribe_ns.fetch_add(t1 - t0, std::memory_order_relaxed);
  EnableApiCallbacksLocked(true);
  api->EnableCallback(1, sub_, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  attach_callbacks_ns.fetch_add(NowNs(CLOCK_MONOTONIC) - t1, std::memory_order_relaxed);
  if (options.capture_range) EnableProfilerApiCallbacks(this);
  api->ActivityRegisterCallbacks(&BufferRequested, &BufferCompleted);
  for (CUpti_ActivityKind k : enabled_kinds_) api->ActivityEnable(k);
  if (api->ActivityFlushPeriod && options.flush_period_ms) api->ActivityFlushPeriod(options.flush_period_ms);
  detached.store(false);
  switched_off_ = false;
  return true;
}

void CuptiSession::EnableApiCallbacksLocked(bool on) {
  if (by_domain_) {
    for (CUpti_CallbackDomain d : {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API})
      api->EnableDomain(on ? 1 : 0, sub_, d);
    return;
  }
  for (auto& [d, id] : enabled_callbacks_) api->EnableCallback(on ? 1 : 0, sub_, d, id);
}

std::string CuptiSession::DetachCostText() const {
  const uint64_t d = detaches.load(), a = attaches.load();
  auto each = [](uint64_t ns, uint64_t n) { return n ? double(ns) / 1e6 / double(n) : 0.0; };
  // What an attach enables before the activity kinds: the API callbacks one by one, or (the
  // STRATA_GPU_CALLBACKS=domains diagnostic) both API domains whole; then the resource callback.
  const std::string enabled = by_domain_ ? std::string("2 API domains")
                                         : std::to_string(enabled_callbacks_.size()) + " API callbacks";
  char buf[320];
  snprintf(buf, sizeof(buf),
           "%llu detaches, %.3g ms each on a program thread (flush %.3g); attached again in %.3g ms each "
           "(subscribe %.3g, %s and 1 resource callback %.3g)",
           static_cast<unsigned long long>(d), each(detach_ns.load(), d), each(detach_flush_ns.load(), d),
           each(attach_ns.load(), a), each(attach_subscribe_ns.load(), a), enabled.c_str(),
           each(attach_callbacks_ns.load(), a));
  return buf;
}

void CuptiSession::StopWindows() {
  std::lock_guard<std::mutex> lock(tracing_mu_);
  if (!windows_stopped_) AccountLocked();
  windows_stopped_ = true;
  window_cv_.notify_all();
}

void CuptiSession::FlushAll() {
  if (detached.load()) return;  // everything was flushed at the detach; a call would attach again
  api->ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

void CuptiSession::IgnoreCorrelation(uint32_t corr) {
  std::lock_guard<std::mutex> lock(ignore_mu_);
  ignored_.insert(corr);
}

bool CuptiSession::Ignored(uint32_t corr) {
  std::lock_guard<std::mutex> lock(ignore_mu_);
  return ignored_.count(corr) != 0;
}

void CUPTIAPI CuptiSession::BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  CuptiSession* s = g_session;
  uint8_t* b = nullptr;
  {
    std::lock_guard<std::mutex> lock(s->buf_mu_);
    if (!s->free_bufs_.empty()) { b = s->free_bufs_.back(); s->free_bufs_.pop_back(); }
  }
  if (!b) {
    b = static_cast<uint8_t*>(aligned_alloc(8, s->options.buffer_bytes));
    if (b) s->buffers_allocated_.fetch_add(1, std::memory_order_relaxed);
  }
  if (b) {
    // Stamped when handed out: a buffer holds the records of the attach that asked for it.
    std::lock_guard<std::mutex> lock(s->buf_mu_);
    s->buffer_corr_base_[b] = s->corr_base.load();
  }
  *buffer = b;
  *size = b ? s->options.buffer_bytes : 0;
  *max_records = 0;
}

void CUPTIAPI CuptiSession::BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  if (!buffer) return;
  CuptiSession* s = g_session;
  std::lock_guard<std::mutex> lock(s->buf_mu_);
  auto it = s->buffer_corr_base_.find(buffer);
  if (valid) s->done_bufs_.push_back({buffer, valid, it != s->buffer_corr_base_.end() ? it->second : s->corr_base.load()});
  else s->free_bufs_.push_back(buffer);
}

void CuptiSession::DrainActivities(const std::function<void(GpuActivity&)>& fn) {
  taken_bufs_.clear();
  {
    std::lock_guard<std::mutex> lock(buf_mu_);
    done_bufs_.swap(taken_bufs_);
  }
  GpuActivity ev;
  for (const DoneBuffer& b : taken_bufs_) {
    CUpti_Activity* rec = nullptr;
    while (api->ActivityGetNextRecord(b.buffer, b.valid, &rec) == CUPTI_SUCCESS) {
      ev.name.clear();
      if (!DecodeActivity(rec, &ev)) continue;
      ev.correlation_id += b.corr_base;
      fn(ev);
    }
  }
  std::lock_guard<std::mutex> lock(buf_mu_);
  for (const DoneBuffer& b : taken_bufs_) free_bufs_.push_back(b.buffer);
}

void CuptiSession::OnDrain(Aggregator* agg, Cct::Unlocked& u, bool final) {
  CuptiSession* s = g_session;
  if (!s) return;
  if (s->phase.load() == kNotInjected && !final) return;  // CUDA not initialized (yet)
  if (final) s->StopWindows();
  s->join.Drain(agg, u, final);
  if (final) s->collecting.store(false);
}

}  // namespace strata::rt::gpu
