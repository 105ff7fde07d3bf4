// The CUPTI session: one object for everything GPU collection keeps for the process (the only
// process-wide pointer is Get()'s). Start() loads libcupti, subscribes, enables the API and
// resource callbacks and the activity kinds; activity buffers come from a recycled pool and are
// handed over as pointers, never parsed on CUPTI's thread; the aggregator thread decodes them.
//  - target threads: API callbacks (cupti/api_callbacks.cpp) queue typed entries (queue)
//  - CUPTI's worker: completed buffers (flushed every 100 ms)
//  - the aggregator thread: the drain hook joins both into the tree (activity/gpu_join.cpp)
#pragma once

#include <cupti.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "gpu/activity/gpu_activity.h"
#include "gpu/activity/gpu_join.h"
#include "gpu/api/api_entry_queue.h"
#include "gpu/api/api_role.h"
#include "gpu/api/launch_path_cache.h"
#include "gpu/collection_options.h"
#include "gpu/cupti/cupti_loader.h"
#include "gpu/cupti/pc_sampling.h"
#include "gpu/cupti/region_capture.h"

namespace strata::rt {
class Aggregator;
}

namespace strata::rt::gpu {

class CuptiSession {
 public:
  enum Phase : int { kNotInjected = 0, kCollecting = 1, kFailed = 2, kClosed = 4 };

  // Runtime constructor (active process only), once; hooks the join into the aggregator.
  static CuptiSession* Create(Aggregator* agg);
  // Null in processes that do not profile.
  static CuptiSession* Get();

  // InitializeInjection, after injection.cpp's checks (phase already kCollecting): loads
  // CUPTI, subscribes, enables; any failure ends in Fail(why).
  void Start();
  void Fail(const std::string& why);
  // Collection is on while two gates are open: the sampled-tracing window (always open without
  // windows) and the capture range (always open without one). A range that opens enters the
  // window cycle at a point drawn uniformly over one period (TraceWindowConfig::StartAt): always
  // opening with a window kept the first ON_MS of every range, which weighed a range's first
  // steps (a prompt's prefill) and overstated the scaled totals.
  void SetRangeOpen(bool open);
  // The window thread's loop (cupti/trace_windows.cpp): the window open for on_ms, closed for
  // the rest of the period on average (TraceWindowConfig::ClosedMs), until StopWindows().
  void RunWindowCycle();
  // No window opens or closes after this (the end of the run: CUPTI may be going away).
  void StopWindows();
  // Sampled tracing's share of the work: operator calls counted (by the operator plugin, one in
  // 1/probability) while a capture range was open, and those of them inside open windows. Inside
  // a window the program runs at full tracing's speed, so where tracing slows it the windows hold
  // less than their share of time of its work; all / traced is then the factor that scales what
  // the windows saw to the whole run.
  struct OperatorCalls {
    bool counted = false;  // no counter: no torch, or no windows
    uint64_t all = 0, traced = 0;
    double probability = 0;
  };
  OperatorCalls OperatorCallShare();
  // Sampled tracing's share of time as it happened: how long a capture range was open (the whole
  // run without one) and how long of that tracing was on, from each attach's end to the close.
  // The nominal ON/PERIOD differs from it by each attach's own time, by the drawn lengths of the
  // closed parts, and most in short runs, where a range holds a window or none.
  struct TracedTime {
    uint64_t in_range_ns = 0, traced_ns = 0;
  };
  TracedTime TracedTimeShare();
  // Forces CUPTI to hand over every buffered activity record.
  void FlushAll();
  // Aggregator thread: each record of the completed buffers, decoded (kinds the collector does
  // not attribute skipped); the buffers then go back to the pool.
  void DrainActivities(const std::function<void(GpuActivity&)>& fn);
  // The runtime's own driver calls (region buffer copies): their correlation ids.
  void IgnoreCorrelation(uint32_t corr);
  bool Ignored(uint32_t corr);

