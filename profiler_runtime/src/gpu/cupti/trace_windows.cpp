#include "gpu/cupti/trace_windows.h"

#include <pthread.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>

#include "common/internal_thread.h"
#include "common/tls.h"
#include "gpu/cupti/cupti_session.h"
#include "interpose/pthread_create.h"

namespace strata::rt::gpu {
namespace {

void SleepMs(uint32_t ms) {
  timespec ts{time_t(ms / 1000), long(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {}
}

void* WindowLoop(void* arg) {
  t_internal = 1;
  BlockAsyncSignalsHere();
  auto* s = static_cast<CuptiSession*>(arg);
  const TraceWindowConfig c = s->options.windows;
  for (;;) {
    SleepMs(c.on_ms);
    if (!s->collecting.load()) return nullptr;
    s->SetTracing(false);
    SleepMs(c.period_ms - c.on_ms);
    if (!s->collecting.load()) return nullptr;
    s->SetTracing(true);
  }
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
           "; sampled tracing: windows of %u ms every %u ms (%llu opened%s%llu); gpu_time, sync_time, bytes and "
           "API time scaled x%.3g, counts as observed",
           c.on_ms, c.period_ms, static_cast<unsigned long long>(s.windows_opened.load()),
           s.detach_when_off.load() ? ", CUPTI detached between them: " : ", detaches: ",
           static_cast<unsigned long long>(s.detaches.load()), c.Scale());
  return buf;
}

}  // namespace strata::rt::gpu
