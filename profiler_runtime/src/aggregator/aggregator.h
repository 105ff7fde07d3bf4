// Background thread that drains the per-thread sample rings into the CCT every few ms, turns
// PCs into (module, address) frames and Python frame words into file/name/line frames (draining
// each thread's name ring first, python/pending_names.h), and performs the final drain + write
// when asked.
#pragma once

#include <semaphore.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "aggregator/module_map.h"
#include "aggregator/thread_roles.h"
#include "cct/cct.h"
#include "python/pending_names.h"
#include "sampler/sample.h"

namespace strata::rt {

struct ThreadSlot;

class Aggregator {
 public:
  using FinishFn = void (*)(const char* ended);

  Aggregator(Cct* cct, uint32_t metric, FinishFn on_finish)
      : cct_(cct), metric_(metric), on_finish_(on_finish) {}

  bool Start();
  // Async-signal-safe. The first request wins; the aggregator drains everything, then calls
  // on_finish(ended) on its own thread, then marks itself finished.
  void RequestFinish(const char* ended);
  // Async-signal-safe bounded wait (nanosleep polling).
  bool WaitFinished(uint64_t timeout_ns) const;
  bool Finished() const { return finished_.load(std::memory_order_acquire); }
  uint64_t SamplesAggregated() const { return aggregated_.load(std::memory_order_relaxed); }
  // Python frames whose name record could not be found (expected 0; see pending_names.h).
  uint64_t UnresolvedNames() const { return unresolved_names_.load(std::memory_order_relaxed); }
  bool IsAggregatorThread() const;

  // Maps one collected path (SampleRecord frame words, leaf first, from `slot`) to CCT frame
  // ids, root first, into `ids` (room for n). Shared by samples and GPU launch paths so every
  // word type (native, Python, operator) resolves the same way. Aggregator thread, under the
  // CCT lock (inside a drain).
  void ResolveWords(uint32_t slot_index, const ThreadSlot& slot, const uint64_t* words, int n,
                    uint32_t* ids, Cct::Unlocked& u);
  // Module path of a native PC ("" when unknown). Aggregator thread only.
  const std::string& ModulePathOf(uint64_t pc);
  // Extra producers drained under the same lock at every drain (GPU activity, collectives), in
  // the order added; `final` on the last drain before writing. Added before Start().
  using DrainHook = void (*)(Aggregator* agg, Cct::Unlocked& u, bool final);
  static constexpr int kMaxDrainHooks = 4;
  void AddDrainHook(DrainHook hook) { if (drain_hook_count_ < kMaxDrainHooks) drain_hooks_[drain_hook_count_++] = hook; }
  void SetDrainHook(DrainHook hook) { AddDrainHook(hook); }
  // Periodic checkpoint: every `period_ns` (0: never) after a drain, `fn(transient)` writes the
  // profile so far on this thread (transient: the thread roles of a final drain, for that file
  // only). Its cost is bounded: the next one waits at least kCheckpointCostFactor times as long
  // as the last write took. Set before Start().
  using CheckpointFn = void (*)(const std::vector<Cct::TransientValue>& transient);
  static constexpr uint64_t kCheckpointCostFactor = 20;
  void SetCheckpoint(uint64_t period_ns, CheckpointFn fn) { checkpoint_ns_ = period_ns; checkpoint_fn_ = fn; }

 private:
  static void* ThreadMain(void* self);
  void Loop();
  void DrainAll(bool final = false);
  void AddRecord(uint32_t slot_index, const ThreadSlot& slot, const SampleRecord& rec,
                 Cct::Unlocked& u);
  // outside_operators: the path has no recorded operator frame; a dispatcher entry point is then
  // another frame, flagged (format kFrameFlagOperatorNotRecorded).
  uint32_t NativeFrame(uint64_t pc, bool outside_operators, Cct::Unlocked& u);
  // Where a stack was cut (sample.h kSpecialCut): a kFrameFlagTruncation frame naming why.
  uint32_t CutFrame(uint64_t word, Cct::Unlocked& u);
  // Operator and process-wide Python words (sample.h IsSpecialWord), cached beside this CCT.
  uint32_t CachedSpecialFrame(uint64_t word, Cct::Unlocked& u);
  // Interned Python words (GlobalPyWord); pending ones are first looked up in their slot.
  uint32_t PythonFrame(uint64_t word, Cct::Unlocked& u);
  uint64_t InternedWord(uint32_t slot_index, uint64_t pending_word);

  Cct* cct_;
  uint32_t metric_;
  int64_t own_metric_ = -1;      // "profiler_time": the profiler's own time, carried by samples
  int64_t elapsed_metric_ = -1;  // "elapsed_time": wall time between a thread's CPU-time samples
  FinishFn on_finish_;
  std::atomic<const char*> finish_request_{nullptr};
  std::atomic<bool> finished_{false};
  // Posted by RequestFinish (sem_post is async-signal-safe) so the drain loop wakes at once
  // instead of at its next tick; `done_` is posted when the profile is written. Exit then costs
  // the write, not polling latency.
  mutable sem_t wake_;
  mutable sem_t done_;
  std::atomic<uint64_t> aggregated_{0};
  std::atomic<uint64_t> unresolved_names_{0};
  unsigned long thread_ = 0;

  void Checkpoint();

  DrainHook drain_hooks_[kMaxDrainHooks] = {};
  int drain_hook_count_ = 0;
  uint64_t checkpoint_ns_ = 0;
  CheckpointFn checkpoint_fn_ = nullptr;
  ModuleMap modules_;
  struct NativeIds {
    uint32_t frame;
    uint32_t outside_operators;  // the flagged twin of a dispatcher entry; kNoTwin for other frames
  };
  static constexpr uint32_t kNoTwin = ~0u;
  std::unordered_map<uint64_t, NativeIds> native_cache_;               // pc -> frames
  std::unordered_map<uint64_t, uint32_t> python_frames_;               // interned word -> frame
  std::unordered_map<uint64_t, uint32_t> special_frames_;              // operator / process-wide word -> frame
  std::vector<python::PendingNames> pending_names_;                     // per slot
  ThreadRoles roles_;  // what each thread was for (metric `threads`)
};

}  // namespace strata::rt
