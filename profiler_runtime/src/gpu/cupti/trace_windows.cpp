#include "gpu/cupti/trace_windows.h"

#include <pthread.h>

#include <cstdio>

#include "common/internal_thread.h"
#include "common/tls.h"
#include "gpu/cupti/cupti_session.h"
#include "interpose/pthread_create.h"

namespace strata::rt::gpu {
namespace {

void* WindowLoop(void* arg) {
  t_internal = 1;
  BlockAsyncSignalsHere();
  static_cast<CuptiSession*>(arg)->RunWindowCycle();
  return nullptr;
}

}  // namespace

bool StartTraceWindows(CuptiSession* s) {
  // Registered after CUPTI was loaded and initialized, so it runs before CUPTI's own exit
  // handlers: no window switches CUPTI while it is being torn down.
  atexit([] {
    if (CuptiSession* session = CuptiSession::Get()) session->StopWindows();
  });
  pthread_t t;
  if (RealPthreadCreate(&t, nullptr, &WindowLoop, s) != 0) return false;
  pthread_detach(t);
  return true;
}

WindowScale CurrentWindowScale(CuptiSession& s) {
  WindowScale w;
  w.nominal = w.time = w.applied = s.options.windows.Scale();
  if (!s.options.windows.Enabled()) return w;
  w.traced = s.TracedTimeShare();
  if (w.traced.traced_ns > 0 && w.traced.in_range_ns >= w.traced.traced_ns)
    w.time = w.applied = double(w.traced.in_range_ns) / double(w.traced.traced_ns);
  w.calls = s.OperatorCallShare();
  if (w.calls.counted && w.calls.traced >= kMinTracedCalls && w.calls.all >= w.calls.traced) {
    w.calls_factor = double(w.calls.all) / double(w.calls.traced);
    if (w.calls_factor >= kMinCallsOverTime * w.time) {
      w.by_calls = true;
      w.applied = w.calls_factor;
    }
  }
  return w;
}

std::string TraceWindowsStatus(CuptiSession& s, const WindowScale& w) {
  const TraceWindowConfig& c = s.options.windows;
  if (!c.Enabled()) return "";
  char basis[256];
  if (w.by_calls)
    snprintf(basis, sizeof(basis), " (operator calls: %.3g%% of them in windows; their share of time alone: x%.3g)",
             100.0 / w.applied, w.time);
  else if (w.calls_factor > 0)
    snprintf(basis, sizeof(basis),
             " (the windows' share of time: they held %.3g%% of the operator calls, more than of the time, so the "
             "calls did not follow the work evenly)",
             100.0 / w.calls_factor);
  else if (w.calls.counted)
    snprintf(basis, sizeof(basis), " (the windows' share of time: too few operator calls counted in them, %llu)",
             static_cast<unsigned long long>(w.calls.traced));
  else
    snprintf(basis, sizeof(basis), " (the windows' share of time: traced %.4g ms of %.4g ms)",
             double(w.traced.traced_ns) / 1e6, double(w.traced.in_range_ns) / 1e6);
  char buf[512];
  snprintf(buf, sizeof(buf),
           "; sampled tracing: windows of %u ms every %u ms (%llu opened%s); gpu_time, sync_time, bytes and "
           "API time scaled x%.3g%s, counts as observed",
           c.on_ms, c.period_ms, static_cast<unsigned long long>(s.windows_opened.load()),
           s.detach_when_off.load() ? (", CUPTI detached between them: " + s.DetachCostText()).c_str() : "",
           w.applied, basis);
  return buf;
}

}  // namespace strata::rt::gpu
