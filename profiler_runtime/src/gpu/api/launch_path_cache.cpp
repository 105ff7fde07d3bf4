#include "gpu/api/launch_path_cache.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/log.h"
#include "common/tls.h"
#include "gpu/cupti/cupti_session.h"
#include "ops/op_registry.h"
#include "ops/op_stack.h"
#include "python/main_stack.h"
#include "python/main_thread_placement.h"
#include "python/py_reader.h"
#include "sampler/path_collector.h"
#include "sampler/path_difference.h"
#include "sampler/sample.h"
#include "unwind/native_unwind.h"
#include "unwind/return_slots.h"

namespace strata::rt::gpu {
namespace {

// Native return addresses in the key: deep enough to leave Strata's callback, CUPTI and the CUDA
// runtime and reach the framework's launch site; each costs ~50 ns of libunwind's fast trace.
// With the stack pointer and the operators' scope addresses keyed too, 24 frames gave no wrong
// path on GPT-2 decoding and training, ResNet-50 and a compiled ViT on the H100 (24 without them:
// 64 of 4,684 ResNet-50 hits wrong; 16 with them: 731); 40 alone was the earlier default.
// STRATA_GPU_PATH_KEY_FRAMES and STRATA_GPU_PATH_KEY_SP=0 change it (checked with
// STRATA_GPU_PATH_CACHE=verify).
constexpr int kKeyFramesDefault = 24;
constexpr int kKeyFramesMax = 64;
// Distinct launch sites remembered per thread. With 64 the transformer step (forward +
// optimizer launch sites on one thread) hit only 65% on the H100; direct-mapped with 256, GPT-2
// decoding still missed 8% (a miss takes the full path, ~10x a hit, so misses were most of the
// cost). Sets of kWays with the least recently used replaced; entries are sized to their path,
// so more of them cost little.
constexpr int kSets = 256;
constexpr int kWays = 4;
// Operator entry traces (STRATA_OP_ENTRY_TRACES=1; off by default, see op_stack.cpp) only shorten
// the full paths taken at misses: when on, they are taken while a thread misses more than about 1
// launch in 50, decided per window of launches.
constexpr uint64_t kMissWindow = 1024;
constexpr uint64_t kEntryTracesAboveMisses = kMissWindow / 50;
// A cheap key's hit is checked on the stack itself: the fill records where each of the trace's
// return addresses lives (x86-64: at the frame's stack pointer - 8) and its value, and a hit
// compares those words in place (a few ns against ~1 µs for the trace). Two call sites that share
// a cheap key (cuDNN launching one kernel from two places at the same stack depth) differ in one
// of those words at the first launch of the other site. Checking every 64th hit against the trace
// instead missed such sites between checks on ResNet-50 training.
// Cheap keys seen with two native traces, remembered per thread (direct-mapped).
constexpr int kAmbiguousSlots = 1024;

struct Entry {
  uint64_t key = 0;
  uint64_t full = 0;  // the key with the native trace, as at the fill
  uint64_t used = 0;  // the thread's lookup count at its last hit or fill
  int n = 0;
  std::vector<uint64_t> words;
  // Cheap key only: (stack address, return address) of each frame of the native trace, and the
  // lowest of those addresses.
  std::vector<uint64_t> slots;
  uint64_t slots_low = 0;
};
// Counts are per thread (written by their thread only, read by the status line) so that
// launching threads never share a cache line per launch; a thread's counts go to the totals
// when it exits.
struct Counts {
  std::atomic<uint64_t> hits{0}, lookups{0}, mismatch{0}, checks{0}, ambiguous{0}, unchecked{0};
};
inline void Bump(std::atomic<uint64_t>& c) { c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }

struct Cache;

}  // namespace

struct LaunchPathCacheState {
  std::mutex* caches_mu = new std::mutex;            // leaked: threads may exit during teardown
  std::vector<Cache*>* caches = new std::vector<Cache*>;
  Counts* exited = new Counts;                       // counts of the threads that have exited
  int mode = 1;  // 0 off, 1 on, 2 verify
  bool cheap_key = true;  // no native trace in the key, its frames checked on the stack (STRATA_GPU_PATH_KEY=trace: keyed)
  int key_frames = kKeyFramesDefault;
  bool key_sp = true;  // the stack depth and operator scopes keyed too (STRATA_GPU_PATH_KEY_SP=0: not)
};

LaunchPathCacheState* NewLaunchPathCacheState() { return new LaunchPathCacheState(); }

namespace {

LaunchPathCacheState& S() { return *CuptiSession::Get()->launch_path_cache_state; }

struct Cache {
  Entry e[kSets][kWays];
  uint64_t clock = 0;
  uint64_t window_misses = 0;  // misses since the window began (clock % kMissWindow == 0)
  uint64_t ambiguous[kAmbiguousSlots] = {};
  Counts counts;
  Cache() {
    std::lock_guard<std::mutex> lock(*S().caches_mu);
    S().caches->push_back(this);
  }
  ~Cache() {
    std::lock_guard<std::mutex> lock(*S().caches_mu);
    S().exited->hits += counts.hits.load();
    S().exited->lookups += counts.lookups.load();
    S().exited->mismatch += counts.mismatch.load();
    S().exited->checks += counts.checks.load();
    S().exited->ambiguous += counts.ambiguous.load();
    S().exited->unchecked += counts.unchecked.load();
    for (auto& c : *S().caches)
      if (c == this) { c = S().caches->back(); S().caches->pop_back(); break; }
  }
};

thread_local std::unique_ptr<Cache> t_cache;

inline void Mix(uint64_t* h, uint64_t v) {
  *h = (*h ^ v) * 0x9E3779B97F4A7C15ull;
  *h ^= *h >> 31;
}

// Everything but the native trace: the API call, the stack pointer, the Python frames and the
// operator stack. `sp` is the caller's frame address (the same for every launch through the same
// callback at the same stack depth).
uint64_t CheapKey(uint64_t call, uint64_t sp) {
  uint64_t h = 0x84222325cbf29ce4ull;
  Mix(&h, call);
  // The stack pointer at the launch and each operator's scope address pin the frames the
  // shortened trace leaves out: two call paths that share their innermost frames rarely also
  // share the depth of the stack under them (a stricter key costs only misses, never a wrong path).
  const bool key_sp = S().key_sp;
  if (key_sp) Mix(&h, sp);
  if (const python::Runtime* py = python::Current()) {
    uint64_t pk = 0;
    if (python::StackKey(py, &pk)) Mix(&h, pk);
  }
  // Operator frames come from the operator stack, not the native stack: all of it is keyed.
  if (const ops::OpStack* os = ops::CurrentStack(); os && os->depth > 0) {
    int d = os->depth < ops::kMaxOps ? os->depth : ops::kMaxOps;
    Mix(&h, uint64_t(os->depth) << 32 | uint32_t(os->adopt_at));
    for (int i = 0; i < d; ++i) Mix(&h, key_sp ? os->e[i].word ^ os->e[i].sp << 20 : os->e[i].word);
    Mix(&h, uint64_t(uint32_t(os->prefix_n)) << 32 | uint32_t(os->ctx_n));
    if (os->adopt_at >= 0)
      for (int i = 0; i < os->prefix_n; ++i) Mix(&h, os->prefix[i]);
  }
  return h ? h : 1;
}

// The cheap key with the innermost native return addresses (libunwind's fast trace). Called
// from several places in one function: the trace leaves out this function's frame and the
// caller's (whose return address differs by call site).
__attribute__((noinline)) uint64_t FullKey(uint64_t cheap) {
  uint64_t h = cheap;
  uint64_t pcs[kKeyFramesMax];
  bool failed = false;
  int n = unwind::FromCurrentContext(pcs, nullptr, S().key_frames, 2, &failed);
  for (int i = 0; i < n; ++i) Mix(&h, pcs[i]);
  Mix(&h, uint64_t(n) | (failed ? 1ull << 40 : 0));
  return h ? h : 1;
}

// The same frames as FullKey's trace, walked with their stack pointers: each frame's return
// address and the stack word it was read from, for a cheap-key entry's checks. False when the
// walk does not give the trace's frames or a frame's return address is not where the x86-64 call
// put it (the key then keeps the trace).
__attribute__((noinline)) bool StackSlots(uint64_t full, uint64_t cheap, std::vector<uint64_t>* slots, uint64_t* low) {
  uint64_t pcs[kKeyFramesMax], sps[kKeyFramesMax];
  bool failed = false;
  int n = unwind::FromCurrentContext(pcs, sps, S().key_frames, 2, &failed);
  uint64_t h = cheap;
  for (int i = 0; i < n; ++i) Mix(&h, pcs[i]);
  Mix(&h, uint64_t(n) | (failed ? 1ull << 40 : 0));
  if ((h ? h : 1) != full || n == 0) return false;
  slots->resize(2 * size_t(n));
  return unwind::ReturnSlots(pcs, sps, n, slots->data(), low);
}

// Do the entry's frames stand where the fill found them? `sp` is the caller's frame address:
// the words compared lie in its callers' frames, above it (the key holds `sp`, so these frames are
// live).
bool SlotsHold(const Entry& e, uint64_t sp) {
  if (e.slots.empty() || e.slots_low <= sp) return false;
  return unwind::ReturnSlotsHold(e.slots.data(), int(e.slots.size() / 2));
}

}  // namespace

void ConfigureLaunchPathCache() {
  const char* v = getenv("STRATA_GPU_PATH_CACHE");
  if (v && (strcmp(v, "off") == 0 || strcmp(v, "0") == 0)) S().mode = 0;
  else if (v && strcmp(v, "verify") == 0) S().mode = 2;
  if (const char* k = getenv("STRATA_GPU_PATH_KEY_FRAMES"); k && *k) {
    int n = atoi(k);
    S().key_frames = n < 4 ? 4 : n > kKeyFramesMax ? kKeyFramesMax : n;
  }
  if (const char* k = getenv("STRATA_GPU_PATH_KEY_SP"); k && *k) S().key_sp = k[0] != '0';
  if (const char* k = getenv("STRATA_GPU_PATH_KEY"); k && *k) {
    if (strcmp(k, "cheap") == 0) S().cheap_key = true;
    else if (strcmp(k, "trace") == 0) S().cheap_key = false;
    else Log("STRATA_GPU_PATH_KEY=%s: not cheap or trace; the cheap key, checked on the stack, is kept", k);
  }
}

namespace {

int LaunchPathOfThisThread(ThreadSlot* slot, uint64_t call, uint64_t* out, int max);

}  // namespace

int LaunchPath(ThreadSlot* slot, uint64_t call, uint64_t* out, int max) {
  return python::PlaceUnderMainThread(out, LaunchPathOfThisThread(slot, call, out, max), max);
}

namespace {

// The entry for key in its set, or the set's least recently used one (*found false).
Entry* Find(Cache* cache, uint64_t key, bool* found) {
  Entry* set = cache->e[key % kSets];
  Entry* victim = &set[0];
  for (int w = 0; w < kWays; ++w) {
    if (set[w].key == key && set[w].n > 0) {
      *found = true;
      return &set[w];
    }
    if (set[w].used < victim->used) victim = &set[w];
  }
  *found = false;
  return victim;
}

int LaunchPathOfThisThread(ThreadSlot* slot, uint64_t call, uint64_t* out, int max) {
  if (S().mode == 0) {
    ops::SetEntryTracesWorthwhile(true);
    return CollectPath(nullptr, slot, 1, out, max).depth;
  }
  if (!t_cache) t_cache.reset(new Cache());
  Cache* cache = t_cache.get();
  // The cheap key takes the call (the kernel's name) in place of the native trace.
  const uint64_t sp = uint64_t(reinterpret_cast<uintptr_t>(__builtin_frame_address(0)));
  const uint64_t cheap = CheapKey(S().cheap_key ? call : 0, sp);
  uint64_t& amb = cache->ambiguous[cheap % kAmbiguousSlots];
  // Without the stack pointer in the key the slots could lie outside the stack this launch runs
  // on (a coroutine's): the cheap key needs it.
  bool use_cheap = S().cheap_key && S().key_sp && amb != cheap;
  uint64_t full = use_cheap ? 0 : FullKey(cheap);
  uint64_t key = use_cheap ? cheap : full;
  bool found = false;
  Entry* e = Find(cache, key, &found);
  uint64_t now = ++cache->clock;
  Counts& c = cache->counts;
  Bump(c.lookups);
  bool hit = found && e->n <= max;
  if (hit && use_cheap) {
    // Does this cheap key still stand for the trace it was filled with?
    Bump(c.checks);
    if (!SlotsHold(*e, sp)) {
      Bump(c.ambiguous);
      amb = cheap;
      use_cheap = false;
      e->n = 0;
      e->key = 0;
      key = full = FullKey(cheap);
      e = Find(cache, key, &found);
      hit = found && e->n <= max;
    }
  }
  if (!hit) ++cache->window_misses;
  if (now % kMissWindow == 0) {
    ops::SetEntryTracesWorthwhile(cache->window_misses > kEntryTracesAboveMisses);
    cache->window_misses = 0;
  }
  if (hit && S().mode == 1) {
    Bump(c.hits);
    e->used = now;
    memcpy(out, e->words.data(), sizeof(uint64_t) * size_t(e->n));
    return e->n;
  }
  if (!full) full = FullKey(cheap);  // a miss: the fill keeps the native trace it was taken with
  int n = CollectPath(nullptr, slot, 1, out, max).depth;
  if (hit) {  // verify mode: would the cached path have been right?
    Bump(c.hits);
    if (e->n != n || memcmp(e->words.data(), out, sizeof(uint64_t) * size_t(n)) != 0) {
      Bump(c.mismatch);
      static std::atomic<int> logged{0};
      LogPathDifference("path cache verify", e->words.data(), e->n, out, n, &logged, 8);
    }
  }
  if (n > 0 && n <= kMaxDepth) {
    if (use_cheap && !StackSlots(full, cheap, &e->slots, &e->slots_low)) {
      // Frames that cannot be checked in place: this cheap key keeps the trace.
      Bump(c.unchecked);
      amb = cheap;
      e->n = 0;
      e->key = 0;
      key = full;
      e = Find(cache, key, &found);
      if (found) return n;  // the trace's entry exists already (filled before this key was cheap)
      e->slots.clear();
    } else if (!use_cheap) {
      e->slots.clear();
    }
    e->key = key;
    e->full = full;
    e->used = now;
    e->n = n;
    e->words.assign(out, out + n);
  }
  return n;
}

}  // namespace

std::string LaunchPathCacheStatus() {
  if (S().mode == 0) return "path cache off";
  uint64_t hits, lookups, mismatch, checks, ambiguous, unchecked;
  {
    std::lock_guard<std::mutex> lock(*S().caches_mu);
    const Counts& x = *S().exited;
    hits = x.hits.load(), lookups = x.lookups.load(), mismatch = x.mismatch.load();
    checks = x.checks.load(), ambiguous = x.ambiguous.load(), unchecked = x.unchecked.load();
    for (const Cache* c : *S().caches) {
      hits += c->counts.hits.load(), lookups += c->counts.lookups.load(), mismatch += c->counts.mismatch.load();
      checks += c->counts.checks.load(), ambiguous += c->counts.ambiguous.load(), unchecked += c->counts.unchecked.load();
    }
  }
  std::string s = "path cache: " + std::to_string(hits) + " hits of " + std::to_string(lookups);
  if (S().cheap_key)
    s += " (cheap key: " + std::to_string(checks) + " hits checked on the stack, " + std::to_string(ambiguous) +
         " keys stood for two traces, " + std::to_string(unchecked) + " fills not checkable)";
  if (S().key_frames != kKeyFramesDefault || !S().key_sp)
    s += " (key of " + std::to_string(S().key_frames) + " native frames" + (S().key_sp ? " and the stack depth)" : ")");
  if (S().mode == 2) s += " (verify: " + std::to_string(mismatch) + " mismatches)";
  return s;
}

}  // namespace strata::rt::gpu
