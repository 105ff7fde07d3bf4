// CUPTI collection. Three threads take part:
//  - the target's threads: CUPTI API callbacks (runtime + driver launch / copy / set / alloc /
//    sync entry points). At the exit of the outermost tracked call the thread takes its merged
//    call path once (CollectPath, the sampler's own path code) and appends
//    {correlation id, API name, CPU time, path words} to a flat queue (one short mutex).
//    A tracked call nested in another (cudaLaunchKernel -> cuLaunchKernel) only appends an
//    alias: its correlation id -> the outer call's.
//  - CUPTI's worker: full activity buffers (kernels, memcpy, memset, synchronization) are
//    handed over as pointers; buffers come from a recycled pool; CUPTI flushes every 100 ms.
//  - the aggregator thread (drain hook, under the CCT lock it already holds): resolves path
//    words to frames exactly like samples (Aggregator::ResolveWords), adds the gpu_api node,
//    keeps correlation id -> node for a bounded time, and joins the activity records to it
//    (kernel / memcpy / memset frames under the API frame). Records whose API entry has not
//    arrived yet wait a few drains, then land under "<unattributed>".
#include <cupti.h>
#include <cxxabi.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "aggregator/aggregator.h"
#include "cct/cct.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/tls.h"
#include "gpu/cupti_loader.h"
#include "gpu/gpu.h"
#include "runtime_state.h"
#include "sampler/path_collector.h"
#include "sampler/thread_registry.h"

