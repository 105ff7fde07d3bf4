#include "gpu/cupti/capture_range.h"

#include <stdlib.h>

#include <atomic>
#include <cstring>

#include "common/log.h"
#include "gpu/cupti/cupti_session.h"

namespace strata::rt::gpu {

bool CaptureRangeRequested() {
  const char* v = getenv("STRATA_CAPTURE_RANGE");
  if (!v || !*v) return false;
  if (strcmp(v, "cudaProfilerApi") == 0) return true;
  Log("ignoring STRATA_CAPTURE_RANGE=%s (want cudaProfilerApi); collecting the whole run", v);
  return false;
}

namespace {
// Set by the interposer: the program's starts pass through it, so a detach can be undone.
std::atomic<bool> g_start_interposed{false};
}  // namespace

void EnableProfilerApiCallbacks(CuptiSession* s) {
  s->api->EnableCallback(1, s->sub(), CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
  s->api->EnableCallback(1, s->sub(), CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
  s->api->EnableCallback(1, s->sub(), CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
  s->api->EnableCallback(1, s->sub(), CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
}

void StartCaptureRange(CuptiSession* s) {
  EnableProfilerApiCallbacks(s);
  s->options.capture_range = true;
  s->SetRangeOpen(false);  // attached until the first start shows that starts can reattach
}

void BeforeProfilerStart() {
  CuptiSession* s = CuptiSession::Get();
  if (!s || !s->options.capture_range) return;
  g_start_interposed.store(true);
  if (!s->detached.load()) return;
  if (s->options.windows.Enabled() && s->detach_when_off.load()) {
    // Detached between sampled windows: the range opens here, where the cycle's entry point is
    // drawn. Attached again only when that point lies in a window (CUPTI's callback for this
    // start then finds the range open already); otherwise it stays detached until the next
    // window, and the start costs nothing.
    if (!s->capture_open.exchange(true)) {
      s->capture_ranges.fetch_add(1, std::memory_order_relaxed);
      s->SetRangeOpen(true);
    }
    return;
  }
  s->Reattach();
}

void BeforeProfilerStop() {
  // A stop that comes while a sampled-tracing window has CUPTI detached is seen only here.
  CuptiSession* s = CuptiSession::Get();
  if (s && s->options.capture_range && s->capture_open.exchange(false)) s->SetRangeOpen(false);
}

bool OnProfilerApi(CuptiSession* s, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
  bool start = (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000) ||
               (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
  bool stop = (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000) ||
              (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
  if (!start && !stop) return false;
  if (!s->options.capture_range) return true;
  // Start opens at the call's exit and stop closes at its entry, so neither call itself is
  // recorded (cudaProfilerStart calls cuProfilerStart: the second of each is a no-op).
  if (start && cb->callbackSite == CUPTI_API_EXIT && !s->capture_open.exchange(true)) {
    // Switched on before detaching is chosen: until now the session was attached with its kinds
    // and callbacks switched off, which only this switch turns on again (the detaching switch
    // leaves an attached session as it is, and the first range would record nothing).
    s->SetRangeOpen(true);
    if (!s->detach_when_off.load() && g_start_interposed.load() && DetachWanted(s->api)) s->detach_when_off.store(true);
    s->capture_ranges.fetch_add(1, std::memory_order_relaxed);
  } else if (stop && cb->callbackSite == CUPTI_API_ENTER && s->capture_open.exchange(false)) {
    s->SetRangeOpen(false);
  }
  return true;
}

std::string CaptureRangeStatus(const CuptiSession& s) {
  if (!s.options.capture_range) return "";
  return "; captured between cudaProfilerStart and cudaProfilerStop (" + std::to_string(s.capture_ranges.load()) +
         " ranges; outside them no GPU work is recorded" +
         // With sampled tracing its part of the line already says what detaching cost.
         (s.detach_when_off.load() && !s.options.windows.Enabled() ? ", CUPTI detached: " + s.DetachCostText() + ")" : ")");
}

}  // namespace strata::rt::gpu
