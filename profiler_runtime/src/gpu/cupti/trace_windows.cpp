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

std::string TraceWindowsStatus(const CuptiSession& s) {
  const TraceWindowConfig& c = s.options.windows;
  if (!c.Enabled()) return "";
  char buf[256];
  snprintf(buf, sizeof(buf),
           "; sampled tracing: windows of %u ms every %u ms (%llu opened%s); gpu_time, sync_time, bytes and "
           "API time scaled x%.3g, counts as observed",
           c.on_ms, c.period_ms, static_cast<unsigned long long>(s.windows_opened.load()),
           s.detach_when_off.load() ? (", CUPTI detached between them: " + s.DetachCostText()).c_str() : "",
           c.Scale());
  return buf;
}

}  // namespace strata::rt::gpu