namespace strata::rt::gpu {
namespace {

struct CbidEntry {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId id;
};
// Generated at configure time from cupti_runtime_cbid.h / cupti_driver_cbid.h (CMake).
const CbidEntry kCallbacks[] = {
#include "strata_gpu_cbids.inc"
};

enum Role : uint8_t { kRoleUnknown = 0, kLaunch = 1, kGraphLaunch, kCopy, kSet, kSync, kAlloc };
inline bool ExpectsActivity(uint8_t r) { return r >= kLaunch && r <= kSync; }

constexpr size_t kBufferBytes = 4u << 20;
constexpr uint32_t kFlushPeriodMs = 100;
constexpr size_t kMaxQueueWords = 8u << 20;          // 64 MiB of pending path words at most
constexpr uint64_t kMatchedKeepNs = 2000000000ull;   // keep a matched correlation 2 s
constexpr uint64_t kGraphKeepNs = 30000000000ull;    // graph launches: their kernels trickle in
constexpr uint64_t kUnmatchedKeepNs = 60000000000ull;
constexpr uint64_t kAliasKeepNs = 10000000000ull;    // nested-call aliases: records follow soon
constexpr uint64_t kPendingMaxNs = 3000000000ull;    // records waiting for their API entry
constexpr uint32_t kNoSlot = 0xFFFFFFFFu;

// ---- process state -------------------------------------------------------------------------
std::atomic<int> g_phase{0};  // 0 never injected, 1 collecting, 2 failed, 4 closed
std::atomic<bool> g_collecting{false};
std::mutex g_status_mu;
std::string* g_failure = nullptr;   // why GPU data is missing (phase 2)
std::string* g_taken_by = nullptr;  // CUDA_INJECTION64_PATH held by another tool
CuptiApi* g_api = nullptr;
CUpti_SubscriberHandle g_sub = nullptr;
Aggregator* g_agg = nullptr;
uint32_t g_cupti_version = 0;

STRATA_TLS int t_api_depth = 0;
STRATA_TLS uint32_t t_outer_corr = 0;

uint8_t g_roles[2][4096];  // [runtime, driver][cbid]: 0 = not classified yet

std::mutex g_queue_mu;
std::vector<uint64_t>* g_queue = nullptr;
std::atomic<uint64_t> g_queue_dropped{0};
bool g_take_paths = true;                   // STRATA_GPU_CALLPATHS=0: API frames at the root
std::atomic<uint64_t> g_path_ns{0}, g_paths{0};  // cost of taking launch paths (status line)

std::mutex g_buf_mu;
std::vector<uint8_t*>* g_free_bufs = nullptr;
std::vector<std::pair<uint8_t*, size_t>>* g_done_bufs = nullptr;
std::atomic<uint64_t> g_buffers_allocated{0};

void Fail(const std::string& why) {
  std::lock_guard<std::mutex> lock(g_status_mu);
  if (!g_failure) g_failure = new std::string(why);
  g_phase.store(2);
}

uint8_t Classify(const char* name) {
  if (!name) return kRoleUnknown;
  if (strstr(name, "GraphLaunch")) return kGraphLaunch;
  if (strstr(name, "Launch")) return kLaunch;
  if (strstr(name, "Memcpy")) return kCopy;
  if (strstr(name, "Memset")) return kSet;
  if (strstr(name, "Synchronize")) return kSync;
  return kAlloc;
}

uint8_t RoleOf(CUpti_CallbackDomain d, CUpti_CallbackId id, const char* name) {
  if (id >= 4096) return Classify(name);
  uint8_t& r = g_roles[d == CUPTI_CB_DOMAIN_DRIVER_API ? 1 : 0][id];
  if (r == 0) r = Classify(name);
  return r;
}

// ---- target threads ------------------------------------------------------------------------
void PushEntry(uint32_t corr, uint32_t alias, uint32_t slot_index, uint32_t gen, uint64_t api_ns,
               const char* name, uint8_t role, const uint64_t* words, int n) {
  std::lock_guard<std::mutex> lock(g_queue_mu);
  std::vector<uint64_t>& q = *g_queue;
  if (q.size() + 5 + size_t(n) > kMaxQueueWords) {
    g_queue_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  q.push_back(uint64_t(corr) | (uint64_t(alias) << 32));
  q.push_back(uint64_t(slot_index) | (uint64_t(gen) << 32));
  q.push_back(api_ns);
  q.push_back(reinterpret_cast<uint64_t>(name));
  q.push_back(uint64_t(uint32_t(n)) | (uint64_t(role) << 32));
  q.insert(q.end(), words, words + n);
}

void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    // Records of a context must be out before it goes (cudaDeviceReset, explicit destroy).
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING && g_collecting.load())
      g_api->ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (cb->callbackSite == CUPTI_API_ENTER) {
    if (t_api_depth++ == 0) t_outer_corr = cb->correlationId;
    if (cb->correlationData) *cb->correlationData = NowNs(CLOCK_MONOTONIC);
    return;
  }
  if (t_api_depth <= 0) return;  // exit of a call entered before we subscribed
  int depth = --t_api_depth;
  if (!g_collecting.load(std::memory_order_relaxed)) return;
  uint8_t role = RoleOf(domain, cbid, cb->functionName);
  if (depth > 0) {  // nested in a tracked call: its records belong to the outer call's path
    if (ExpectsActivity(role) && cb->correlationId != t_outer_corr)
      PushEntry(cb->correlationId, t_outer_corr, kNoSlot, 0, 0, nullptr, role, nullptr, 0);
    return;
  }
  uint64_t t0 = cb->correlationData ? *cb->correlationData : 0;
  uint64_t api_ns = t0 ? NowNs(CLOCK_MONOTONIC) - t0 : 0;
  uint64_t words[kMaxDepth];
  int n = 0;
  ThreadSlot* slot = registry::CurrentThreadSlot();
  if (g_take_paths) {
    PathScope scope;
    if (scope.ok()) n = CollectPath(nullptr, slot, 0, words, kMaxDepth).depth;
    g_path_ns.fetch_add(NowNs(CLOCK_MONOTONIC) - t0 - api_ns, std::memory_order_relaxed);
    g_paths.fetch_add(1, std::memory_order_relaxed);
  }
  uint32_t slot_index = slot ? uint32_t(slot - registry::Slots()) : kNoSlot;
  PushEntry(cb->correlationId, 0, slot_index, slot ? slot->generation : 0, api_ns, cb->functionName,
            role, words, n);
}

// ---- CUPTI's buffer callbacks ----------------------------------------------------------------
void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  uint8_t* b = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_buf_mu);
    if (!g_free_bufs->empty()) { b = g_free_bufs->back(); g_free_bufs->pop_back(); }
  }
  if (!b) {
    b = static_cast<uint8_t*>(aligned_alloc(8, kBufferBytes));
    if (b) g_buffers_allocated.fetch_add(1, std::memory_order_relaxed);
  }
  *buffer = b;
  *size = b ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  if (!buffer) return;
  std::lock_guard<std::mutex> lock(g_buf_mu);
  if (valid) g_done_bufs->emplace_back(buffer, valid);
  else g_free_bufs->push_back(buffer);
}

