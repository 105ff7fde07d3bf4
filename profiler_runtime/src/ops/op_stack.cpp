#include "ops/op_stack.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <stdlib.h>

#include <atomic>
#include <cstring>

#include "common/clock.h"
#include "common/tls.h"
#include "ops/op_abi.h"
#include "ops/op_registry.h"
#include "python/py_reader.h"
#include "runtime_state.h"
#include "sampler/merge.h"
#include "sampler/path_collector.h"
#include "sampler/path_difference.h"
#include "sampler/thread_registry.h"
#include "unwind/native_unwind.h"
#include "unwind/return_slots.h"

namespace strata::rt::ops {
namespace {

STRATA_TLS OpStack* t_ops = nullptr;
std::atomic<bool> g_want_entry{false};
// Whether entry traces pay for themselves now (SetEntryTracesWorthwhile); on until told.
std::atomic<bool> g_entry_worthwhile{true};

// One stack per thread slot, mapped on first use (pages are touched only by threads that run
// operators).
std::atomic<OpStack*> g_pool{nullptr};

OpStack* Pool() {
  OpStack* p = g_pool.load(std::memory_order_acquire);
  if (p) return p;
  void* m = mmap(nullptr, sizeof(OpStack) * registry::kMaxSlots, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  OpStack* expected = nullptr;
  if (!g_pool.compare_exchange_strong(expected, static_cast<OpStack*>(m), std::memory_order_acq_rel)) {
    munmap(m, sizeof(OpStack) * registry::kMaxSlots);
    return expected;
  }
  return static_cast<OpStack*>(m);
}

void ForgetContexts(OpStack* s);

OpStack* OwnStack() {
  if (t_ops) return t_ops;
  ThreadSlot* slot = registry::CurrentThreadSlot();
  OpStack* pool = slot ? Pool() : nullptr;
  if (!pool) return nullptr;
  OpStack* s = &pool[slot - registry::Slots()];
  // The slot may have served a thread that exited: start clean.
  s->depth = 0;
  s->adopt_at = -1;
  s->prefix_n = 0;
  s->ctx_n = -1;
  s->entry_n = 0;
  s->tid = pid_t(syscall(SYS_gettid));
  s->slot = slot;
  ForgetContexts(s);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t_ops = s;
  return s;
}

inline void Fence() { std::atomic_signal_fence(std::memory_order_seq_cst); }

// ---- forward paths by (forward thread, sequence number) ---------------------------------------
// Bounded, direct-mapped: consecutive sequence numbers of one thread take consecutive entries, so
// the last kFwdEntries forward operators with autograd nodes are kept. The last operator seen
// with a sequence number wins: the one that created the node (outer composite operators that
// peeked the same number come before it).
constexpr uint32_t kFwdEntries = 8192;  // power of two
constexpr int kFwdWords = 160;

struct FwdEntry {
  std::atomic<uint32_t> lock;
  uint32_t n;
  uint64_t thread;
  int64_t seq;
  uint64_t words[kFwdWords];
};

std::atomic<FwdEntry*> g_fwd{nullptr};

FwdEntry* FwdTable() {
  FwdEntry* t = g_fwd.load(std::memory_order_acquire);
  if (t) return t;
  void* m = mmap(nullptr, sizeof(FwdEntry) * kFwdEntries, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  FwdEntry* expected = nullptr;
  if (!g_fwd.compare_exchange_strong(expected, static_cast<FwdEntry*>(m), std::memory_order_acq_rel)) {
    munmap(m, sizeof(FwdEntry) * kFwdEntries);
    return expected;
  }
  return static_cast<FwdEntry*>(m);
}

FwdEntry& FwdSlot(FwdEntry* t, uint64_t thread, int64_t seq) {
  return t[(uint64_t(seq) + thread * 0x9E3779B97F4A7C15ull) & (kFwdEntries - 1)];
}

struct SpinGuard {
  explicit SpinGuard(std::atomic<uint32_t>& l) : l_(l) {
    while (l_.exchange(1, std::memory_order_acquire)) {}
  }
  ~SpinGuard() { l_.store(0, std::memory_order_release); }
  std::atomic<uint32_t>& l_;
};

// ---- contexts ---------------------------------------------------------------------------------
// Writes this op's forward path: the operator chain from entry d outwards (leaf first), then
// the adopted prefix (inside a backward operator) or this thread's context.
int ForwardPath(OpStack* s, int d, uint64_t* out, int max) {
  int lowest = s->adopt_at >= 0 && s->adopt_at <= d ? s->adopt_at : 0;
  int n = 0;
  for (int i = d; i >= lowest && n < max; --i) out[n++] = s->e[i].word;
  if (s->adopt_at >= 0 && s->adopt_at <= d) {
    for (int i = 0; i < s->prefix_n && n < max; ++i) out[n++] = s->prefix[i];
  } else {
    for (int i = 0; i < s->ctx_n && n < max; ++i) out[n++] = s->ctx[i];
  }
  return n;
}

void RecordForward(OpStack* s, int d, uint64_t thread, int64_t seq) {
  if (!(s->adopt_at >= 0 && s->adopt_at <= d)) {
    PathScope scope;
    if (!scope.ok() || !EnsureContext(s)) return;
  }
  FwdEntry* t = FwdTable();
  if (!t) return;
  uint64_t words[kFwdWords];
  int n = ForwardPath(s, d, words, kFwdWords);
  FwdEntry& f = FwdSlot(t, thread, seq);
  {
    SpinGuard g(f.lock);
    memcpy(f.words, words, sizeof(uint64_t) * size_t(n));
    f.n = uint32_t(n);
    f.thread = thread;
    f.seq = seq;
  }
  GetCounters().forward_recorded.fetch_add(1, std::memory_order_relaxed);
}

void LinkBackward(OpStack* s, int d, uint64_t thread, int64_t seq) {
  if (s->adopt_at >= 0) return;  // already inside a linked backward: the outer link stands
  FwdEntry* t = FwdTable();
  bool found = false;
  if (t) {
    FwdEntry& f = FwdSlot(t, thread, seq);
    SpinGuard g(f.lock);
    if (f.thread == thread && f.seq == seq && f.n > 0) {
      int n = int(f.n) < kMaxPrefix ? int(f.n) : kMaxPrefix;
      memcpy(s->prefix, f.words, sizeof(uint64_t) * size_t(n));
      s->prefix_n = n;
      found = true;
    }
  }
  if (!found) {
    GetCounters().backward_unlinked.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  // The engine's "evaluate_function: X" scope around the node takes the link too, so its own
  // work after the node returns (gradient accumulation) stays with the forward operator.
  int at = d;
  if (d > 0 && (s->e[d - 1].flags & STRATA_OP_ENGINE_WRAPPER)) at = d - 1;
  Fence();
  s->adopt_at = at;
  Fence();
  GetCounters().backward_linked.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

const OpStack* CurrentStack() { return t_ops; }

bool EnsureContext(const OpStack* s) {
  return s == t_ops && s ? EnsureContext(const_cast<OpStack*>(s)) : false;
}

namespace {
// ctx from the innermost Python frame rootward; -2 in ctx_n = no Python (not yet resolved).
bool PythonContextUntimed(OpStack* s);

bool PythonContext(OpStack* s) {
  if (s->ctx_n >= 0) return true;
  if (s->ctx_n == -2) return false;
  if (!s->slot || s->depth <= 0) return false;
  uint64_t t0 = NowNs(CLOCK_MONOTONIC);
  bool ok = PythonContextUntimed(s);
  Counters& c = GetCounters();
  uint64_t spent = NowNs(CLOCK_MONOTONIC) - t0;
  c.contexts.fetch_add(1, std::memory_order_relaxed);
  c.context_ns.fetch_add(spent, std::memory_order_relaxed);
  s->slot->own_ns.fetch_add(spent, std::memory_order_relaxed);
  return ok;
}

// ---- contexts by call path --------------------------------------------------------------------
// A training step takes a context at every outermost forward operator (its backward needs the
// forward's path): a native trace, a Python walk with line tables and a merge, 7-8 us each on a
// 2-core VM. The same Python frames (frame, code, instruction: python::StackKey) with the
// operator's scope at the same stack address are the same Python call path, but not always the
// same native frames between them: a torch.compile'd model reached one operator from the same
// Python frames through two call sites of a binding. So a hit compares the context's native
// return addresses in place, where they lie on the stack (unwind/return_slots.h). Where they lie
// takes a walk with SPs (~10x a context), so it is found at an entry's first hit, not at its fill:
// contexts that never repeat never pay for it. Per thread slot, mapped on first use; a new
// thread on the slot starts it empty (the located slots were another stack's).
// STRATA_OP_CONTEXT_CACHE=0: off; =verify: every hit is also taken in full and compared (meta
// counts the differences).
// Set-associative and 2,048 entries: a ResNet-50 step has ~180 outermost forward operators, a
// transformer several hundred, each its own key every step; a direct-mapped table of 256 evicted
// many before they came round again (ResNet-50 on the H200: one context in five taken afresh).
constexpr uint32_t kCtxSets = 512;  // power of two
constexpr uint32_t kCtxWays = 4;
constexpr int kCtxNative = 160;     // native frames of a context checked at a hit

struct CtxEntry {
  int n;
  int nnative;  // the native frames from the innermost eval frame rootward, as merged
  enum : int { kUnlocated, kLocated, kUncheckable } state;
  uint64_t slots_low;
  uint64_t words[kMaxCtx];
  // (stack address, return address) pairs; before they are located, the addresses are 0.
  uint64_t slots[2 * kCtxNative];
};

// The keys apart from the entries, so that a lookup reads one cache line of a set's keys.
struct CtxCacheTable {
  uint64_t keys[kCtxSets][kCtxWays];  // 0: empty
  uint8_t next_victim[kCtxSets];
  CtxEntry entries[kCtxSets][kCtxWays];
};

enum class CtxCacheMode { kOn, kOff, kVerify };

CtxCacheMode ContextCacheMode() {
  static const CtxCacheMode mode = [] {
    const char* v = getenv("STRATA_OP_CONTEXT_CACHE");
    if (!v) return CtxCacheMode::kOn;
    if (strcmp(v, "0") == 0) return CtxCacheMode::kOff;
    return strcmp(v, "verify") == 0 ? CtxCacheMode::kVerify : CtxCacheMode::kOn;
  }();
  return mode;
}

CtxCacheTable* ContextCache(OpStack* s) {
  if (s->ctx_cache || ContextCacheMode() == CtxCacheMode::kOff) return static_cast<CtxCacheTable*>(s->ctx_cache);
  // Untouched pages cost nothing: a program with few call paths keeps a few entries resident.
  void* m = mmap(nullptr, sizeof(CtxCacheTable), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (m != MAP_FAILED) s->ctx_cache = m;
  return static_cast<CtxCacheTable*>(s->ctx_cache);
}

void ForgetContexts(OpStack* s) {
  auto* cache = static_cast<CtxCacheTable*>(s->ctx_cache);
  if (cache) memset(cache->keys, 0, sizeof(cache->keys));
}

// A key's set: its lowest bit is always 1 (0 marks an empty way), so the bits above it.
uint32_t ContextSet(uint64_t key) { return uint32_t(key >> 1) & (kCtxSets - 1); }

// The way of the set that holds this key (0: an empty way), or -1.
int FindWay(const CtxCacheTable* cache, uint32_t set, uint64_t key) {
  for (uint32_t w = 0; w < kCtxWays; ++w)
    if (cache->keys[set][w] == key) return int(w);
  return -1;
}

uint64_t ContextKey(const python::Runtime* py, const OpStack* s) {
  uint64_t k = 0;
  if (!python::StackKey(py, &k)) return 0;
  k = (k ^ s->e[0].sp) * 0x9E3779B97F4A7C15ull;
  return (k ^ (k >> 31)) | 1;
}

int InnermostEval(const python::Runtime* py, const uint64_t* pcs, int n) {
  int i = 0;
  while (i < n && !(pcs[i] >= py->eval_begin && pcs[i] < py->eval_end)) ++i;
  return i;
}

// An entry's first hit: a walk with SPs, whose frames from the innermost eval frame rootward must
// be the ones the entry was merged from; their return addresses' stack words become its checks.
// False when the frames differ (the context is taken afresh).
bool LocateContext(const python::Runtime* py, const OpStack* s, CtxEntry* c) {
  uint64_t pcs[kMaxDepth], sps[kMaxDepth];
  bool failed = false;
  int n = unwind::FromCurrentContext(pcs, sps, kMaxDepth, 0, &failed);
  int i = InnermostEval(py, pcs, n);
  if (n - i != c->nnative) return false;
  for (int k = 0; k < c->nnative; ++k)
    if (pcs[i + k] + 1 != c->slots[2 * k + 1]) return false;
  // Only callers of the operator's scope (a hit compares words above it), checkable in place.
  if (i >= n || sps[i] <= s->e[0].sp || !unwind::ReturnSlots(pcs + i, sps + i, n - i, c->slots, &c->slots_low)) {
    c->state = CtxEntry::kUncheckable;
    GetCounters().context_uncheckable.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  c->state = CtxEntry::kLocated;
  return true;
}

// The cached context, if its native frames stand on the stack now.
CtxEntry* ContextHit(const python::Runtime* py, const OpStack* s, CtxCacheTable* cache, uint64_t key) {
  const uint32_t set = ContextSet(key);
  const int way = FindWay(cache, set, key);
  if (way < 0) return nullptr;
  CtxEntry* c = &cache->entries[set][way];
  if (c->state == CtxEntry::kUncheckable) return nullptr;
  bool holds = c->state == CtxEntry::kLocated
                   // The key holds the operator's scope address: the checked frames, above it, are live.
                   ? c->slots_low > s->e[0].sp && unwind::ReturnSlotsHold(c->slots, c->nnative)
                   : LocateContext(py, s, c);
  if (holds) return c;
  if (c->state != CtxEntry::kUncheckable) GetCounters().context_checks_failed.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

// The key's own way when it is there (its frames changed, or it cannot be checked), else an
// empty way, else the set's ways in turn.
void FillContext(const python::Runtime* py, const OpStack* s, const uint64_t* pcs, int npcs, CtxCacheTable* cache,
                 uint64_t key) {
  const uint32_t set = ContextSet(key);
  int way = FindWay(cache, set, key);
  if (way >= 0 && cache->entries[set][way].state == CtxEntry::kUncheckable) return;  // stays a miss, unwalked
  if (way < 0) way = FindWay(cache, set, 0);
  if (way < 0) way = cache->next_victim[set]++ % kCtxWays;
  CtxEntry* c = &cache->entries[set][way];
  int i = InnermostEval(py, pcs, npcs);
  cache->keys[set][way] = 0;
  if (npcs - i > kCtxNative) return;
  c->nnative = npcs - i;
  for (int k = 0; k < c->nnative; ++k) {
    c->slots[2 * k] = 0;
    c->slots[2 * k + 1] = pcs[i + k] + 1;
  }
  c->state = CtxEntry::kUnlocated;
  c->n = s->ctx_n;
  memcpy(c->words, s->ctx, sizeof(uint64_t) * size_t(s->ctx_n));
  cache->keys[set][way] = key;
}

bool PythonContextUntimed(OpStack* s) {
  uint64_t buf[kMaxDepth];
  uint64_t words[kMaxDepth];
  bool failed = false;
  const python::Runtime* py = python::Current();
  CtxCacheTable* cache = py ? ContextCache(s) : nullptr;
  const uint64_t key = cache ? ContextKey(py, s) : 0;
  CtxEntry* hit = key ? ContextHit(py, s, cache, key) : nullptr;
  if (hit && ContextCacheMode() == CtxCacheMode::kOn) {
    memcpy(s->ctx, hit->words, sizeof(uint64_t) * size_t(hit->n));
    Fence();  // the handler reads ctx once ctx_n counts it
    s->ctx_n = hit->n;
    GetCounters().context_hits.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  python::PyStack ps;
  // Normal code: the walk interns names itself, so its words are meaningful process-wide.
  if (!py || !python::WalkCurrentThread(py, &s->slot->code_cache, nullptr, &ps) || ps.nwords <= 0) {
    s->ctx_n = -2;
    return false;
  }
  // The entry trace, when there is one, already holds the native frames above the operator.
  const uint64_t* pcs = s->entry;
  int npcs = s->entry_n;
  if (npcs <= 0) {
    npcs = unwind::FromCurrentContext(buf, nullptr, kMaxDepth, 0, &failed);
    pcs = buf;
  }
  // The innermost Python frame called the outermost operator: the glue below it is dropped
  // in every path (merge.h), so the context starts there.
  int m = MergeStacks(pcs, npcs, py->eval_begin, py->eval_end, &ps, !failed && npcs < kMaxDepth, words, kMaxDepth);
  int p = 0, n = 0;
  while (p < m && !IsPyFrameWord(words[p])) ++p;
  for (int i = p; i < m && n < kMaxCtx; ++i) s->ctx[n++] = words[i];
  Fence();
  s->ctx_n = n;
  if (hit) {  // verify: the cached context against the one just taken
    GetCounters().context_hits.fetch_add(1, std::memory_order_relaxed);
    if (hit->n != n || memcmp(hit->words, s->ctx, sizeof(uint64_t) * size_t(n)) != 0) {
      GetCounters().context_mismatches.fetch_add(1, std::memory_order_relaxed);
      static std::atomic<int> logged{0};
      LogPathDifference("operator context verify", hit->words, hit->n, s->ctx, n, &logged, 8);
    }
  }
  if (key && !hit) FillContext(py, s, pcs, npcs, cache, key);
  return true;
}
}  // namespace

bool EnsurePythonContext(const OpStack* s) {
  return s == t_ops && s ? PythonContext(const_cast<OpStack*>(s)) : false;
}

// Names whose outermost operator launched GPU work; ids past the map always take entry traces.
constexpr uint32_t kLaunchNames = 1u << 16;
std::atomic<uint64_t> g_launch_names[kLaunchNames / 64];

bool LaunchedBefore(uint32_t name) {
  return name >= kLaunchNames ||
         (g_launch_names[name / 64].load(std::memory_order_relaxed) >> (name % 64) & 1u);
}

// Off unless STRATA_OP_ENTRY_TRACES=1. They were meant to make path-cache misses inside operators
// cheap, but on the H200 ResNet-50 training ran x1.10-1.24 with them and x1.007 without, with the
// same paths (GPT-2 decoding and the tiny-kernel loop no slower without); since the launch path
// cache's cheap key, misses are too rare to pay for them. Without them a miss walks with SPs
// down to the operator.
void WantEntryTraces(const OpStack* s) {
  static const bool allowed = [] {
    const char* v = getenv("STRATA_OP_ENTRY_TRACES");
    return v && v[0] == '1' && v[1] == '\0';
  }();
  if (!allowed || !s || s->depth <= 0) return;
  g_want_entry.store(true, std::memory_order_relaxed);
  uint32_t name = s->e[0].name;
  if (name < kLaunchNames) g_launch_names[name / 64].fetch_or(uint64_t(1) << (name % 64), std::memory_order_relaxed);
}

void SetEntryTracesWorthwhile(bool worthwhile) {
  if (g_entry_worthwhile.load(std::memory_order_relaxed) != worthwhile)
    g_entry_worthwhile.store(worthwhile, std::memory_order_relaxed);
}

bool EnsureContext(OpStack* s) {
  if (PythonContext(s)) return true;
  if (!s->slot || s->depth <= 0) return false;
  // No Python on this thread: the native callers of the outermost operator (a walk with SPs).
  uint64_t pcs[kMaxDepth], sps[kMaxDepth];
  bool failed = false;
  int n = 0;
  if (s->e[0].sp) {
    int npcs = unwind::FromCurrentContext(pcs, sps, kMaxDepth, 0, &failed);
    int i = 0;
    while (i < npcs && sps[i] <= s->e[0].sp) ++i;
    for (; i < npcs && n < kMaxCtx; ++i) s->ctx[n++] = pcs[i];
  }
  Fence();
  s->ctx_n = n;
  return true;
}

namespace {
// The pid this thread last saw itself in. getpid() is a system call (1.2 us on a sandboxed VM)
// and Active() runs at every operator entry: a thread asks once, and again only after a fork
// changed the profiled pid (the forking thread's copy then holds the parent's).
STRATA_TLS pid_t t_pid = 0;
}  // namespace

bool Active() {
  if (!state::Active() || t_internal) return false;
  const pid_t want = state::ProfiledPid();
  if (t_pid == want) return true;
  t_pid = getpid();
  return t_pid == want;
}

uint32_t Intern(const char* name, size_t len) {
  return name ? InternName(std::string_view(name, len)) : 0;
}

namespace {
std::atomic<bool> g_paused{false};
}  // namespace

void SetPaused(bool paused) { g_paused.store(paused, std::memory_order_relaxed); }

void Push(uint32_t name_id, uint64_t sp, uint64_t key, int64_t seq, uint64_t thread, uint32_t flags) {
  if (g_paused.load(std::memory_order_relaxed) || !Active() || t_in_handler) return;
  OpStack* s = OwnStack();
  if (!s) return;
  GetCounters().pushes.fetch_add(1, std::memory_order_relaxed);
  int d = s->depth;
  if (d >= kMaxOps) {
    GetCounters().too_deep.fetch_add(1, std::memory_order_relaxed);
    s->depth = d + 1;
    return;
  }
  OpEntry& e = s->e[d];
  e.word = OpFrameWord(name_id);
  e.name = name_id;
  e.sp = sp;
  e.key = key;
  e.flags = flags & ~kForwardStored;
  e.seq = seq;
  e.thread = thread;
  if (d == 0) {
    s->ctx_n = -1;
    s->entry_n = 0;
    if (g_want_entry.load(std::memory_order_relaxed) && g_entry_worthwhile.load(std::memory_order_relaxed) &&
        LaunchedBefore(name_id)) {
      bool failed = false;
      uint64_t t0 = NowNs(CLOCK_MONOTONIC);
      s->entry_n = unwind::FromCurrentContext(s->entry, nullptr, kMaxEntry, 0, &failed);
      Counters& c = GetCounters();
      uint64_t spent = NowNs(CLOCK_MONOTONIC) - t0;
      c.entry_traces.fetch_add(1, std::memory_order_relaxed);
      c.entry_ns.fetch_add(spent, std::memory_order_relaxed);
      if (s->slot) s->slot->own_ns.fetch_add(spent, std::memory_order_relaxed);
    }
  }
  Fence();
  s->depth = d + 1;
  Fence();
  if (seq < 0) return;
  if (flags & STRATA_OP_BACKWARD) LinkBackward(s, d, thread, seq);
  else if (!(flags & STRATA_OP_FORWARD_AT_POP)) RecordForward(s, d, thread, seq);
}

namespace {
// The forward path of entry nd, when it created the autograd node its sequence number names
// (most forward ops in grad mode create none: views, shape work, ops on tensors that need no
// gradient). An enclosing op that peeked the same number did not create that node.
void StoreForwardAtPop(OpStack* s, int nd, int64_t seq_after) {
  OpEntry& e = s->e[nd];
  if (!(e.flags & STRATA_OP_FORWARD_AT_POP) || (e.flags & kForwardStored) || e.seq < 0 || seq_after <= e.seq) return;
  RecordForward(s, nd, e.thread, e.seq);
  for (int i = nd - 1; i >= 0 && s->e[i].seq == e.seq; --i) s->e[i].flags |= kForwardStored;
}

void PopAt(uint64_t key, bool forward, int64_t seq_after) {
  OpStack* s = t_ops;
  if (!s || s->depth <= 0) return;
  int d = s->depth, nd;
  if (d > kMaxOps) {
    nd = d - 1;
  } else {
    nd = d - 1;
    while (nd >= 0 && s->e[nd].key != key) --nd;
    if (nd < 0) return;  // not ours (pushed while inactive, or already popped)
    if (forward && nd == d - 1 && !t_in_handler) StoreForwardAtPop(s, nd, seq_after);
  }
  if (s->adopt_at >= nd) {
    s->adopt_at = -1;
    Fence();
  }
  s->depth = nd;
  Fence();
  if (nd == 0) s->ctx_n = -1;
}
}  // namespace

void Pop(uint64_t key) { PopAt(key, false, -1); }

void PopForward(uint64_t key, int64_t seq_after) { PopAt(key, Active(), seq_after); }

}  // namespace strata::rt::ops

// ---- exported C ABI ---------------------------------------------------------------------------
extern "C" {
__attribute__((visibility("default"))) uint32_t strata_op_intern(const char* name, size_t len) {
  return strata::rt::ops::Intern(name, len);
}
__attribute__((visibility("default"))) void strata_op_push(uint32_t name_id, uint64_t sp, uint64_t key,
                                                           int64_t seq, uint64_t thread, uint32_t flags) {
  strata::rt::ops::Push(name_id, sp, key, seq, thread, flags);
}
__attribute__((visibility("default"))) void strata_op_pop(uint64_t key) { strata::rt::ops::Pop(key); }
__attribute__((visibility("default"))) void strata_op_pop_forward(uint64_t key, int64_t seq_after) {
  strata::rt::ops::PopForward(key, seq_after);
}
__attribute__((visibility("default"))) int strata_op_active(void) { return strata::rt::ops::Active() ? 1 : 0; }
}
