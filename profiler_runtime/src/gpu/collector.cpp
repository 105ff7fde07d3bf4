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
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "aggregator/aggregator.h"
#include "cct/cct.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/tls.h"
#include "gpu/cupti_loader.h"
#include "gpu/gpu.h"
#include "gpu/launch_path_cache.h"
#include "gpu/pc_sampling.h"
#include "gpu/region_capture.h"
#include "strata/core/regions.h"
#include "gpu/xla_hlo_map.h"
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
bool g_pcs = false;                         // PC sampling on (pc_sampling.h)
bool g_pcs_serialized = false;              // ... one launch at a time, samples tagged by launch
bool g_regions = false;                     // region buffers handed to launches (region_capture.h)
std::mutex g_ignore_mu;
std::unordered_set<uint32_t>* g_ignored = nullptr;  // correlation ids of the runtime's own calls
std::string* g_region_issues = nullptr;              // decoder issues of the captured buffers

bool IsLaunchCbid(CUpti_CallbackDomain d, CUpti_CallbackId id) {
  return d == CUPTI_CB_DOMAIN_DRIVER_API &&
         (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
          id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz);
}
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
    const auto* rd = static_cast<const CUpti_ResourceData*>(data);
    // Records of a context must be out before it goes (cudaDeviceReset, explicit destroy).
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING && g_collecting.load()) {
      if (g_pcs) pcs::OnContextDestroying(g_api, rd->context);
      g_api->ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    } else if (g_pcs && cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
      pcs::OnContextCreated(g_api, rd->context);
    } else if (g_pcs && cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
      const auto* m = static_cast<const CUpti_ModuleResourceData*>(rd->resourceDescriptor);
      if (m) pcs::OnModuleLoaded(g_api, m->pCubin, m->cubinSize);
    } else if (g_pcs && cbid == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
      pcs::Collect(g_api);  // PCs of a module reloaded later would alias (CUPTI's rule)
    }
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (g_regions && regions::InternalCall()) {  // the runtime's own copies: not the program's
    if (cb->callbackSite == CUPTI_API_ENTER) {
      std::lock_guard<std::mutex> lock(g_ignore_mu);
      g_ignored->insert(cb->correlationId);
    }
    return;
  }
  if (cb->callbackSite == CUPTI_API_ENTER) {
    if (t_api_depth++ == 0) t_outer_corr = cb->correlationId;
    if (cb->correlationData) *cb->correlationData = NowNs(CLOCK_MONOTONIC);
    if (g_regions && IsLaunchCbid(domain, cbid)) regions::OnLaunchEnter(cbid, cb, cb->correlationId, t_outer_corr);
    return;
  }
  if (t_api_depth <= 0) return;  // exit of a call entered before we subscribed
  int depth = --t_api_depth;
  if (g_regions && IsLaunchCbid(domain, cbid)) regions::OnLaunchExit(cbid, cb);
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
    if (scope.ok()) n = LaunchPath(slot, words, kMaxDepth);
    g_path_ns.fetch_add(NowNs(CLOCK_MONOTONIC) - t0 - api_ns, std::memory_order_relaxed);
    g_paths.fetch_add(1, std::memory_order_relaxed);
  }
  uint32_t slot_index = slot ? uint32_t(slot - registry::Slots()) : kNoSlot;
  PushEntry(cb->correlationId, 0, slot_index, slot ? slot->generation : 0, api_ns, cb->functionName,
            role, words, n);
  // PC samples are taken where the program waits anyway (and after each serialized launch).
  if (g_pcs && (role == kSync || (g_pcs_serialized && (role == kLaunch || role == kGraphLaunch))))
    pcs::Collect(g_api);
  if (g_regions && role == kSync) regions::Harvest(false);
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
  uint32_t next = 0;       // XLA: the next launch of the same thread (library kernels by order)
  int32_t hlo = -2;        // XLA: HLO kernel of its kernel (-2 not seen yet, -1 none)
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
  // XLA (JAX): kernels mapped to HLO ops and their Python lines (see the XLA section below).
  xla::HloMap* hlo = nullptr;
  struct ApiPath { std::vector<uint32_t> ids; bool python = false; };  // ids end with the api frame
  std::unordered_map<uint32_t, ApiPath> api_paths;     // gpu_api node -> its path
  std::unordered_map<uint64_t, uint32_t> xla_nodes;    // api node << 32 | hlo index -> node
  std::vector<std::vector<uint32_t>> hlo_ids;          // hlo index -> Python frame ids + op frame
  std::vector<uint32_t> last_launch;                   // thread slot -> its last launch corr
  std::vector<GpuEvent> xla_hold;                      // unmapped kernels waiting for the next launch
  int64_t hlo_dir_mtime = -1;
  bool hlo_more = false;                               // the last scan left files for later
  uint64_t hlo_last_scan = 0;
  uint64_t xla_kernels = 0, xla_library = 0;
  // PC sampling: where each kernel function ran (mangled name -> node -> GPU time) and, when
  // serialized, each launch's node (correlation id -> node).
  std::unordered_map<std::string, std::unordered_map<uint32_t, double>> kernel_nodes;
  std::unordered_map<uint32_t, uint32_t> kernel_of_corr;
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