// ---- aggregator thread ------------------------------------------------------------------------
struct DeviceLimits {
  bool ok = false;
  int max_threads_sm = 0, max_blocks_sm = 0, regs_sm = 0, smem_sm = 0, smem_reserved_block = 0;
};

struct GpuEvent {
  uint8_t kind = 0;  // 1 kernel, 2 memcpy, 3 memset, 4 sync
  uint8_t copy_kind = 0;
  uint32_t corr = 0;
  uint32_t device = 0;
  uint64_t duration = 0;
  uint64_t bytes = 0;
  int64_t grid = 0, block = 0;
  int32_t regs = 0, sshm = 0, dshm = 0;
  int32_t bx = 0;
  std::string name;     // kernels
  uint64_t first_seen = 0;
};

struct CorrEntry {
  uint32_t node = 0;       // gpu_api node (0 = alias only)
  uint32_t alias = 0;      // outer correlation id
  uint8_t role = 0;
  uint64_t t_insert = 0;
  uint64_t t_match = 0;
};

struct Join {
  bool metrics = false;
  uint32_t m_api_time, m_gpu_time, m_grid, m_block, m_regs, m_sshm, m_dshm, m_occ, m_copy_bytes,
      m_set_bytes, m_sync_time;
  std::unordered_map<uint32_t, CorrEntry> corr;
  std::unordered_map<const char*, uint32_t> api_frames;
  std::unordered_map<std::string, uint32_t> kernel_frames;
  std::unordered_map<uint64_t, uint32_t> child_nodes;  // parent << 32 | frame -> node
  std::vector<GpuEvent> pending;
  std::vector<uint64_t> batch;
  std::vector<std::pair<uint8_t*, size_t>> bufs;
  std::vector<DeviceLimits> devices;
  std::vector<uint32_t> ids;
  uint64_t last_sweep = 0;
  uint32_t unattributed_node = 0;
  uint64_t kernels = 0, copies = 0, sets = 0, syncs = 0, api_calls = 0, unattributed = 0;
};
Join* g_join = nullptr;

const char* CopyName(uint8_t k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "memcpy HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "memcpy DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "memcpy HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "memcpy AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "memcpy AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "memcpy AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "memcpy DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "memcpy DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "memcpy HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "memcpy PtoP";
    default: return "memcpy";
  }
}

const DeviceLimits& Limits(Join& j, uint32_t device) {
  if (j.devices.size() <= device) j.devices.resize(device + 1);
  DeviceLimits& d = j.devices[device];
  if (d.ok) return d;
  using GetFn = int (*)(int*, int, int);
  using DevFn = int (*)(int*, int);
  auto get = reinterpret_cast<GetFn>(dlsym(RTLD_DEFAULT, "cuDeviceGetAttribute"));
  auto dev = reinterpret_cast<DevFn>(dlsym(RTLD_DEFAULT, "cuDeviceGet"));
  int h = 0;
  if (!get || !dev || dev(&h, int(device)) != 0) return d;
  bool ok = get(&d.max_threads_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, h) == 0 &&
            get(&d.max_blocks_sm, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, h) == 0 &&
            get(&d.regs_sm, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, h) == 0 &&
            get(&d.smem_sm, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, h) == 0;
  if (get(&d.smem_reserved_block, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, h) != 0)
    d.smem_reserved_block = 0;
  d.ok = ok && d.max_threads_sm > 0;
  return d;
}

