// A stand-in for libcupti and the CUDA driver, for testing the CUPTI session's logic where there
// is no GPU: switching collection on and off (sampled windows, capture ranges), detaching
// (cuptiFinalize) and attaching again, correlation ids across attaches, the activity buffers.
// It keeps what the real library does at those boundaries as far as the runtime relies on it:
// one subscriber; callbacks only for enabled (domain, id) pairs; records only for enabled
// kinds, written into the buffers the runtime hands out and handed back at a flush or when full;
// cuptiFinalize flushes, unsubscribes, forgets every switch and numbers correlation ids from 1
// again. Not a model of GPU timing: a "kernel" runs for the time the program says, at once.
//
// The program side (tests/targets/fake_gpu_program.cpp, test/ops/sampled_scale_program.py) calls strata_fake_cuinit() (the driver's
// cuInit: InitializeInjection of CUDA_INJECTION64_PATH), strata_fake_launch() (cuLaunchKernel)
// and cudaProfilerStart / cudaProfilerStop.
#include <cupti.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

#include <cstring>
#include <mutex>
#include <set>
#include <utility>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

uint64_t Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

struct Fake {
  std::mutex mu;
  bool subscribed = false;
  CUpti_CallbackFunc callback = nullptr;
  void* userdata = nullptr;
  std::set<std::pair<int, uint32_t>> callbacks;  // (domain, id) enabled
  std::set<int> domains;                         // domains enabled whole
  bool Enabled(int domain, uint32_t id) const { return callbacks.count({domain, id}) || domains.count(domain); }
  std::set<int> kinds;                           // activity kinds enabled
  CUpti_BuffersCallbackRequestFunc requested = nullptr;
  CUpti_BuffersCallbackCompleteFunc completed = nullptr;
  uint8_t* buffer = nullptr;  // the buffer being filled
  size_t size = 0, used = 0;
  uint32_t next_corr = 1;
  uint64_t records = 0;        // written, over the run
  uint64_t finalizes = 0;
};

Fake& F() {
  static Fake* f = new Fake();  // never destroyed: the runtime flushes from exit handlers
  return *f;
}

// The buffer being filled back to the runtime; its callback runs without the lock held (CUPTI
// calls it from its own thread).
void FlushLocked(std::unique_lock<std::mutex>& lock) {
  Fake& f = F();
  uint8_t* b = f.buffer;
  const size_t size = f.size, used = f.used;
  const auto done = f.completed;
  f.buffer = nullptr, f.size = f.used = 0;
  if (!b || !done) return;
  lock.unlock();
  done(nullptr, 0, b, size, used);
  lock.lock();
}

// A kernel record, when the kind is enabled (under the lock: the buffer is asked for here).
void Record(std::unique_lock<std::mutex>& lock, const char* name, uint32_t corr, uint64_t start, uint64_t end) {
  Fake& f = F();
  if (!f.kinds.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) || !f.requested) return;
  constexpr size_t kSize = sizeof(CUpti_ActivityKernel10);
  if (f.buffer && f.used + kSize > f.size) FlushLocked(lock);
  if (!f.buffer) {
    uint8_t* b = nullptr;
    size_t size = 0, max = 0;
    f.requested(&b, &size, &max);
    if (!b || size < kSize) return;
    f.buffer = b, f.size = size, f.used = 0;
  }
  auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(f.buffer + f.used);
  std::memset(k, 0, kSize);
  k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k->correlationId = corr;
  k->start = start;
  k->end = end;
  k->deviceId = 0;
  k->contextId = 1;
  k->streamId = 7;
  k->gridX = k->gridY = k->gridZ = 1;
  k->blockX = 128, k->blockY = k->blockZ = 1;
  k->name = name;
  f.used += kSize;
  ++f.records;
}

// One API call as the driver makes it: the enter callback, `body`, the exit callback.
template <typename Body>
void ApiCall(CUpti_CallbackDomain domain, uint32_t cbid, const char* function, const char* symbol, Body body) {
  Fake& f = F();
  std::unique_lock<std::mutex> lock(f.mu);
  const uint32_t corr = f.next_corr++;
  auto hook = [&](CUpti_ApiCallbackSite site, uint64_t* data) {
    if (!f.subscribed || !f.callback || !f.Enabled(domain, cbid)) return;
    CUpti_CallbackFunc cb = f.callback;
    void* user = f.userdata;
    CUpti_CallbackData d{};
    d.callbackSite = site;
    d.functionName = function;
    d.symbolName = symbol;
    d.correlationId = corr;
    d.correlationData = data;
    lock.unlock();  // the runtime may call back into CUPTI (cuptiFinalize at an exit)
    cb(user, domain, cbid, &d);
    lock.lock();
  };
  uint64_t data = 0;
  hook(CUPTI_API_ENTER, &data);
  body(lock, corr);
  hook(CUPTI_API_EXIT, &data);
}

}  // namespace

// ---- libcupti