// ---- XLA (JAX): kernels mapped to HLO ops and the Python lines XLA recorded ----------------
// When a jaxlib / JAX plugin library is dlopened, XLA_FLAGS gets --xla_dump_to=<private dir>
// --xla_dump_hlo_as_text (XLA reads it later, when its backend initializes); the join reads the
// after-optimizations module texts of that dir (lazily, when a kernel name is unknown and the
// dir changed) and places each XLA kernel under the op's Python call path ▸ op_name ▸ gpu_api.
std::atomic<int> g_xla_state{0};  // 0 not seen, 1 dumping (g_xla_dir set), 2 off
std::string* g_xla_dir = nullptr;
bool g_xla_private = false;       // our temp dir: removed after the final drain
constexpr uint64_t kXlaScanEveryNs = 100000000ull;  // dump dir looked at <= every 100 ms
constexpr int64_t kXlaFileMinAgeNs = 20000000ll;    // files younger may still be being written
constexpr uint64_t kXlaHoldNs = 1000000000ull;      // library kernels wait for the next launch

uint32_t OuterCorr(Join& j, uint32_t corr) {
  auto it = j.corr.find(corr);
  if (it != j.corr.end() && !it->second.node && it->second.alias) return it->second.alias;
  return corr;
}

// TakeApiEntries, for each launch-like entry: remember the node's path (once) and chain the
// thread's launches (library kernels are placed by the launch that follows them).
template <typename IsPy>
void XlaNoteLaunch(Join& j, uint32_t node, int n, uint32_t slot, uint32_t corr, uint8_t role, IsPy is_py) {
  auto [it, fresh] = j.api_paths.try_emplace(node);
  if (fresh) {
    it->second.ids.assign(j.ids.begin(), j.ids.begin() + n + 1);
    for (int q = 0; q < n && !it->second.python; ++q) it->second.python = is_py(q);
  }
  if (role != kLaunch || slot == kNoSlot) return;
  if (j.last_launch.size() <= slot) j.last_launch.resize(size_t(slot) + 1, 0);
  if (uint32_t prev = j.last_launch[slot]) {
    auto p = j.corr.find(prev);
    if (p != j.corr.end()) p->second.next = corr;
  }
  j.last_launch[slot] = corr;
}

const std::vector<uint32_t>& HloIds(Join& j, Cct::Unlocked& u, uint32_t index) {
  if (j.hlo_ids.size() <= index) j.hlo_ids.resize(size_t(index) + 1);
  std::vector<uint32_t>& ids = j.hlo_ids[index];
  if (!ids.empty()) return ids;
  const xla::HloKernel& k = j.hlo->Kernels()[index];
  for (const xla::PyFrame& f : k.stack)
    ids.push_back(u.Frame(Cct::FrameKind::kPython, strata::format::kNone, 0,
                          f.function.empty() ? "<?>" : f.function, f.file, f.line));
  ids.push_back(u.Frame(Cct::FrameKind::kOperator, strata::format::kNone, 0,
                        k.op_name.empty() ? k.instruction : k.op_name, "", 0));
  return ids;
}