// Theoretical occupancy (active warps / max warps per SM) from the launch configuration and
// the device's per-SM limits, as the CUDA occupancy calculator does (register allocation in
// 256-register units per warp, shared memory per block plus the reserved part). -1 if unknown.
double Occupancy(const DeviceLimits& d, int64_t threads, int regs, int64_t smem) {
  if (!d.ok || threads <= 0) return -1;
  int64_t warps = (threads + 31) / 32;
  int64_t max_warps = d.max_threads_sm / 32;
  int64_t blocks = max_warps / warps;
  if (d.max_blocks_sm > 0 && d.max_blocks_sm < blocks) blocks = d.max_blocks_sm;
  if (regs > 0) {
    int64_t per_warp = ((int64_t(regs) * 32 + 255) / 256) * 256;
    int64_t by_regs = (d.regs_sm / per_warp) / warps;
    if (by_regs < blocks) blocks = by_regs;
  }
  int64_t per_block = smem + d.smem_reserved_block;
  if (smem > 0 && per_block > 0) {
    int64_t by_smem = d.smem_sm / per_block;
    if (by_smem < blocks) blocks = by_smem;
  }
  if (blocks < 0) blocks = 0;
  return double(blocks * warps) / double(max_warps);
}

uint32_t ChildNode(Join& j, Cct::Unlocked& u, uint32_t parent, uint32_t frame) {
  uint64_t key = (uint64_t(parent) << 32) | frame;
  auto it = j.child_nodes.find(key);
  if (it != j.child_nodes.end()) return it->second;
  uint32_t n = u.Child(parent, frame);
  j.child_nodes.emplace(key, n);
  return n;
}

void EnsureMetrics(Join& j, Cct::Unlocked& u) {
  if (j.metrics) return;
  j.m_api_time = u.Metric("api_time", "ns");
  j.m_gpu_time = u.Metric("gpu_time", "ns");
  j.m_grid = u.Metric("grid_size", "blocks");
  j.m_block = u.Metric("block_size", "threads");
  j.m_regs = u.Metric("registers_per_thread", "registers");
  j.m_sshm = u.Metric("static_shared_bytes", "bytes");
  j.m_dshm = u.Metric("dynamic_shared_bytes", "bytes");
  j.m_occ = u.Metric("theoretical_occupancy", "fraction");
  j.m_copy_bytes = u.Metric("memcpy_bytes", "bytes");
  j.m_set_bytes = u.Metric("memset_bytes", "bytes");
  j.m_sync_time = u.Metric("sync_time", "ns");
  j.metrics = true;
}

bool IsGpuStackModule(const std::string& path) {
  size_t s = path.rfind('/');
  const char* base = path.c_str() + (s == std::string::npos ? 0 : s + 1);
  return strncmp(base, "libcuda.so", 10) == 0 || strncmp(base, "libcupti.so", 11) == 0 ||
         strncmp(base, "libcudart.so", 12) == 0 || strncmp(base, "libstrata_runtime.so", 20) == 0;
}