FAKE_EXPORT CUptiResult cuptiGetVersion(uint32_t* v) {
  *v = CUPTI_API_VERSION;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiGetResultString(CUptiResult r, const char** s) {
  *s = r == CUPTI_SUCCESS ? "CUPTI_SUCCESS" : "fake CUPTI error";
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle* sub, CUpti_CallbackFunc cb, void* user) {
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  if (f.subscribed) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  f.subscribed = true, f.callback = cb, f.userdata = user;
  *sub = reinterpret_cast<CUpti_SubscriberHandle>(&f);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle) {
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  f.subscribed = false, f.callback = nullptr, f.callbacks.clear(), f.domains.clear();
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle, CUpti_CallbackDomain d, CUpti_CallbackId id) {
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  if (!f.subscribed) return CUPTI_ERROR_INVALID_PARAMETER;
  if (enable) f.callbacks.insert({d, id});
  else f.callbacks.erase({d, id});
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle, CUpti_CallbackDomain d) {
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  if (enable) f.domains.insert(d);
  else f.domains.erase(d);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind k) {
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  f.kinds.insert(k);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind k) {
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  f.kinds.erase(k);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req, CUpti_BuffersCallbackCompleteFunc done) {
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  f.requested = req, f.completed = done;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityFlushAll(uint32_t) {
  Fake& f = F();
  std::unique_lock<std::mutex> lock(f.mu);
  FlushLocked(lock);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityFlushPeriod(uint32_t) { return CUPTI_SUCCESS; }

FAKE_EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
  constexpr size_t kSize = sizeof(CUpti_ActivityKernel10);
  uint8_t* next = *record ? reinterpret_cast<uint8_t*>(*record) + kSize : buffer;
  if (next + kSize > buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  *dropped = 0;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiGetTimestamp(uint64_t* t) {
  *t = Now();
  return CUPTI_SUCCESS;
}

// Detaching: every record out, then nothing enabled, nobody subscribed, ids from 1.
FAKE_EXPORT CUptiResult cuptiFinalize() {
  Fake& f = F();
  std::unique_lock<std::mutex> lock(f.mu);
  FlushLocked(lock);
  f.subscribed = false, f.callback = nullptr, f.callbacks.clear(), f.domains.clear(), f.kinds.clear();
  f.requested = nullptr, f.completed = nullptr;
  f.next_corr = 1;
  ++f.finalizes;
  return CUPTI_SUCCESS;
}

// ---- the driver and the CUDA runtime, as the program calls them

FAKE_EXPORT int strata_fake_cuinit() {
  const char* path = getenv("CUDA_INJECTION64_PATH");
  if (!path || !*path) return 1;
  void* h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (!h) h = dlopen(path, RTLD_NOW);
  auto init = h ? reinterpret_cast<int (*)()>(dlsym(h, "InitializeInjection")) : nullptr;
  return init && init() == 1 ? 0 : 2;
}

// A kernel `name` (a string that lives as long as the program) running for gpu_ns.
FAKE_EXPORT void strata_fake_launch(const char* name, uint64_t gpu_ns) {
  ApiCall(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", name,
          [&](std::unique_lock<std::mutex>& lock, uint32_t corr) {
            const uint64_t t = Now();
            Record(lock, name, corr, t, t + gpu_ns);
          });
}

// cudaLaunchKernel as the runtime makes it: a runtime API call whose driver calls (inner_calls of
// them) each launch the kernel; each record carries its driver call's correlation id, not the
// runtime call's, so only the nesting ties it to the runtime call's path.
FAKE_EXPORT void strata_fake_runtime_launch(const char* name, uint64_t gpu_ns, int inner_calls) {
  ApiCall(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel", name,
          [&](std::unique_lock<std::mutex>& lock, uint32_t) {
            lock.unlock();
            for (int i = 0; i < inner_calls; ++i) strata_fake_launch(name, gpu_ns);
            lock.lock();
          });
}

// Records written and detaches, over the run (what the program prints for the test).
FAKE_EXPORT uint64_t strata_fake_records() { return F().records; }
FAKE_EXPORT uint64_t strata_fake_finalizes() { return F().finalizes; }
// 1 while a subscriber has the launch callback on (a sampled-tracing window is open): a program
// can then act out what tracing costs a real one.
FAKE_EXPORT int strata_fake_tracing() {
  Fake& f = F();
  std::lock_guard<std::mutex> lock(f.mu);
  return f.subscribed && f.Enabled(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel) ? 1 : 0;
}

FAKE_EXPORT int cudaProfilerStart() {
  ApiCall(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000, "cudaProfilerStart", nullptr,
          [](std::unique_lock<std::mutex>&, uint32_t) {});
  return 0;
}

FAKE_EXPORT int cudaProfilerStop() {
  ApiCall(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000, "cudaProfilerStop", nullptr,
          [](std::unique_lock<std::mutex>&, uint32_t) {});
  return 0;
}