// How many of the HLO's Python frames the launch path already has (deepest first matters).
int HloMatch(const std::vector<uint32_t>& hlo, const Join::ApiPath& p) {
  int score = 0;
  for (size_t i = 0; i + 1 < hlo.size(); ++i)
    if (std::find(p.ids.begin(), p.ids.end() - 1, hlo[i]) != p.ids.end() - 1) ++score;
  return score;
}

// The node to hang a kernel of HLO kernel `index` under, for a launch at `api_node`.
uint32_t XlaNode(Join& j, Cct::Unlocked& u, uint32_t api_node, uint32_t index) {
  uint64_t key = (uint64_t(api_node) << 32) | index;
  auto it = j.xla_nodes.find(key);
  if (it != j.xla_nodes.end()) return it->second;
  auto p = j.api_paths.find(api_node);
  if (p == j.api_paths.end() || p->second.ids.empty()) return api_node;
  const std::vector<uint32_t>& h = HloIds(j, u, index);
  const std::vector<uint32_t>& path = p->second.ids;
  size_t npy = h.size() - 1, n = path.size() - 1;
  std::vector<uint32_t> ids;
  if (p->second.python) {
    // Launched from Python (JAX's dispatch on the calling thread): keep the real call path and
    // add the frames inside the jitted function (those below the deepest frame both share; the
    // HLO leaf alone when the executable was traced from another call site).
    ids.assign(path.begin(), path.begin() + n);
    size_t from = npy ? npy - 1 : 0;
    for (size_t i = npy; i-- > 0;)
      if (std::find(path.begin(), path.begin() + n, h[i]) != path.begin() + n) { from = i + 1; break; }
    ids.insert(ids.end(), h.begin() + from, h.begin() + npy);
  } else {
    ids.assign(h.begin(), h.begin() + npy);  // XLA's executor thread: only native frames
  }
  ids.push_back(h[npy]);
  ids.push_back(path[n]);
  uint32_t node = u.Node(ids.data(), ids.size());
  j.xla_nodes.emplace(key, node);
  return node;
}

std::vector<uint32_t> XlaFind(Join& j, const GpuEvent& ev) {
  std::vector<uint32_t> c = j.hlo->Find(ev.name, ev.grid, ev.block);
  if (!c.empty()) return c;
  // Unknown name: look at the dump dir again (at most every 100 ms, and only when it changed).
  uint64_t now = NowNs(CLOCK_MONOTONIC);
  if (now - j.hlo_last_scan < kXlaScanEveryNs) return c;
  j.hlo_last_scan = now;
  struct stat st{};
  int64_t mtime = stat(g_xla_dir->c_str(), &st) == 0 ? int64_t(st.st_mtim.tv_sec) * 1000000000ll + st.st_mtim.tv_nsec : -1;
  if (mtime == j.hlo_dir_mtime && !j.hlo_more) return c;
  j.hlo_dir_mtime = mtime;
  j.hlo->ScanDir(*g_xla_dir, 64, kXlaFileMinAgeNs, &j.hlo_more);
  return j.hlo->Find(ev.name, ev.grid, ev.block);
}

// Emit's hook for kernels: 1 placed under its HLO op (api_node changed), 0 unchanged, -1 held
// (an unknown kernel on an XLA thread: a library kernel (cuBLAS) is placed by the launch after it).
int XlaPlace(Join& j, Cct::Unlocked& u, const GpuEvent& ev, uint32_t* api_node) {
  uint32_t outer = OuterCorr(j, ev.corr);
  auto ce = j.corr.find(outer);
  std::vector<uint32_t> cands = XlaFind(j, ev);
  if (cands.empty()) {
    if (ce != j.corr.end()) ce->second.hlo = -1;
    bool xla_launch = ce != j.corr.end() && ce->second.role == kLaunch && ce->second.node == *api_node;
    if (xla_launch && j.xla_hold.size() < 65536 && !j.hlo->Kernels().empty()) {
      j.xla_hold.push_back(ev);
      j.xla_hold.back().first_seen = NowNs(CLOCK_MONOTONIC);
      return -1;
    }
    return 0;
  }
  uint32_t best = cands.back();  // same name in several modules: the one the launch path fits
  if (cands.size() > 1) {
    auto p = j.api_paths.find(*api_node);
    int best_score = -1;
    for (size_t i = cands.size(); i-- > 0;) {
      int sc = p == j.api_paths.end() ? 0 : HloMatch(HloIds(j, u, cands[i]), p->second);
      if (sc > best_score) { best_score = sc; best = cands[i]; }
    }
  }
  if (ce != j.corr.end()) ce->second.hlo = int32_t(best);
  *api_node = XlaNode(j, u, *api_node, best);
  ++j.xla_kernels;
  return 1;
}