void TakeApiEntries(Join& j, Aggregator* agg, Cct::Unlocked& u, uint64_t now) {
  j.batch.clear();
  {
    std::lock_guard<std::mutex> lock(g_queue_mu);
    g_queue->swap(j.batch);
  }
  ThreadSlot* slots = registry::Slots();
  size_t i = 0;
  while (i + 5 <= j.batch.size()) {
    const uint64_t* h = &j.batch[i];
    uint32_t corr = uint32_t(h[0]), alias = uint32_t(h[0] >> 32);
    uint32_t slot_index = uint32_t(h[1]), gen = uint32_t(h[1] >> 32);
    uint64_t api_ns = h[2];
    const char* name = reinterpret_cast<const char*>(h[3]);
    int n = int(uint32_t(h[4]));
    uint8_t role = uint8_t(h[4] >> 32);
    const uint64_t* words = h + 5;
    i += 5 + size_t(n);
    if (alias) {
      CorrEntry& e = j.corr[corr];
      e.alias = alias;
      e.role = role;
      e.t_insert = now;
      continue;
    }
    // Leaf side: our callback, CUPTI, the driver and libcudart are the mechanism, not the caller.
    int k = 0;
    while (k < n && !IsPyFrameWord(words[k]) && IsGpuStackModule(agg->ModulePathOf(words[k]))) ++k;
    words += k;
    n -= k;
    bool slot_ok = slot_index < registry::kMaxSlots && slots[slot_index].generation == gen;
    uint64_t filtered[kMaxDepth];
    if (!slot_ok) {  // the thread's code cache is gone: keep native frames only
      int m = 0;
      for (int q = 0; q < n; ++q) if (!IsPyFrameWord(words[q])) filtered[m++] = words[q];
      words = filtered;
      n = m;
    }
    j.ids.resize(size_t(n) + 1);
    if (n > 0) agg->ResolveWords(slot_ok ? slot_index : 0, slots[slot_ok ? slot_index : 0], words, n, j.ids.data(), u);
    uint32_t& api_frame = j.api_frames[name];
    if (api_frame == 0)
      api_frame = u.Frame(Cct::FrameKind::kGpuApi, strata::format::kNone, 0, name ? name : "<cuda api>", "", 0);
    j.ids[size_t(n)] = api_frame;
    uint32_t node = u.Node(j.ids.data(), size_t(n) + 1);
    u.AddAt(node, j.m_api_time, double(api_ns));
    ++j.api_calls;
    if (ExpectsActivity(role)) {
      CorrEntry& e = j.corr[corr];
      e.node = node;
      e.alias = 0;
      e.role = role;
      e.t_insert = now;
    }
  }
}

// The gpu_api node an activity record belongs to, or 0 when its API entry is not known (yet).
uint32_t FindNode(Join& j, uint32_t corr, uint64_t now) {
  for (int hop = 0; hop < 2; ++hop) {
    auto it = j.corr.find(corr);
    if (it == j.corr.end()) return 0;
    if (!it->second.t_match) it->second.t_match = now;
    if (it->second.node) return it->second.node;
    if (!it->second.alias) return 0;
    corr = it->second.alias;
  }
  return 0;
}

uint32_t UnattributedNode(Join& j, Cct::Unlocked& u) {
  if (!j.unattributed_node) {
    uint32_t f = u.Frame(Cct::FrameKind::kGpuApi, strata::format::kNone, 0, "<unattributed>", "", 0);
    j.unattributed_node = u.Node(&f, 1);
  }
  return j.unattributed_node;
}

uint32_t KernelFrame(Join& j, Cct::Unlocked& u, const std::string& mangled) {
  auto it = j.kernel_frames.find(mangled);
  if (it != j.kernel_frames.end()) return it->second;
  int status = 0;
  char* dem = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  uint32_t f = u.Frame(Cct::FrameKind::kKernel, strata::format::kNone, 0,
                       status == 0 && dem ? dem : mangled.c_str(), "", 0);
  free(dem);
  j.kernel_frames.emplace(mangled, f);
  return f;
}