  std::atomic<int> phase{kNotInjected};
  std::atomic<bool> collecting{false};
  std::mutex status_mu;
  bool failed = false;   // under status_mu: the first failure's reason is kept
  std::string failure;   // why GPU data is missing (phase kFailed)
  std::string taken_by;  // CUDA_INJECTION64_PATH held by another tool
  CuptiApi* api = nullptr;
  uint32_t cupti_version = 0;
  CollectionOptions options;
  ApiRole api_roles[2][4096] = {};  // [runtime, driver][cbid]: kUnknown = not classified yet
  ApiEntryQueue queue;
  std::atomic<uint64_t> path_ns{0}, paths{0};  // cost of taking launch paths (status line)
  // Bumped when a sampled-tracing window opens: a thread whose API call was entered in an
  // earlier window (its exit callback lost while closed) starts its nesting count afresh.
  std::atomic<uint32_t> trace_epoch{0};
  std::atomic<uint64_t> windows_opened{0};
  // When collection is switched off (between sampled-tracing windows, outside capture ranges)
  // CUPTI is detached (cuptiFinalize) unless STRATA_GPU_DETACH=0: on the H100, switching
  // callbacks and activity kinds off left most of CUPTI's per-launch cost in place (x1.45 on
  // tiny kernels; after cuptiFinalize x1.02). The switch asks; the next API exit callback
  // detaches (where CUPTI allows it); the window thread or the program's next
  // cudaProfilerStart attaches again.
  // Atomic: a capture range turns it on at the program's first start, while other threads'
  // API callbacks read it.
  std::atomic<bool> detach_when_off{false};
  std::atomic<bool> detach_requested{false};
  std::atomic<bool> detached{false};
  std::atomic<uint64_t> detaches{0};
  // Time spent detaching (the flush and cuptiFinalize, on the program thread whose API exit
  // found the request) and attaching again (on the thread that opened collection).
  std::atomic<uint64_t> detach_ns{0}, attaches{0}, attach_ns{0};
  // Their parts, to find what makes a window expensive: the flush and cuptiFinalize of a detach;
  // the subscribe, the API callbacks enabled one by one, and the rest (activity kinds, buffers)
  // of an attach.
  std::atomic<uint64_t> detach_flush_ns{0}, attach_subscribe_ns{0}, attach_callbacks_ns{0};
  // "85 detaches, 1.2 ms each on a program thread; attached again in 2.1 ms each" (status lines).
  std::string DetachCostText() const;
  // From the API exit callback (the call's own correlation id): detaches when asked.
  void DetachIfRequested(uint32_t corr);
  // CUPTI numbers correlation ids from 1 again after each attach; the join needs them unique,
  // so ids of each attach are shifted past the previous attach's (API entries and activity
  // records alike). Wraps after 2^32, when the oldest ids left the correlation table long ago.
  std::atomic<uint32_t> corr_base{0};
  uint32_t JoinId(uint32_t raw) const { return raw + corr_base.load(std::memory_order_relaxed); }
  // Attaches again after a detach (subscribes, enables what enabled_callbacks_ / enabled_kinds_
  // list and the capture range's own callbacks); true when attached afterwards.
  bool Reattach();
  // Capture range (cupti/capture_range.h): inside a cudaProfilerStart..Stop range; ranges opened.
  std::atomic<bool> capture_open{false};
  std::atomic<uint64_t> capture_ranges{0};
  CUpti_SubscriberHandle sub() const { return sub_; }
  bool Records(CUpti_ActivityKind k) const {
    for (CUpti_ActivityKind e : enabled_kinds_)
      if (e == k) return true;
    return false;
  }
  GpuJoin join;
  pcs::State* pc_sampling_state;          // cupti/pc_sampling.cpp
  regions::State* region_capture_state;   // cupti/region_capture.cpp
  LaunchPathCacheState* launch_path_cache_state;  // api/launch_path_cache.cpp

 private:
  CuptiSession();
  static void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records);
  static void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid);
  static void OnDrain(Aggregator* agg, Cct::Unlocked& u, bool final);
  std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> enabled_callbacks_;
  std::vector<CUpti_ActivityKind> enabled_kinds_;
  bool ReattachLocked();  // under tracing_mu_
  // Switches callbacks, activity kinds and operators on (callbacks first) or off (the reverse),
  // or asks for a detach / attaches again; under tracing_mu_, on a change of the gates' AND.
  void ApplyTracingLocked(bool on);
  // Callbacks and activity kinds on or off, the session staying attached; under tracing_mu_.
  void SwitchLocked(bool on);
  // The API callbacks on or off: those of enabled_callbacks_ one by one, or (by_domain_) both
  // API domains whole.
  void EnableApiCallbacksLocked(bool on);
  bool by_domain_ = false;  // STRATA_GPU_CALLBACKS=domains
  void UpdateTracingLocked();
  std::mutex tracing_mu_;
  std::condition_variable window_cv_;  // with tracing_mu_: a range opened, or windows stopped
  // Under tracing_mu_:
  bool windows_stopped_ = false;
  bool window_open_ = true;
  bool range_open_ = true;
  bool tracing_on_ = true;  // what was last applied (Start() leaves everything on)
  uint64_t window_phase_ = 0;  // bumped by a range opening: the window cycle starts again
  bool switched_off_ = false;  // attached with callbacks and kinds switched off (SwitchLocked)
  uint32_t window_part_ms_ = 0;  // how long the cycle's current part (open or closed) lasts
  uint64_t window_rng_ = 1;      // NextWindowRandom's state
  // At each gate change (a window or a range opening or closing): the time and the operator
  // calls since the last change added by the gates' state until this one.
  void AccountLocked();
  uint64_t time_read_ns_ = 0;
  uint64_t ns_in_range_ = 0, ns_traced_ = 0;
  // Operator calls (OperatorCallShare): the counter's value at the last gate change, and the
  // calls since then added by the gates' state until this change.
  void CountOperatorCallsLocked();
  uint64_t op_calls_read_ = 0;
  uint64_t op_calls_in_range_ = 0, op_calls_traced_ = 0;

  CUpti_SubscriberHandle sub_ = nullptr;
  std::mutex buf_mu_;
  std::vector<uint8_t*> free_bufs_;
  struct DoneBuffer {
    uint8_t* buffer;
    size_t valid;
    uint32_t corr_base;  // the attach whose records it holds
  };
  std::vector<DoneBuffer> done_bufs_;
  std::vector<DoneBuffer> taken_bufs_;  // aggregator thread
  std::unordered_map<uint8_t*, uint32_t> buffer_corr_base_;  // under buf_mu_: corr_base when handed out
  std::atomic<uint64_t> buffers_allocated_{0};
  std::mutex ignore_mu_;
  std::unordered_set<uint32_t> ignored_;
};

// Whether switching collection off detaches CUPTI: libcupti has cuptiFinalize and
// STRATA_GPU_DETACH is not 0.
bool DetachWanted(const CuptiApi* a);

}  // namespace strata::rt::gpu
