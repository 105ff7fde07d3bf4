#define UNW_LOCAL_ONLY
#include "unwind/native_unwind.h"

#include <libunwind.h>

#include <atomic>
#include <cstdlib>

#include "common/tls.h"

namespace strata::rt::unwind {
namespace {
constexpr size_t kDefaultCacheFrames = 128;  // libunwind's own default (DWARF_DEFAULT_UNW_CACHE_SIZE)
bool g_cache_per_thread = true;
bool g_fast_signal_trace = true;  // STRATA_UNWIND_FAST_SIGNAL=0: always walk with unw_step
// The fast trace's frame cache is per thread and starts cold, where the walk's cache is shared:
// a thread's first samples walk (32 CPU-bound Python threads of ~27 samples each paid 52 us a
// sample walking and 60-68 us tracing on the H100 host; the JAX main thread 280 against 140).
constexpr int kWalksBeforeFastTrace = 32;
STRATA_TLS int t_signal_walks = 0;
STRATA_TLS int t_trace_ready = 0;  // PrepareThread ran on this thread
// The newest TLS generation a thread of ours has seen after a dlopen or dlclose.
std::atomic<uint64_t> g_tls_generation{0};
// dlopen/dlclose calls in progress: glibc raises the generation inside them, before the loaded
// library's constructors run, so until they return it is not known yet.
std::atomic<int> g_loader_changes{0};

#if defined(__x86_64__) && defined(__GLIBC__)
constexpr bool kKnowTlsGeneration = true;
// This thread's TLS generation (0 until a module with TLS is dlopened): glibc keeps it in the
// first entry of the thread's dynamic thread vector (dtv[0].counter), which the thread control
// block points to at %fs:8 on x86-64.
uint64_t ThreadTlsGeneration() {
  const uint64_t* dtv;
  asm volatile("mov %%fs:8, %0" : "=r"(dtv));
  return dtv[0];
}
#else
constexpr bool kKnowTlsGeneration = false;  // the handler then never takes the fast trace
uint64_t ThreadTlsGeneration() { return 0; }
#endif

// The handler may take libunwind's fast trace: its per-thread cache exists and the thread's TLS
// vector is not older than the newest loaded module's (see AfterLoaderChange).
bool FastTraceSafeHere() {
  return kKnowTlsGeneration && t_trace_ready && g_loader_changes.load(std::memory_order_acquire) == 0 &&
         ThreadTlsGeneration() >= g_tls_generation.load(std::memory_order_acquire);
}
}  // namespace

void PrepareThread() {
  void* buf[4];
  unw_backtrace(buf, 4);  // creates the trace cache; its TLS access updates this thread's vector
  t_trace_ready = 1;
}

void BeforeLoaderChange() { g_loader_changes.fetch_add(1, std::memory_order_acq_rel); }

void OnForkChild() { g_loader_changes.store(0, std::memory_order_release); }  // the other threads' calls died with them

void AfterLoaderChange() {
  PrepareThread();
  const uint64_t own = ThreadTlsGeneration();
  uint64_t seen = g_tls_generation.load(std::memory_order_relaxed);
  while (own > seen && !g_tls_generation.compare_exchange_weak(seen, own, std::memory_order_acq_rel)) {}
  g_loader_changes.fetch_sub(1, std::memory_order_acq_rel);
}

void Init() {
  if (const char* v = getenv("STRATA_UNWIND_FAST_SIGNAL"); v && v[0] == '0') g_fast_signal_trace = false;
  unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
  // Distribution builds of libunwind (Debian, Ubuntu 1.6: no --enable-per-thread-cache)
  // silently keep one process-wide cache, which unw_step locks at every frame (a mutex and two
  // sigprocmask system calls). unw_set_cache_size only works on that cache and refuses (-1)
  // when the per-thread one exists: asked for the size it already has, it tells them apart.
  g_cache_per_thread = unw_set_cache_size(unw_local_addr_space, kDefaultCacheFrames, 0) != 0;
  unw_context_t ctx;
  unw_cursor_t cursor;
  unw_getcontext(&ctx);
  if (unw_init_local(&cursor, &ctx) == 0) {
    for (int i = 0; i < 64 && unw_step(&cursor) > 0; ++i) {}
  }
  BeforeLoaderChange();
  AfterLoaderChange();  // the generation of what is loaded now; prepares this thread
}

bool CachePerThread() { return g_cache_per_thread; }

uint64_t InterruptedPc(const ucontext_t* uc) { return uint64_t(uc->uc_mcontext.gregs[REG_RIP]); }

namespace {
// stop_sp: the walk ends after the first frame whose SP is above it (0: at the root).
int Walk(unw_cursor_t* cursor, uint64_t* pcs, uint64_t* sps, int max, int skip, bool first_is_pc, bool* failed,
         uint64_t stop_sp = 0) {
  int n = 0;
  bool first = true;
  for (;;) {
    unw_word_t ip = 0, sp = 0;
    if (unw_get_reg(cursor, UNW_REG_IP, &ip) != 0 || ip == 0) break;
    unw_get_reg(cursor, UNW_REG_SP, &sp);
    if (skip > 0) {
      --skip;
    } else {
      if (n >= max) break;
      sps ? (void)(sps[n] = uint64_t(sp)) : (void)0;
      pcs[n++] = (first && first_is_pc) ? uint64_t(ip) : uint64_t(ip) - 1;
      if (stop_sp && uint64_t(sp) > stop_sp) break;
    }
    first = false;
    int rc = unw_step(cursor);
    if (rc == 0) break;
    if (rc < 0) { *failed = true; break; }
  }
  return n;
}
}  // namespace

namespace {

// PCs only: libunwind's fast trace from the handler itself, through the kernel's signal frame,
// keeping what lies past the interrupted PC. It caches each IP's frame shape per thread, where
// unw_step takes the process-wide cache's lock at every frame (a mutex and two sigprocmask calls
// with distributions' libunwind). Returns -1 when the interrupted PC is not among the first
// frames (the trace stopped early, or the PC was not a frame of its own): the caller walks.
int FastFromSignalContext(ucontext_t* uc, uint64_t* pcs, int max) {
  constexpr int kHandlerFrames = 48;  // at most this many frames of the handler and its callers
  constexpr int kBuf = kHandlerFrames + 1024;
  void* buf[kBuf];
  const int want = max + kHandlerFrames < kBuf ? max + kHandlerFrames : kBuf;
  const int got = unw_backtrace(buf, want);
  const uint64_t rip = InterruptedPc(uc);
  int i = 0;
  while (i < got && i < kHandlerFrames && uint64_t(reinterpret_cast<uintptr_t>(buf[i])) != rip) ++i;
  if (i >= got || i >= kHandlerFrames) return -1;
  int n = 0;
  pcs[n++] = rip;
  for (++i; i < got && n < max && buf[i]; ++i) pcs[n++] = uint64_t(reinterpret_cast<uintptr_t>(buf[i])) - 1;
  return n;
}

}  // namespace

int FromSignalContext(ucontext_t* uc, uint64_t* pcs, uint64_t* sps, int max, bool* failed) {
  *failed = false;
  if (max <= 0) return 0;
  if (!sps && g_fast_signal_trace && t_signal_walks >= kWalksBeforeFastTrace && FastTraceSafeHere()) {
    int n = FastFromSignalContext(uc, pcs, max);
    if (n > 0) return n;
  }
  if (t_signal_walks < kWalksBeforeFastTrace) ++t_signal_walks;
  unw_cursor_t cursor;
  // On x86-64 unw_context_t is ucontext_t: start from the interrupted registers directly.
  // UNW_INIT_SIGNAL_FRAME says the first IP is not a return address (no -1 for lookups).
  if (unw_init_local2(&cursor, reinterpret_cast<unw_context_t*>(uc), UNW_INIT_SIGNAL_FRAME) != 0) {
    pcs[0] = InterruptedPc(uc);
    if (sps) sps[0] = uint64_t(uc->uc_mcontext.gregs[REG_RSP]);
    *failed = true;
    return 1;
  }
  return Walk(&cursor, pcs, sps, max, 0, true, failed);
}

int FromSignalContextToSp(ucontext_t* uc, uint64_t* pcs, uint64_t* sps, int max, uint64_t stop_sp, bool* failed) {
  *failed = false;
  if (max <= 0) return 0;
  unw_cursor_t cursor;
  if (unw_init_local2(&cursor, reinterpret_cast<unw_context_t*>(uc), UNW_INIT_SIGNAL_FRAME) != 0) {
    *failed = true;
    return 0;
  }
  return Walk(&cursor, pcs, sps, max, 0, true, failed, stop_sp);
}

int FromCurrentContext(uint64_t* pcs, uint64_t* sps, int max, int skip, bool* failed, uint64_t stop_sp) {
  *failed = false;
  if (max <= 0) return 0;
  if (!sps) {
    // PCs only: libunwind's fast trace (per-IP frame cache) is several times cheaper than a
    // unw_step walk, which matters at every CUDA launch. buf[0] is this function's own frame.
    constexpr int kBuf = 320;
    void* buf[kBuf];
    int want = max + skip + 1 < kBuf ? max + skip + 1 : kBuf;
    int got = unw_backtrace(buf, want);
    int n = 0;
    for (int i = skip + 1; i < got && n < max; ++i) {
      if (!buf[i]) break;
      pcs[n++] = uint64_t(reinterpret_cast<uintptr_t>(buf[i])) - 1;  // return address - 1
    }
    return n;
  }
  unw_context_t ctx;
  unw_cursor_t cursor;
  if (unw_getcontext(&ctx) != 0 || unw_init_local(&cursor, &ctx) != 0) { *failed = true; return 0; }
  // Skip this function's own frame as well as the caller's helpers.
  return Walk(&cursor, pcs, sps, max, skip + 1, false, failed, stop_sp);
}

}  // namespace strata::rt::unwind
