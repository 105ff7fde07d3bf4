#include "gpu/cupti/api_callbacks.h"

#include "common/clock.h"
#include "common/tls.h"
#include "gpu/api/launch_path_cache.h"
#include "gpu/cupti/capture_range.h"
#include "gpu/cupti/cupti_session.h"
#include "gpu/cupti/pc_sampling.h"
#include "gpu/cupti/region_capture.h"
#include "gpu/snap/snap_capture.h"
#include "sampler/path_collector.h"
#include "sampler/thread_registry.h"

namespace strata::rt::gpu {
namespace {

STRATA_TLS int t_api_depth = 0;
STRATA_TLS uint32_t t_outer_corr = 0;
STRATA_TLS uint32_t t_epoch = 0;  // the sampled-tracing window this thread's depth counts in
// The first tracked call nested in the outer call that expects records (cudaLaunchKernel's
// cuLaunchKernel): it rides on the outer call's queue entry.
STRATA_TLS uint32_t t_inner_corr = 0;
STRATA_TLS ApiRole t_inner_role = ApiRole::kUnknown;
// The call path timer and the callback's own time (the profile's profiler_time) cost two clock
// reads a launch: on the H200 the reads were half of the callback's time on a tiny-kernel loop.
// A thread's first kTimedAll outer calls are timed, then one in kTimeOneIn, weighted by it.
constexpr uint32_t kTimedAll = 256;
constexpr uint32_t kTimeOneIn = 16;
STRATA_TLS uint32_t t_outer_calls = 0;

// The weight of this outer call's timings: 0 when it is not timed.
uint64_t TimingWeight() {
  uint32_t n = t_outer_calls++;
  if (n < kTimedAll) return 1;
  return n % kTimeOneIn == 0 ? kTimeOneIn : 0;
}

bool IsLaunchCbid(CUpti_CallbackDomain d, CUpti_CallbackId id) {
  return d == CUPTI_CB_DOMAIN_DRIVER_API &&
         (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
          id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz);
}

ApiRole RoleOf(CuptiSession* s, CUpti_CallbackDomain d, CUpti_CallbackId id, const char* name) {
  if (id >= 4096) return ApiRoleOfName(name);
  ApiRole& r = s->api_roles[d == CUPTI_CB_DOMAIN_DRIVER_API ? 1 : 0][id];
  if (r == ApiRole::kUnknown) r = ApiRoleOfName(name);
  return r;
}

void OnResource(CuptiSession* s, CUpti_CallbackId cbid, const CUpti_ResourceData* rd) {
  const CollectionOptions& o = s->options;
  if (o.snap && cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
    const auto* m = static_cast<const CUpti_ModuleResourceData*>(rd->resourceDescriptor);
    if (m) snap::OnModuleLoaded(m->pCubin, m->cubinSize);
  }
  // Records of a context must be out before it goes (cudaDeviceReset, explicit destroy).
  if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING && s->collecting.load()) {
    if (o.pc_sampling) pcs::OnContextDestroying(s->api, rd->context);
    s->FlushAll();
  } else if (o.pc_sampling && cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
    pcs::OnContextCreated(s->api, rd->context);
  } else if (o.pc_sampling && cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
    const auto* m = static_cast<const CUpti_ModuleResourceData*>(rd->resourceDescriptor);
    if (m) pcs::OnModuleLoaded(s->api, m->pCubin, m->cubinSize);
  } else if (o.pc_sampling && cbid == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
    pcs::Collect(s->api);  // PCs of a module reloaded later would alias (CUPTI's rule)
  }
}

}  // namespace

namespace {
void HandleApiCallback(CuptiSession* s, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
}  // namespace

void CUPTIAPI OnApiCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  CuptiSession* s = CuptiSession::Get();
  HandleApiCallback(s, domain, cbid, data);
  // Collection switched off detaches at an API exit, after this call was handled (CUPTI's advice).
  if (s->detach_when_off.load(std::memory_order_relaxed) && (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API)) {
    const auto* cb = static_cast<const CUpti_CallbackData*>(data);
    if (cb->callbackSite == CUPTI_API_EXIT) s->DetachIfRequested(cb->correlationId);
  }
}