void Emit(Join& j, Cct::Unlocked& u, const GpuEvent& ev, uint32_t api_node) {
  switch (ev.kind) {
    case 1: {
      uint32_t node = ChildNode(j, u, api_node, KernelFrame(j, u, ev.name));
      u.AddAt(node, j.m_gpu_time, double(ev.duration));
      u.AddAt(node, j.m_grid, double(ev.grid));
      u.AddAt(node, j.m_block, double(ev.block));
      u.AddAt(node, j.m_regs, double(ev.regs));
      u.AddAt(node, j.m_sshm, double(ev.sshm));
      u.AddAt(node, j.m_dshm, double(ev.dshm));
      double occ = Occupancy(Limits(j, ev.device), ev.block, ev.regs, int64_t(ev.sshm) + ev.dshm);
      if (occ >= 0) u.AddAt(node, j.m_occ, occ);
      ++j.kernels;
      break;
    }
    case 2:
    case 3: {
      const char* name = ev.kind == 2 ? CopyName(ev.copy_kind) : "memset";
      auto it = j.kernel_frames.find(name);
      uint32_t f = it != j.kernel_frames.end()
                       ? it->second
                       : j.kernel_frames.emplace(name, u.Frame(Cct::FrameKind::kKernel, strata::format::kNone, 0, name, "", 0)).first->second;
      uint32_t node = ChildNode(j, u, api_node, f);
      u.AddAt(node, j.m_gpu_time, double(ev.duration));
      u.AddAt(node, ev.kind == 2 ? j.m_copy_bytes : j.m_set_bytes, double(ev.bytes));
      ++(ev.kind == 2 ? j.copies : j.sets);
      break;
    }
    case 4:
      u.AddAt(api_node, j.m_sync_time, double(ev.duration));
      ++j.syncs;
      break;
  }
}

bool Decode(const CUpti_Activity* r, GpuEvent* ev) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(r);
      ev->kind = 1;
      ev->corr = k->correlationId;
      ev->device = k->deviceId;
      ev->duration = k->end > k->start ? k->end - k->start : 0;
      ev->grid = int64_t(k->gridX) * k->gridY * k->gridZ;
      ev->block = int64_t(k->blockX) * k->blockY * k->blockZ;
      ev->regs = k->registersPerThread;
      ev->sshm = k->staticSharedMemory;
      ev->dshm = k->dynamicSharedMemory;
      ev->name = k->name ? k->name : "<kernel>";
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(r);
      ev->kind = 2;
      ev->copy_kind = m->copyKind;
      ev->corr = m->correlationId;
      ev->duration = m->end > m->start ? m->end - m->start : 0;
      ev->bytes = m->bytes;
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(r);
      ev->kind = 3;
      ev->corr = m->correlationId;
      ev->duration = m->end > m->start ? m->end - m->start : 0;
      ev->bytes = m->bytes;
      return true;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(r);
      if (s->type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT) return false;
      ev->kind = 4;
      ev->corr = s->correlationId;
      ev->duration = s->end > s->start ? s->end - s->start : 0;
      return true;
    }
    default:
      return false;
  }
}

void TakeActivity(Join& j, Cct::Unlocked& u, uint64_t now, bool final) {
  // Records whose API entry was late first (their entries were just taken).
  if (!j.pending.empty()) {
    std::vector<GpuEvent> still;
    for (GpuEvent& ev : j.pending) {
      uint32_t node = FindNode(j, ev.corr, now);
      if (node) Emit(j, u, ev, node);
      else if (final || now - ev.first_seen > kPendingMaxNs) {
        if (ev.kind != 4) { Emit(j, u, ev, UnattributedNode(j, u)); ++j.unattributed; }
      } else {
        still.push_back(std::move(ev));
      }
    }
    j.pending.swap(still);
  }
  j.bufs.clear();
  {
    std::lock_guard<std::mutex> lock(g_buf_mu);
    g_done_bufs->swap(j.bufs);
  }
  GpuEvent ev;
  for (auto& [buf, valid] : j.bufs) {
    CUpti_Activity* rec = nullptr;
    while (g_api->ActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
      ev.name.clear();
      if (!Decode(rec, &ev)) continue;
      uint32_t node = FindNode(j, ev.corr, now);
      if (node) {
        Emit(j, u, ev, node);
      } else if (final) {
        if (ev.kind != 4) { Emit(j, u, ev, UnattributedNode(j, u)); ++j.unattributed; }
      } else if (j.pending.size() < (1u << 20)) {
        ev.first_seen = now;
        j.pending.push_back(ev);
      }
    }
  }
  std::lock_guard<std::mutex> lock(g_buf_mu);
  for (auto& b : j.bufs) g_free_bufs->push_back(b.first);
}