void Emit(Join& j, Cct::Unlocked& u, const GpuEvent& ev, uint32_t api_node, bool hlo_placed = false);
uint32_t FindNode(Join& j, uint32_t corr, uint64_t now);
uint32_t UnattributedNode(Join& j, Cct::Unlocked& u);

// Held kernels: follow the thread's next launches (through other unknown kernels, e.g. a second
// kernel of the same GEMM) to the first one with an HLO kernel; if the library call scheduled
// right before that one exists, the held kernel is that call's.
void XlaReleaseHeld(Join& j, Cct::Unlocked& u, uint64_t now, bool final) {
  if (j.xla_hold.empty()) return;
  std::vector<GpuEvent> still;
  for (GpuEvent& ev : j.xla_hold) {
    int decided = 0;  // 0 wait, 1 as is, 2 under library call `lib`
    int32_t lib = -1;
    uint32_t c = OuterCorr(j, ev.corr);
    int hop = 0;
    for (; hop < 4; ++hop) {
      auto it = j.corr.find(c);
      if (it == j.corr.end()) { decided = 1; break; }
      uint32_t nx = it->second.next;
      if (!nx) break;
      auto nt = j.corr.find(nx);
      if (nt == j.corr.end()) { decided = 1; break; }
      if (nt->second.hlo == -2) break;
      if (nt->second.hlo >= 0) {
        lib = j.hlo->LibraryBefore(uint32_t(nt->second.hlo));
        decided = lib >= 0 ? 2 : 1;
        break;
      }
      c = nx;
    }
    if (hop == 4) decided = 1;
    if (!decided && (final || now - ev.first_seen > kXlaHoldNs)) decided = 1;
    if (!decided) { still.push_back(std::move(ev)); continue; }
    uint32_t node = FindNode(j, ev.corr, now);
    if (!node) { node = UnattributedNode(j, u); ++j.unattributed; }
    else if (decided == 2) { node = XlaNode(j, u, node, uint32_t(lib)); ++j.xla_library; }
    Emit(j, u, ev, node, true);
  }
  j.xla_hold.swap(still);
}

int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) { return remove(path) == 0 ? 0 : 0; }

