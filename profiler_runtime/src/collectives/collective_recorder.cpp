#include "collectives/collective_recorder.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "aggregator/aggregator.h"
#include "collectives/collective_kind.h"
#include "collectives/device_sites.h"
#include "common/clock.h"
#include "python/main_thread_placement.h"
#include "sampler/path_collector.h"
#include "sampler/sample.h"
#include "sampler/thread_registry.h"

namespace strata::rt::collectives {
namespace fmt = strata::format;
namespace {

constexpr int kMaxWords = 512;

struct Event {
  bool begin = false;
  uint64_t key = 0;
  uint64_t ns = 0;          // CLOCK_MONOTONIC
  // Begin only.
  CallInfo info;
  uint64_t seq = 0;         // the framework's, or the issue order
  bool issue_order = false;
  uint32_t slot = 0xFFFFFFFFu, slot_generation = 0;
  std::vector<uint64_t> words;  // leaf first, cut at the innermost operator / Python frame
};

// Where a collective was issued, waiting for its work to begin.
struct IssuePoint {
  fmt::CollectiveOp op = fmt::CollectiveOp::kOther;
  pid_t tid = 0;
  uint64_t ns = 0;
  uint32_t slot = 0xFFFFFFFFu, slot_generation = 0;
  std::vector<uint64_t> words;
};
constexpr size_t kMaxIssues = 4096;  // issues whose work never began (coalesced calls) age out

struct SiteKey {
  uint32_t node, op, name, backend, dtype, group_name, group_size, flags;
  uint64_t elements, bytes;
  bool operator<(const SiteKey& o) const {
    return std::tie(node, op, name, backend, dtype, group_name, group_size, flags, elements, bytes) <
           std::tie(o.node, o.op, o.name, o.backend, o.dtype, o.group_name, o.group_size, o.flags, o.elements, o.bytes);
  }
};

struct Pending {
  uint32_t site;
  int64_t call;  // -1: not listed (past the limit)
  uint64_t start_ns;
  uint32_t node;
};

struct State {
  std::mutex mu;  // the queue
  std::vector<Event> queue;
  std::deque<IssuePoint> issues;  // under mu as well
  std::atomic<uint64_t> issued{0};
  // Aggregator thread (under the CCT lock) only.
  std::map<SiteKey, uint32_t> sites;
  std::unordered_multimap<uint64_t, Pending> pending;
  uint32_t metric = 0xFFFFFFFFu;
  uint64_t listed = 0, dropped = 0, completed = 0;
  uint64_t limit = 100000;
  std::vector<uint32_t> ids;
  DeviceSites device;
};

State& S() {
  static State* s = new State();  // never destroyed: the aggregator may outlive static dtors
  return *s;
}

std::atomic<uint64_t> g_calls{0}, g_sites{0}, g_in_flight{0};

void OnDrain(Aggregator* agg, Cct::Unlocked& u, bool /*final*/) {
  State& s = S();
  std::vector<Event> batch;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    batch.swap(s.queue);
  }
  s.device.Update(u);  // after the GPU drain (its hook was added first)
  if (batch.empty()) return;
  if (s.metric == 0xFFFFFFFFu) s.metric = u.Metric("collective_time", "ns");
  ThreadSlot* slots = registry::Slots();
  for (Event& e : batch) {
    if (!e.begin) {
      auto it = s.pending.find(e.key);
      if (it == s.pending.end()) continue;  // began before this process's profile (a fork)
      Pending p = it->second;
      s.pending.erase(it);
      uint64_t dur = e.ns > p.start_ns ? e.ns - p.start_ns : 0;
      fmt::CollectiveSiteRecord& site = u.CollectiveSite(p.site);
      site.min_ns = site.count == 0 || dur < site.min_ns ? dur : site.min_ns;
      site.max_ns = dur > site.max_ns ? dur : site.max_ns;
      site.total_ns += dur;
      ++site.count;
      if (p.call >= 0) u.CollectiveCall(uint32_t(p.call)).end_ns = p.start_ns + dur;
      u.AddAt(p.node, s.metric, double(dur));
      ++s.completed;
      continue;
    }
    // The issuing path: the thread's name ring resolves its pending Python words while the
    // slot still holds that thread; otherwise they are left out.
    bool slot_ok = e.slot < registry::kMaxSlots && slots[e.slot].generation == e.slot_generation;
    std::vector<uint64_t> words;
    for (uint64_t w : e.words)
      if (slot_ok || !IsPendingPyWord(w)) words.push_back(w);
    s.ids.assign(words.size() + 1, 0);
    if (!words.empty()) agg->ResolveWords(slot_ok ? e.slot : 0, slots[slot_ok ? e.slot : 0], words.data(), int(words.size()), s.ids.data(), u);
    uint32_t node = u.Node(s.ids.data(), words.size());
    SiteKey k{node,
              uint32_t(OpOfName(e.info.name)),
              u.String(e.info.name),
              u.String(e.info.backend),
              u.String(e.info.dtype),
              u.String(e.info.group_name),
              e.info.group_size,
              e.issue_order ? fmt::kCollectiveSeqIssueOrder : 0u,
              e.info.elements,
              e.info.bytes};
    auto [it, fresh] = s.sites.emplace(k, 0);
    if (fresh) {
      fmt::CollectiveSiteRecord r{};
      r.node = k.node; r.op = k.op; r.name = k.name; r.backend = k.backend; r.dtype = k.dtype;
      r.group_name = k.group_name; r.group_size = k.group_size; r.flags = k.flags;
      r.elements = k.elements; r.bytes = k.bytes;
      it->second = u.AddCollectiveSite(r);
    }
    int64_t call = -1;
    if (s.listed < s.limit) {
      call = u.AddCollectiveCall(fmt::CollectiveCallRecord{e.ns, 0, e.seq, it->second, 0});
      ++s.listed;
    } else {
      ++s.dropped;
    }
    s.pending.emplace(e.key, Pending{it->second, call, e.ns, node});
  }
  u.CollectivesLimit(s.dropped, s.limit);
  g_calls.store(s.listed + s.dropped, std::memory_order_relaxed);
  g_sites.store(s.sites.size(), std::memory_order_relaxed);
  g_in_flight.store(s.pending.size(), std::memory_order_relaxed);
}

}  // namespace