namespace {
void HandleApiCallback(CuptiSession* s, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const CollectionOptions& o = s->options;
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    OnResource(s, cbid, static_cast<const CUpti_ResourceData*>(data));
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (o.capture_range && OnProfilerApi(s, domain, cbid, cb)) return;
  if (!o.api_work) return;  // diagnostic: what CUPTI's callbacks cost with nothing done in them
  const uint32_t corr = s->JoinId(cb->correlationId);
  if (uint32_t ep = s->trace_epoch.load(std::memory_order_relaxed); ep != t_epoch) {
    t_epoch = ep;
    t_api_depth = 0;
  }
  if (o.snap && snap::InternalCall()) {  // the snap's own syncs and copies
    if (cb->callbackSite == CUPTI_API_ENTER) s->IgnoreCorrelation(corr);
    return;
  }
  if (o.regions && regions::InternalCall()) {  // the runtime's own copies: not the program's
    if (cb->callbackSite == CUPTI_API_ENTER) s->IgnoreCorrelation(corr);
    return;
  }
  if (cb->callbackSite == CUPTI_API_ENTER) {
    // Only the outer call's entry time is read back (a nested call's exit returns early).
    if (t_api_depth++ == 0) {
      t_outer_corr = corr;
      t_inner_corr = 0;
      if (cb->correlationData) *cb->correlationData = NowNs(CLOCK_MONOTONIC);
    }
    if (o.regions && IsLaunchCbid(domain, cbid)) regions::OnLaunchEnter(cbid, cb, corr, t_outer_corr);
    if (o.snap && IsLaunchCbid(domain, cbid)) snap::OnLaunchEnter(cbid, cb);
    return;
  }
  if (t_api_depth <= 0) return;  // exit of a call entered before we subscribed
  int depth = --t_api_depth;
  if (o.regions && IsLaunchCbid(domain, cbid)) regions::OnLaunchExit(cbid, cb);
  if (o.snap && IsLaunchCbid(domain, cbid)) snap::OnLaunchExit(cbid, cb);
  if (!s->collecting.load(std::memory_order_relaxed)) return;
  ApiRole role = RoleOf(s, domain, cbid, cb->functionName);
  if (depth > 0) {  // nested in a tracked call: its records belong to the outer call's path
    if (ExpectsActivity(role) && corr != t_outer_corr && !t_inner_corr) {
      t_inner_corr = corr;
      t_inner_role = role;
    } else if (ExpectsActivity(role) && corr != t_outer_corr && corr != t_inner_corr) {
      ApiEntry alias;
      alias.correlation_id = corr;
      alias.outer_correlation_id = t_outer_corr;
      alias.role = role;
      s->queue.Push(alias, nullptr, 0);
    }
    return;
  }
  // The outer call's entry time, only when its ENTER was seen in this window (a call entered
  // while sampled tracing was closed leaves no time of its own in correlationData).
  uint64_t t0 = cb->correlationData && corr == t_outer_corr ? *cb->correlationData : 0;
  uint64_t now0 = NowNs(CLOCK_MONOTONIC);
  if (t0 > now0) t0 = 0;
  uint64_t api_ns = t0 ? now0 - t0 : 0;
  const uint64_t weight = TimingWeight();
  uint64_t words[kMaxDepth];
  int n = 0;
  ThreadSlot* slot = registry::CurrentThreadSlot();
  if (o.take_paths) {
    PathScope scope;
    // The call as the path cache keys it: which API, and for a launch the kernel's name (the
    // driver's string for that function; only valid at launches).
    uint64_t call = uint64_t(domain) << 32 | cbid;
    if (role == ApiRole::kLaunch && cb->symbolName) call ^= uint64_t(reinterpret_cast<uintptr_t>(cb->symbolName)) * 0x9E3779B97F4A7C15ull;
    if (scope.ok()) n = LaunchPath(slot, call, words, kMaxDepth);
    if (weight) s->path_ns.fetch_add((NowNs(CLOCK_MONOTONIC) - now0) * weight, std::memory_order_relaxed);
    s->paths.fetch_add(1, std::memory_order_relaxed);
  }
  ApiEntry e;
  e.correlation_id = corr;
  e.slot = slot ? uint32_t(slot - registry::Slots()) : kNoSlot;
  e.slot_generation = slot ? slot->generation : 0;
  e.api_ns = api_ns;
  e.api_name = cb->functionName;
  e.role = role;
  if (t_inner_corr) {
    e.inner_correlation_id = t_inner_corr;
    e.inner_role = t_inner_role;
    t_inner_corr = 0;
  }
  s->queue.Push(e, words, n);
  // PC samples are taken where the program waits anyway (and after each serialized launch):
  // while the GPU is idle the hardware buffer cannot fill during the take. Taken every 20 ms
  // from a runtime thread instead, the H100 lost most samples to a full 64 MB buffer.
  if (o.pc_sampling && (role == ApiRole::kSync || (o.pc_serialized && (role == ApiRole::kLaunch || role == ApiRole::kGraphLaunch))))
    pcs::Collect(s->api);
  if (o.regions && role == ApiRole::kSync) regions::Harvest(false);
  if (slot && weight) slot->own_ns.fetch_add((NowNs(CLOCK_MONOTONIC) - now0) * weight, std::memory_order_relaxed);
}

}  // namespace

}  // namespace strata::rt::gpu
