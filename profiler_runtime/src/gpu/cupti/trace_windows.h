// Sampled GPU tracing: CUPTI collects in windows instead of all the time, for launch-bound
// programs where tracing every launch costs too much. STRATA_GPU_SAMPLING=ON_MS/PERIOD_MS
// (e.g. 100/1000): API callbacks, activity records and operator recording are on for ON_MS out
// of every PERIOD_MS and CUPTI is detached in between; each detach and attach costs the program a
// few ms, so long periods are cheap and short ones are not (docs/benchmarks.md). Each window opens with
// the callbacks before the activity kinds and closes in the reverse order, so every kernel that
// is recorded has its launch's call path. Additive GPU metrics (gpu_time, sync_time, bytes,
// API time) are scaled by PERIOD_MS / ON_MS, so totals estimate the whole run; counts and
// per-launch attributes are as observed. The profile's gpu line states both.
#pragma once

#include <string>

#include "gpu/cupti/cupti_session.h"
#include "gpu/trace_window_config.h"

namespace strata::rt::gpu {

// Starts the thread that opens and closes the windows (after the session enabled everything:
// the first window is open). Returns false when the thread cannot be started (tracing stays on).
bool StartTraceWindows(CuptiSession* s);
// The factor that makes what the windows saw an estimate of the whole run. By default the
// windows' share of time, measured (nominally PERIOD_MS / ON_MS). With torch, operator calls
// counted in and out of the windows (CuptiSession::OperatorCallShare) give the windows' share of
// the program's work instead, which differs where tracing slows the program; used once the
// windows hold at least kMinTracedCalls counted calls (fewer would make the factor noisier than
// its correction), and unless the windows hold clearly more of the calls than of the time (below kMinCallsOverTime of
// the time factor): tracing does not speed a program up, so that means the calls did not follow
// the program's work evenly (a phase of CPU-only operators, say), and the time share is kept.
struct WindowScale {
  double nominal = 1;  // PERIOD_MS / ON_MS: what the values carry when added
  // The windows' share of time as a factor: the time ranges were open over the time tracing was
  // on in them, as measured (CuptiSession::TracedTimeShare); PERIOD_MS / ON_MS before any.
  double time = 1;
  CuptiSession::TracedTime traced;
  double applied = 1;  // what the written profile's values carry
  bool by_calls = false;
  double calls_factor = 0;  // all / traced counted calls (0: too few)
  CuptiSession::OperatorCalls calls;
};
constexpr uint64_t kMinTracedCalls = 100;
constexpr double kMinCallsOverTime = 0.8;
WindowScale CurrentWindowScale(CuptiSession& s);
// "sampled: windows of 10 ms every 100 ms (N windows); ... scaled x10" for the gpu line, with
// the scale read once by the caller (the same one the meta entries state).
std::string TraceWindowsStatus(CuptiSession& s, const WindowScale& w);

}  // namespace strata::rt::gpu