void Install(Aggregator* agg) {
  State& s = S();
  if (const char* v = getenv("STRATA_COLLECTIVE_CALLS"); v && *v) {
    char* end = nullptr;
    unsigned long long n = strtoull(v, &end, 10);
    if (end != v && *end == '\0') s.limit = n;
  }
  agg->AddDrainHook(&OnDrain);
}

void ResetInForkChild() {
  State& s = S();
  // The child has one thread: the queue's mutex may have been held by another at fork.
  new (&s.mu) std::mutex();
  s.queue.clear();
  s.issues.clear();
  s.issued.store(0);
  s.sites.clear();
  s.pending.clear();
  s.metric = 0xFFFFFFFFu;
  s.listed = s.dropped = s.completed = 0;
  s.device.Reset();
  g_calls.store(0);
  g_sites.store(0);
  g_in_flight.store(0);
}

namespace {

// The calling thread's path, cut at the innermost operator or Python frame: the backend's
// frames inside it are the mechanism, not the caller. A thread without Python (DDP's reducer on
// the autograd engine's device thread) issues under the main thread's line, as its launches do.
void TakePath(uint32_t* slot_index, uint32_t* generation, std::vector<uint64_t>* out) {
  ThreadSlot* slot = registry::CurrentThreadSlot();
  if (!slot) return;
  *slot_index = uint32_t(slot - registry::Slots());
  *generation = slot->generation;
  uint64_t words[kMaxWords];
  int n = 0;
  {
    PathScope scope;
    if (scope.ok()) n = CollectPath(nullptr, slot, 1, words, kMaxWords).depth;
  }
  n = python::PlaceUnderMainThread(words, n, kMaxWords);
  int k = 0;
  while (k < n && IsNativeWord(words[k])) ++k;
  if (k == n) k = 0;  // no Python, no operator: keep the native path
  out->assign(words + k, words + n);
}

pid_t Tid() { return pid_t(syscall(SYS_gettid)); }

}  // namespace

void Issue(const char* op_name) {
  std::string_view name(op_name);
  if (size_t colons = name.rfind("::"); colons != std::string_view::npos) name = name.substr(colons + 2);
  IssuePoint p;
  p.op = OpOfName(name);
  p.tid = Tid();
  p.ns = NowNs(CLOCK_MONOTONIC);
  TakePath(&p.slot, &p.slot_generation, &p.words);
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.issues.size() >= kMaxIssues) s.issues.pop_front();
  s.issues.push_back(std::move(p));
}

void Begin(uint64_t key, const CallInfo& info) {
  State& s = S();
  Event e;
  e.begin = true;
  e.key = key;
  e.ns = NowNs(CLOCK_MONOTONIC);
  e.info = info;
  uint64_t order = s.issued.fetch_add(1, std::memory_order_relaxed) + 1;
  e.issue_order = info.seq < 0;
  e.seq = info.seq < 0 ? order : uint64_t(info.seq);
  const fmt::CollectiveOp op = OpOfName(info.name);
  const pid_t tid = Tid();
  bool matched = false;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    auto take = [&](std::deque<IssuePoint>::iterator it) {
      e.ns = it->ns;
      e.slot = it->slot;
      e.slot_generation = it->slot_generation;
      e.words = std::move(it->words);
      s.issues.erase(it);
      matched = true;
    };
    for (auto it = s.issues.rbegin(); it != s.issues.rend() && !matched; ++it)
      if (it->tid == tid && it->op == op) take(std::next(it).base());
    for (auto it = s.issues.begin(); it != s.issues.end() && !matched; ++it)
      if (it->op == op) take(it);
  }
  if (!matched) TakePath(&e.slot, &e.slot_generation, &e.words);
  std::lock_guard<std::mutex> lock(s.mu);
  s.queue.push_back(std::move(e));
}

void End(uint64_t key) {
  State& s = S();
  Event e;
  e.key = key;
  e.ns = NowNs(CLOCK_MONOTONIC);
  std::lock_guard<std::mutex> lock(s.mu);
  s.queue.push_back(std::move(e));
}

uint64_t CallLimit() { return S().limit; }

std::string StatusLine() {
  uint64_t calls = g_calls.load(std::memory_order_relaxed);
  if (calls == 0) return "none seen";
  return "recorded: " + std::to_string(calls) + " calls at " + std::to_string(g_sites.load()) + " sites (" +
         std::to_string(g_in_flight.load()) + " in flight)";
}

}  // namespace strata::rt::collectives