void Sweep(Join& j, uint64_t now) {
  if (now - j.last_sweep < 1000000000ull) return;
  j.last_sweep = now;
  for (auto it = j.corr.begin(); it != j.corr.end();) {
    const CorrEntry& e = it->second;
    uint64_t keep = e.role == kGraphLaunch ? kGraphKeepNs : kMatchedKeepNs;
    bool drop = e.t_match ? now - e.t_match > keep
                          : now - e.t_insert > (e.alias ? kAliasKeepNs : kUnmatchedKeepNs);
    it = drop ? j.corr.erase(it) : std::next(it);
  }
}

void DrainHook(Aggregator* agg, Cct::Unlocked& u, bool final) {
  if (g_phase.load() == 0 && !final) return;  // CUDA not initialized (yet)
  if (!g_join || !g_queue) return;
  Join& j = *g_join;
  EnsureMetrics(j, u);
  uint64_t now = NowNs(CLOCK_MONOTONIC);
  TakeApiEntries(j, agg, u, now);
  if (g_api && g_done_bufs) TakeActivity(j, u, now, final);
  Sweep(j, now);
  if (final) g_collecting.store(false);
}

std::string OurLibraryPath() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void*>(&OurLibraryPath), &info) || !info.dli_fname) return "";
  char real[PATH_MAX];
  if (realpath(info.dli_fname, real)) return real;
  return info.dli_fname;
}

bool SamePath(const char* a, const std::string& b) {
  char real[PATH_MAX];
  return realpath(a, real) ? b == real : b == a;
}

void Inject() {
  if (!state::Active() || !g_join) return;  // a child, or STRATA_OUTPUT unset
  int expected = 0;
  if (!g_phase.compare_exchange_strong(expected, 1)) return;  // once
  if (g_taken_by) { g_phase.store(2); return; }
  if (const char* p = getenv("STRATA_GPU_CALLPATHS"); p && strcmp(p, "0") == 0) g_take_paths = false;
  auto* api = new CuptiApi();
  std::string why;
  if (!LoadCupti(api, &why)) { Fail(why); return; }
  g_api = api;
  api->GetVersion(&g_cupti_version);
  CUptiResult r = api->Subscribe(&g_sub, reinterpret_cast<CUpti_CallbackFunc>(&OnCallback), nullptr);
  if (r != CUPTI_SUCCESS) {
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
      Fail("CUPTI already taken by another profiler (cuptiSubscribe: " + api->ResultText(r) + ")");
    else
      Fail("cuptiSubscribe failed: " + api->ResultText(r) + " (" + api->path + ")");
    return;
  }
  int enabled = 0;
  for (const CbidEntry& c : kCallbacks)
    if (api->EnableCallback(1, g_sub, c.domain, c.id) == CUPTI_SUCCESS) ++enabled;
  api->EnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  if (enabled == 0) { Fail("no CUPTI API callback could be enabled (" + api->path + ")"); return; }
  r = api->ActivityRegisterCallbacks(&BufferRequested, &BufferCompleted);
  if (r != CUPTI_SUCCESS) { Fail("cuptiActivityRegisterCallbacks failed: " + api->ResultText(r)); return; }
  r = api->ActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (r != CUPTI_SUCCESS) { Fail("cannot enable kernel activity: " + api->ResultText(r)); return; }
  for (CUpti_ActivityKind k : {CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION})
    if ((r = api->ActivityEnable(k)) != CUPTI_SUCCESS)
      Log("CUPTI activity kind %d not enabled: %s", int(k), api->ResultText(r).c_str());
  if (api->ActivityFlushPeriod) api->ActivityFlushPeriod(kFlushPeriodMs);
  g_collecting.store(true);
}

}  // namespace