void XlaDrain(Join& j, Cct::Unlocked& u, uint64_t now, bool final) {
  if (!j.hlo && g_xla_state.load(std::memory_order_acquire) == 1) j.hlo = new xla::HloMap();
  if (!j.hlo) return;
  XlaReleaseHeld(j, u, now, final);
  if (final && g_xla_private && g_xla_dir) nftw(g_xla_dir->c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
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
      if (j.hlo) XlaNoteLaunch(j, node, n, slot_ok ? slot_index : kNoSlot, corr, role,
                               [&](int q) { return IsPyFrameWord(words[q]); });
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

void Emit(Join& j, Cct::Unlocked& u, const GpuEvent& ev, uint32_t api_node, bool hlo_placed) {
  switch (ev.kind) {
    case 1: {
      if (j.hlo && !hlo_placed) {
        int placed = XlaPlace(j, u, ev, &api_node);
        if (placed < 0) return;  // held: a library kernel placed by the next launch
      }
      uint32_t node = ChildNode(j, u, api_node, KernelFrame(j, u, ev.name));
      u.AddAt(node, j.m_gpu_time, double(ev.duration));
      if (g_pcs) {
        j.kernel_nodes[ev.name][node] += double(ev.duration) + 1.0;  // +1: zero-length kernels count
        if (g_pcs_serialized) j.kernel_of_corr[ev.corr] = node;
      }
      if (g_regions && regions::Captured(ev.corr)) j.kernel_of_corr[ev.corr] = node;
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
      // The runtime's own copies and calibration kernel. Calls made inside a launch's callback
      // carry that launch's correlation id (seen on the H100), so the program's kernel with the
      // same id is kept: only copies, sets and the calibration kernel are dropped.
      if (g_regions && (ev.kind == 2 || ev.kind == 3 ||
                        (ev.kind == 1 && ev.name.rfind("_ZN6strata7regions17CalibrationKernel", 0) == 0))) {
        std::lock_guard<std::mutex> lock(g_ignore_mu);
        if (g_ignored->count(ev.corr)) continue;
      }
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

// PC samples go below the kernel nodes of their function: the launch's own node when CUPTI
// tagged the launch (serialized mode), else shared among the function's nodes by GPU time.
void EmitPcSamples(Join& j, Cct::Unlocked& u) {
  std::vector<pcs::PcRecord> recs = pcs::TakeRecords();
  if (recs.empty()) return;
  std::vector<std::string> names = pcs::StallNames();
  uint32_t m_samples = u.Metric("pc_samples", "count");
  std::vector<uint32_t> m_stall(names.size());
  for (size_t i = 0; i < names.size(); ++i) m_stall[i] = u.Metric("stall_" + names[i], "count");
  std::unordered_map<uint64_t, uint32_t> modules;  // crc -> module
  uint32_t unknown_kernel = 0;
  for (const pcs::PcRecord& r : recs) {
    uint64_t total = 0;
    for (uint32_t c : r.counts) total += c;
    if (!total) continue;
    auto mit = modules.find(r.crc);
    if (mit == modules.end()) {
      char hex[32];
      snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)r.crc);
      uint32_t m = u.Module(std::string("cubin:") + hex, hex, 0);
      std::string bytes = pcs::CubinBytes(r.crc);
      if (!bytes.empty()) u.Blob(m, strata::format::BlobKind::kCubin, bytes);
      mit = modules.emplace(r.crc, m).first;
    }
    uint32_t frame = u.Frame(Cct::FrameKind::kPc, mit->second, r.pc, *r.function, "", 0);
    std::vector<std::pair<uint32_t, double>> targets;  // kernel node, share
    if (r.corr) {
      auto k = j.kernel_of_corr.find(r.corr);
      if (k != j.kernel_of_corr.end()) targets.emplace_back(k->second, 1.0);
    }
    if (targets.empty()) {
      auto k = j.kernel_nodes.find(*r.function);
      if (k != j.kernel_nodes.end()) {
        double sum = 0;
        for (auto& [node, w] : k->second) sum += w;
        for (auto& [node, w] : k->second) targets.emplace_back(node, w / sum);
      }
    }
    if (targets.empty()) {  // a kernel whose activity record never came (should not happen)
      if (!unknown_kernel) {
        uint32_t f = KernelFrame(j, u, "<kernel without activity record>");
        unknown_kernel = ChildNode(j, u, UnattributedNode(j, u), f);
      }
      targets.emplace_back(unknown_kernel, 1.0);
    }
    for (auto& [kernel_node, share] : targets) {
      uint32_t node = ChildNode(j, u, kernel_node, frame);
      u.AddAt(node, m_samples, double(total) * share);
      for (size_t s = 0; s < r.counts.size() && s < m_stall.size(); ++s)
        if (r.counts[s]) u.AddAt(node, m_stall[s], double(r.counts[s]) * share);
    }
  }
}

// Captured region buffers, decoded (native/core/src/regions) into region frames under the
// launch's kernel node: nesting as recorded, one frame per region id, metrics per interval.
void EmitRegions(Join& j, Cct::Unlocked& u) {
  std::vector<regions::Capture> caps = regions::TakeCaptures();
  if (caps.empty()) return;
  namespace cr = strata::core::regions;
  uint32_t m_time = u.Metric("region_time", "ns"), m_raw = u.Metric("region_raw_time", "ns"),
           m_wait = u.Metric("region_wait_time", "ns");
  cr::DecodeOptions opts;
  opts.record_cost_cycles = regions::RecordCostCycles();
  std::map<std::string, uint64_t> issues;
  for (const regions::Capture& c : caps) {
    uint32_t kernel = 0;
    for (uint32_t corr : {c.corr, c.outer})
      if (!kernel) {
        auto it = j.kernel_of_corr.find(corr);
        if (it != j.kernel_of_corr.end()) kernel = it->second;
      }
    if (!kernel) kernel = ChildNode(j, u, UnattributedNode(j, u), KernelFrame(j, u, c.kernel));
    cr::Trace t = cr::Decode(c.bytes.data(), c.bytes.size(), opts);
    // Lanes too short to measure the clock (globaltimer moves in 32 ns steps): the device's SM
    // clock instead, unless STRATA_REGIONS_CYCLES_PER_NS says better.
    if (t.HasIssue(cr::IssueKind::kNoClockRate)) {
      cr::DecodeOptions o = opts;
      const char* r = getenv("STRATA_REGIONS_CYCLES_PER_NS");
      o.cycles_per_ns = r ? atof(r) : c.clock_khz / 1e6;
      if (o.cycles_per_ns > 0) {
        t = cr::Decode(c.bytes.data(), c.bytes.size(), o);
        issues["clock rate from the device attribute"] += 1;
      }
    }
    std::map<uint16_t, std::string> names = cr::ParseNames(c.names);
    std::vector<uint32_t> node(t.intervals.size(), 0);
    for (size_t i = 0; i < t.intervals.size(); ++i) {
      const cr::Interval& iv = t.intervals[i];
      uint32_t parent = iv.parent >= 0 && size_t(iv.parent) < i ? node[size_t(iv.parent)] : kernel;
      // A names entry's "@file:line" (the marker's line) becomes the frame's source line.
      cr::NameLocation nl = cr::RegionNameLocation(names, iv.region);
      if (iv.iteration >= 0) nl.name += cr::kIterationSuffix;  // loop iterations nest inside their loop
      uint32_t f = u.Frame(Cct::FrameKind::kRegion, strata::format::kNone, iv.region, nl.name, nl.file, uint32_t(nl.line));
      node[i] = ChildNode(j, u, parent, f);
      u.AddAt(node[i], m_time, iv.duration_ns());
      u.AddAt(node[i], m_raw, iv.raw_duration_ns());
      if (iv.wait_ns >= 0) u.AddAt(node[i], m_wait, iv.wait_ns);
    }
    for (const cr::Issue& is : t.issues) issues[cr::IssueName(is.kind)] += is.count;
    // The raw buffer stays with the profile for the timeline view and later re-decoding.
    uint32_t m = u.Module("regions:" + c.kernel + "#" + std::to_string(c.corr), "", 0);
    std::string bytes(reinterpret_cast<const char*>(c.bytes.data()), c.bytes.size());
    u.Blob(m, strata::format::BlobKind::kRegionBuffer, bytes);
    // How it was decoded, so that a later decode of the raw buffer gives the same numbers.
    char info[160];
    snprintf(info, sizeof(info), "cycles_per_ns=%.6f\nrecord_cost_cycles=%.3f\n", t.cycles_per_ns, t.record_cost_cycles);
    u.Blob(m, strata::format::BlobKind::kRegionInfo, "names=" + c.names + "\n" + info);
  }
  std::string s;
  for (auto& [k, n] : issues) s += (s.empty() ? "" : ", ") + k + (n > 1 ? " ×" + std::to_string(n) : "");
  if (!s.empty()) g_region_issues = new std::string("decoder issues: " + s);
}

void DrainHook(Aggregator* agg, Cct::Unlocked& u, bool final) {
  if (g_phase.load() == 0 && !final) return;  // CUDA not initialized (yet)
  if (!g_join || !g_queue) return;
  Join& j = *g_join;
  EnsureMetrics(j, u);
  uint64_t now = NowNs(CLOCK_MONOTONIC);
  if (!j.hlo && g_xla_state.load(std::memory_order_acquire) == 1) j.hlo = new xla::HloMap();
  TakeApiEntries(j, agg, u, now);
  if (g_api && g_done_bufs) TakeActivity(j, u, now, final);
  XlaDrain(j, u, now, final);
  if (final && g_pcs) EmitPcSamples(j, u);
  if (final && g_regions) EmitRegions(j, u);
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
  ConfigureLaunchPathCache();
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
  // STRATA_GPU_CALLBACKS (diagnostic, for measuring CUPTI's own cost): "runtime" tracks runtime
  // API calls only (direct driver launches then go unattributed), "none" only activity records.
  const char* which = getenv("STRATA_GPU_CALLBACKS");
  bool runtime_only = which && strcmp(which, "runtime") == 0;
  bool none = which && strcmp(which, "none") == 0;
  int enabled = 0;
  for (const CbidEntry& c : kCallbacks) {
    if (none || (runtime_only && c.domain == CUPTI_CB_DOMAIN_DRIVER_API)) continue;
    if (api->EnableCallback(1, g_sub, c.domain, c.id) == CUPTI_SUCCESS) ++enabled;
  }
  if (none) enabled = 1;
  api->EnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  if (regions::Configure()) {
    g_regions = true;
    g_ignored = new std::unordered_set<uint32_t>();
  }
  if (pcs::Configure()) {
    g_pcs = true;
    g_pcs_serialized = getenv("STRATA_PC_SAMPLING") && strcmp(getenv("STRATA_PC_SAMPLING"), "serialized") == 0;
    for (CUpti_CallbackId id : {CUPTI_CBID_RESOURCE_CONTEXT_CREATED, CUPTI_CBID_RESOURCE_MODULE_LOADED,
                                CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING})
      api->EnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RESOURCE, id);
  }
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

void OnForkChild() { g_collecting.store(false); }

void OnLibraryLoaded(const char* file) {
  if (!file || g_xla_state.load(std::memory_order_relaxed) != 0) return;
  if (!strstr(file, "jaxlib") && !strstr(file, "jax_plugins") && !strstr(file, "xla_extension")) return;
  int zero = 0;
  if (!g_xla_state.compare_exchange_strong(zero, 2)) return;  // once; 2 = off unless armed below
  if (!state::Active() || !g_join) return;
  if (const char* v = getenv("STRATA_XLA_HLO"); v && strcmp(v, "0") == 0) return;
  const char* cur = getenv("XLA_FLAGS");
  std::string dir;
  if (!cur || !strstr(cur, "--xla_dump_to=")) {
    const char* tmp = getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/strata-xla-XXXXXX";
    if (!mkdtemp(tmpl.data())) { Log("XLA: cannot create a dump dir: HLO mapping off"); return; }
    dir = tmpl;
  }
  std::string user_dir;
  bool user_text = false;
  std::string flags = xla::XlaFlagsWithDump(cur, dir, &user_dir, &user_text);
  g_xla_private = user_dir.empty();
  g_xla_dir = new std::string(g_xla_private ? dir : user_dir);
  setenv("XLA_FLAGS", flags.c_str(), 1);
  g_xla_state.store(1, std::memory_order_release);
}  // nothing drains the queues in a fork

void FlushForExit() {
  if (g_collecting.load() && g_api && g_pcs) pcs::FinishForExit(g_api);
  if (g_collecting.load() && g_regions) regions::Harvest(true);
  if (g_collecting.load() && g_api) g_api->ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

std::string RegionsStatusLine() {
  std::string s = regions::StatusLine();
  if (g_region_issues) s += "; " + *g_region_issues;
  return s;
}

std::string PcSamplingStatusLine() {
  if (!g_pcs) {
    const char* v = getenv("STRATA_PC_SAMPLING");
    if (!v || !*v || strcmp(v, "0") == 0) return "off (strata record --pc-sampling)";
    if (g_phase.load() != 1) return "not collected: GPU collection is off (see gpu)";
  }
  return pcs::StatusLine();
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
      s += buf + std::string(" (") + LaunchPathCacheStatus() + ")";
    } else if (!g_take_paths) {
      s += "; call paths off (STRATA_GPU_CALLPATHS=0)";
    }
    if (dropped) s += ", " + std::to_string(dropped) + " records dropped by CUPTI";
    if (j.hlo)
      s += "; XLA HLO: " + std::to_string(j.hlo->FilesRead()) + " modules read, " + std::to_string(j.xla_kernels) +
           " kernels placed by name, " + std::to_string(j.xla_library) + " library kernels by launch order";
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
