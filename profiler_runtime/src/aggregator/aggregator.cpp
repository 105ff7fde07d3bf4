#include "aggregator/aggregator.h"
#include "ops/dispatcher_entry.h"
#include "ops/op_frames.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <cerrno>

#include "common/clock.h"
#include "common/internal_thread.h"
#include "common/tls.h"
#include "interpose/pthread_create.h"
#include "python/code_names.h"
#include "python/py_reader.h"
#include "sampler/thread_registry.h"

namespace strata::rt {

namespace {
constexpr uint64_t kDrainIntervalNs = 5000000;        // 5 ms
constexpr uint64_t kPythonRecheckNs = 200000000;      // 200 ms
}  // namespace

bool Aggregator::Start() {
  sem_init(&wake_, 0, 0);
  sem_init(&done_, 0, 0);
  pending_names_.resize(registry::kMaxSlots);
  modules_.Refresh();
  pthread_t t;
  if (RealPthreadCreate(&t, nullptr, &Aggregator::ThreadMain, this) != 0) return false;
  thread_ = static_cast<unsigned long>(t);
  pthread_detach(t);
  return true;
}

bool Aggregator::IsAggregatorThread() const {
  return thread_ != 0 && pthread_equal(pthread_self(), static_cast<pthread_t>(thread_));
}

void Aggregator::RequestFinish(const char* ended) {
  const char* expected = nullptr;
  if (finish_request_.compare_exchange_strong(expected, ended, std::memory_order_acq_rel)) sem_post(&wake_);
}

bool Aggregator::WaitFinished(uint64_t timeout_ns) const {
  timespec until;
  clock_gettime(CLOCK_REALTIME, &until);  // sem_timedwait's clock
  uint64_t ns = uint64_t(until.tv_nsec) + timeout_ns;
  until.tv_sec += time_t(ns / 1000000000ull);
  until.tv_nsec = long(ns % 1000000000ull);
  while (!Finished()) {
    if (sem_timedwait(&done_, &until) == 0) { sem_post(&done_); continue; }  // others may wait too
    if (errno != EINTR) return Finished();
  }
  return true;
}

void* Aggregator::ThreadMain(void* self) {
  t_internal = 1;
  BlockAsyncSignalsHere();  // never sampled, never the thread a SIGINT/SIGTERM lands on
  static_cast<Aggregator*>(self)->Loop();
  return nullptr;
}

void Aggregator::Checkpoint() {
  std::vector<Cct::TransientValue> transient;
  std::vector<uint32_t> roles = roles_.Peek();
  if (!roles.empty()) {
    uint32_t m = cct_->Metric("threads", "threads");
    for (uint32_t node : roles) transient.push_back(Cct::TransientValue{node, m, 1.0});
  }
  checkpoint_fn_(transient);
}

void Aggregator::Loop() {
  uint64_t last_py_check = NowNs(CLOCK_MONOTONIC);
  bool py_found = python::Detect();
  uint64_t next_checkpoint = last_py_check + checkpoint_ns_;
  for (;;) {
    const char* ended = finish_request_.load(std::memory_order_acquire);
    DrainAll(ended != nullptr);
    if (ended) {
      on_finish_(ended);
      finished_.store(true, std::memory_order_release);
      sem_post(&done_);
      return;  // the process is ending: this thread's work is done
    }
    uint64_t now = NowNs(CLOCK_MONOTONIC);
    if (checkpoint_ns_ && checkpoint_fn_ && now >= next_checkpoint) {
      Checkpoint();
      uint64_t took = NowNs(CLOCK_MONOTONIC) - now;
      now += took;
      next_checkpoint = now + std::max(checkpoint_ns_, took * kCheckpointCostFactor);
    }
    if (!py_found && now - last_py_check > kPythonRecheckNs) {
      // libpython may be dlopened late (embedding); look again from here, not the handler.
      py_found = python::Detect();
      last_py_check = now;
    }
    timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    uint64_t ns = uint64_t(until.tv_nsec) + kDrainIntervalNs;
    until.tv_sec += time_t(ns / 1000000000ull);
    until.tv_nsec = long(ns % 1000000000ull);
    while (sem_timedwait(&wake_, &until) != 0 && errno == EINTR) {}
  }
}

void Aggregator::DrainAll(bool final) {
  ThreadSlot* slots = registry::Slots();
  cct_->Locked([&](Cct&, Cct::Unlocked u) {
    // GPU launch paths name thread slots: take them before dead slots are recycled below.
    for (int i = 0; i < drain_hook_count_; ++i) drain_hooks_[i](this, u, final);
    struct EmitRoles {  // after the records below
      ThreadRoles& r; Cct::Unlocked& u; bool on;
      ~EmitRoles() { if (on) r.Emit(u); }
    } emit_roles{roles_, u, final};
    for (uint32_t i = 0, n = registry::SlotsInUse(); i < n; ++i) {
      ThreadSlot& s = slots[i];
      int state = s.state.load(std::memory_order_acquire);
      if (state == kSlotFree) continue;
      // Names first: the samples below may carry the sequence numbers of these records.
      pending_names_[i].Drain(s.code_cache, s.names);
      while (const SampleRecord* rec = s.ring.Peek()) {
        AddRecord(i, s, *rec, u);
        s.ring.Pop();
      }
      // Dead means the thread ran its exit destructor: no more records will come.
      if (state == kSlotDead) {
        roles_.Retire(i);
        pending_names_[i].Clear();
        registry::Recycle(&s);
      }
    }
  });
}

void Aggregator::AddRecord(uint32_t slot_index, const ThreadSlot& slot, const SampleRecord& rec,
                           Cct::Unlocked& u) {
  uint32_t ids[kMaxDepth];
  int n = rec.depth > kMaxDepth ? kMaxDepth : rec.depth;
  ResolveWords(slot_index, slot, rec.frames, n, ids, u);
  const uint32_t node = u.Node(ids, size_t(n));  // one walk down the tree for all of the record's values
  u.AddAt(node, metric_, double(rec.value));
  if (rec.elapsed) {
    if (elapsed_metric_ < 0) elapsed_metric_ = int64_t(u.Metric("elapsed_time", "ns"));
    u.AddAt(node, uint32_t(elapsed_metric_), double(rec.elapsed));
  }
  if (rec.own_ns) {
    if (own_metric_ < 0) own_metric_ = int64_t(u.Metric("profiler_time", "ns"));
    u.AddAt(node, uint32_t(own_metric_), double(rec.own_ns));
  }
  roles_.Note(slot_index, ids, n, double(rec.value), u);
  aggregated_.fetch_add(1, std::memory_order_relaxed);
}

void Aggregator::ResolveWords(uint32_t slot_index, const ThreadSlot& slot, const uint64_t* words,
                              int n, uint32_t* ids, Cct::Unlocked& u) {
  bool outside_operators = true;
  for (int k = 0; k < n && outside_operators; ++k)
    outside_operators = !(IsSpecialWord(words[k]) && SpecialKindOf(words[k]) == kSpecialOp);
  for (int k = 0; k < n; ++k) {
    uint64_t w = words[k];
    if (IsPendingPyWord(w)) w = InternedWord(slot_index, w);
    ids[n - 1 - k] = IsGlobalPyWord(w) ? PythonFrame(w, u)
                     : IsCutWord(w)     ? CutFrame(w, u)
                     : IsSpecialWord(w) ? CachedSpecialFrame(w, u)
                                        : NativeFrame(w, outside_operators, u);
  }
}

const std::string& Aggregator::ModulePathOf(uint64_t pc) {
  static const std::string kEmpty;
  int m = modules_.Find(pc);
  return m < 0 ? kEmpty : modules_.modules()[size_t(m)].path;
}

uint32_t Aggregator::NativeFrame(uint64_t pc, bool outside_operators, Cct::Unlocked& u) {
  auto it = native_cache_.find(pc);
  if (it == native_cache_.end()) {
    NativeIds ids{0, kNoTwin};
    int m = modules_.Find(pc);
    std::string name = modules_.SymbolName(m, pc);
    uint32_t mod = strata::format::kNone;
    uint64_t address = pc;
    if (m >= 0) {
      const ModuleInfo& mi = modules_.modules()[size_t(m)];
      mod = u.Module(mi.path, mi.build_id, mi.load_bias);
      address = pc - mi.load_bias;
    }
    ids.frame = u.Frame(Cct::FrameKind::kNative, mod, address, name, "", 0);
    if (ops::IsDispatcherEntrySymbol(name))
      ids.outside_operators = u.Frame(Cct::FrameKind::kNative, mod, address, name, "", 0,
                                      strata::format::kFrameFlagOperatorNotRecorded);
    it = native_cache_.emplace(pc, ids).first;
  }
  return outside_operators && it->second.outside_operators != kNoTwin ? it->second.outside_operators
                                                                      : it->second.frame;
}

// Operator names and code ids are interned process-wide, so a word always means the same
// frame of this aggregator's CCT.
uint32_t Aggregator::CachedSpecialFrame(uint64_t word, Cct::Unlocked& u) {
  auto it = special_frames_.find(word);
  if (it != special_frames_.end()) return it->second;
  uint32_t id = SpecialFrame(word, u);  // operators (ops/op_frames.cpp)
  special_frames_.emplace(word, id);
  return id;
}

uint32_t Aggregator::CutFrame(uint64_t word, Cct::Unlocked& u) {
  const char* name = "<stack truncated>";
  switch (CutWordReason(word)) {
    case kCutDepthLimit: name = "<stack truncated: depth limit>"; break;
    case kCutUnwindFailed: name = "<stack truncated: unwind failed>"; break;
    case kCutPcOnly: name = "<stack truncated: only the PC (loader busy)>"; break;
  }
  return u.Frame(Cct::FrameKind::kNative, strata::format::kNone, 0, name, "", 0,
                 strata::format::kFrameFlagTruncation);
}

uint64_t Aggregator::InternedWord(uint32_t slot_index, uint64_t word) {
  uint32_t seq = PendingPySeq(word), id = python::kUnknownCodeId;
  python::PendingNames& names = pending_names_[slot_index];
  if (!names.Find(seq, &id)) {
    // Published after this drain's pass over the ring: the sample's publication made it visible.
    ThreadSlot& s = registry::Slots()[slot_index];
    names.Drain(s.code_cache, s.names);
    if (!names.Find(seq, &id)) unresolved_names_.fetch_add(1, std::memory_order_relaxed);
  }
  return GlobalPyWord(id, PyWordLine(word));
}

uint32_t Aggregator::PythonFrame(uint64_t word, Cct::Unlocked& u) {
  auto it = python_frames_.find(word);
  if (it != python_frames_.end()) return it->second;
  std::string file, name;
  if (!python::CodeOf(GlobalPyCode(word), &file, &name)) file = name = "<?>";
  uint32_t id = u.Frame(Cct::FrameKind::kPython, strata::format::kNone, 0, name, file, PyWordLine(word));
  python_frames_.emplace(word, id);
  roles_.ClassifyPython(id, file, name);
  return id;
}

}  // namespace strata::rt