void OnRuntimeStart(Aggregator* agg) {
  g_agg = agg;
  g_join = new Join();
  g_queue = new std::vector<uint64_t>();
  g_queue->reserve(1 << 16);
  g_free_bufs = new std::vector<uint8_t*>();
  g_done_bufs = new std::vector<std::pair<uint8_t*, size_t>>();
  agg->SetDrainHook(&DrainHook);
  std::string self = OurLibraryPath();
  const char* cur = getenv("CUDA_INJECTION64_PATH");
  if (cur && *cur) {
    if (!SamePath(cur, self)) g_taken_by = new std::string(cur);
  } else if (!self.empty()) {
    setenv("CUDA_INJECTION64_PATH", self.c_str(), 1);
  }
}

void OnForkChild() { g_collecting.store(false); }  // nothing drains the queues in a fork

void FlushForExit() {
  if (g_collecting.load() && g_api) g_api->ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

std::string StatusLine() {
  if (g_taken_by) return "not collected: CUPTI already taken by CUDA_INJECTION64_PATH=" + *g_taken_by;
  int phase = g_phase.load();
  if (phase == 2) {
    std::lock_guard<std::mutex> lock(g_status_mu);
    return "not collected: " + (g_failure ? *g_failure : std::string("CUPTI setup failed"));
  }
  if (phase == 1) {
    const Join& j = *g_join;
    size_t dropped = 0;
    if (g_api) g_api->ActivityGetNumDroppedRecords(nullptr, 0, &dropped);
    std::string s = "collected: CUPTI " + std::to_string(g_cupti_version) + " (" + g_api->path + "); " +
                    std::to_string(j.kernels) + " kernels, " + std::to_string(j.copies) + " copies, " +
                    std::to_string(j.sets) + " memsets, " + std::to_string(j.syncs) + " syncs, " +
                    std::to_string(j.api_calls) + " API calls";
    if (j.unattributed) s += ", " + std::to_string(j.unattributed) + " unattributed";
    if (uint64_t n = g_paths.load()) {
      char buf[64];
      snprintf(buf, sizeof(buf), "; call paths taken %.2f us each", double(g_path_ns.load()) / double(n) / 1000.0);
      s += buf;
    } else if (!g_take_paths) {
      s += "; call paths off (STRATA_GPU_CALLPATHS=0)";
    }
    if (dropped) s += ", " + std::to_string(dropped) + " records dropped by CUPTI";
    if (uint64_t q = g_queue_dropped.load()) s += ", " + std::to_string(q) + " API calls dropped (queue full)";
    return s;
  }
  // CUDA was never initialized in this process: say what we can see. Closing first makes a
  // late InitializeInjection (the cuInit below succeeding) a no-op.
  int zero = 0;
  g_phase.compare_exchange_strong(zero, 4);
  void* cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (cuda) {
    using InitFn = int (*)(unsigned);
    using ErrFn = int (*)(int, const char**);
    auto init = reinterpret_cast<InitFn>(dlsym(cuda, "cuInit"));
    auto err = reinterpret_cast<ErrFn>(dlsym(cuda, "cuGetErrorName"));
    // cuInit repeats the program's failure (no GPU, driver too old); a success here means the
    // program loaded the driver without initializing it (then the late injection is ignored).
    int rc = init ? init(0) : -1;
    const char* name = nullptr;
    if (rc > 0 && err) err(rc, &name);
    dlclose(cuda);
    if (rc != 0)
      return "not collected: the CUDA driver did not initialize (cuInit: " +
             std::string(name ? name : std::to_string(rc)) + ")";
    return "not collected: the program loaded the CUDA driver but never initialized it";
  }
  for (const char* rt : {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so"}) {
    if (void* h = dlopen(rt, RTLD_LAZY | RTLD_NOLOAD)) {
      dlclose(h);
      return "not collected: the program loaded the CUDA runtime but no CUDA driver (libcuda.so.1 not loaded: no driver installed?)";
    }
  }
  return "not collected: the program did not use CUDA";
}

}  // namespace strata::rt::gpu

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  strata::rt::gpu::Inject();
  return 1;
}
