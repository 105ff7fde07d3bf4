#include "gpu/snap/snap_capture.h"

#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/tls.h"
#include "gpu/snap/module_images.h"
#include "gpu/snap/pointer_scan.h"
#include "gpu/driver/cuda_driver.h"
#include "gpu/snap/snap_request.h"
#include "gpu/snap/snap_status.h"
#include "strata/snapshot/wait_kernel.h"
#include "strata/snapshot/writer.h"

namespace strata::rt::gpu::snap {
namespace {

// A region this small is read for pointers of its own (an array of pointers, a struct).
constexpr uint64_t kScanRegionBytes = 64 << 10;
constexpr size_t kChunkBytes = 64u << 20;  // host staging for region contents

struct Launch {
  CUfunction f = nullptr;
  CUstream stream = nullptr;
  void** kernel_params = nullptr;
  void** extra = nullptr;
  snapshot::LaunchConfig config;
  std::vector<snapshot::LaunchAttribute> attributes;
};

// The launch's arguments as the callback hands them, per entry point.
bool ReadLaunch(CUpti_CallbackId cbid, const void* params, Launch* l) {
  auto classic = [&](auto* p, bool per_thread) {
    l->f = p->f;
    l->stream = p->hStream ? p->hStream : per_thread ? CU_STREAM_PER_THREAD : nullptr;
    l->config.grid[0] = p->gridDimX, l->config.grid[1] = p->gridDimY, l->config.grid[2] = p->gridDimZ;
    l->config.block[0] = p->blockDimX, l->config.block[1] = p->blockDimY, l->config.block[2] = p->blockDimZ;
    l->config.shared_bytes = p->sharedMemBytes;
    l->kernel_params = p->kernelParams;
    l->extra = p->extra;
  };
  auto ex = [&](auto* p, bool per_thread) {
    const CUlaunchConfig* c = p->config;
    if (!c) return false;
    l->f = p->f;
    l->stream = c->hStream ? c->hStream : per_thread ? CU_STREAM_PER_THREAD : nullptr;
    l->config.grid[0] = c->gridDimX, l->config.grid[1] = c->gridDimY, l->config.grid[2] = c->gridDimZ;
    l->config.block[0] = c->blockDimX, l->config.block[1] = c->blockDimY, l->config.block[2] = c->blockDimZ;
    l->config.shared_bytes = c->sharedMemBytes;
    l->config.ex = true;
    l->kernel_params = p->kernelParams;
    l->extra = p->extra;
    for (unsigned i = 0; i < c->numAttrs && c->attrs; ++i) {
      snapshot::LaunchAttribute a;
      a.id = uint32_t(c->attrs[i].id);
      static_assert(sizeof(a.value) == sizeof(c->attrs[i].value), "CUlaunchAttributeValue is 64 bytes");
      std::memcpy(a.value, &c->attrs[i].value, sizeof a.value);
      l->attributes.push_back(a);
      if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
        l->config.cluster[0] = c->attrs[i].value.clusterDim.x;
        l->config.cluster[1] = c->attrs[i].value.clusterDim.y;
        l->config.cluster[2] = c->attrs[i].value.clusterDim.z;
      }
    }
    return true;
  };
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: classic(static_cast<const cuLaunchKernel_params*>(params), false); return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: classic(static_cast<const cuLaunchKernel_ptsz_params*>(params), true); return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: return ex(static_cast<const cuLaunchKernelEx_params*>(params), false);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: return ex(static_cast<const cuLaunchKernelEx_ptsz_params*>(params), true);
    default: return false;
  }
}

// The launches before the snapped one that a replay can run first (STRATA_SNAP_PRELUDES=N): the
// newest ones on its stream until the allocations they point into add up to this many times the
// L2 (so that what the restore copy left in the L2 is gone and what they leave is), at most N.
constexpr uint64_t kPreludeL2Multiple = 3;

// A launch on a stream before the snapped one, as it was launched (its pointers are resolved
// at the snap).
struct LastLaunch {
  std::string kernel;
  snapshot::LaunchConfig config;
  std::vector<snapshot::LaunchAttribute> attributes;
  std::vector<snapshot::Param> params;
  std::string param_buffer;
  std::string why_not;  // its parameters could not be read
};

struct Armed {  // set at the snapped launch's entry, finished at its exit (same thread)
  std::unique_ptr<snapshot::Writer> writer;
  snapshot::Snapshot snap;
  std::string path;
  CUstream stream = nullptr;
  CUevent start = nullptr, stop = nullptr;
};

// What the snap cannot go without: the kernel's parameter layout, pointer queries, copies out,
// the device's description and the timing events. The wait kernel's entry points are optional.
bool HasSnapEntryPoints(const CudaDriver& d) {
  return d.CtxSynchronize && d.CtxGetDevice && d.PointerGetAttribute && d.MemcpyDtoH && d.MemAllocHost &&
         d.MemFreeHost && d.FuncGetParamInfo && d.FuncGetAttribute && d.FuncGetModule && d.DeviceGetName &&
         d.DeviceGetAttribute && d.DeviceTotalMem && d.DriverGetVersion && d.StreamIsCapturing && d.EventCreate &&
         d.EventRecord && d.EventSynchronize && d.EventDestroy && d.EventElapsedTime;
}

struct State {
  std::mutex mu;
  SnapRequest req;
  std::atomic<bool> finished{false};  // taken, failed, or given up
  uint64_t matching = 0, in_capture = 0;
  CudaDriver drv;
  bool driver_tried = false;
  std::unordered_map<CUfunction, bool>* matches = nullptr;
  std::string* demangled_example = nullptr;
  std::unordered_map<CUstream, std::deque<LastLaunch>>* last = nullptr;      // per stream, newest last
  std::unordered_map<CUfunction, std::vector<snapshot::Param>>* layouts = nullptr;  // per launched handle
};
State* g = nullptr;
thread_local Armed* t_armed = nullptr;
STRATA_TLS int t_internal = 0;

struct InternalScope {
  InternalScope() { ++t_internal; }
  ~InternalScope() { --t_internal; }
};

std::string Demangle(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

std::string Code(CUresult r) { return "CUDA error " + std::to_string(int(r)); }

std::string Mib(uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MiB", bytes / 1048576.0);
  return b;
}

// The snapshot's path: a child process of the recorded target writes its own.
std::string OutputPath(const std::string& requested) {
  const char* target = std::getenv("STRATA_TARGET_PID");
  if (!target || std::atol(target) == long(::getpid())) return requested;
  std::string stem = requested, ext;
  if (size_t dot = requested.rfind(".snap"); dot != std::string::npos && dot + 5 == requested.size()) {
    stem = requested.substr(0, dot);
    ext = ".snap";
  }
  return stem + "." + std::to_string(::getpid()) + ext;
}

void Give(const std::string& why) {
  g->finished.store(true);
  Tell("no snapshot: " + why);
}

void Atexit() {
  if (!g || g->finished.load()) return;
  const char* target = std::getenv("STRATA_TARGET_PID");
  if (target && std::atol(target) != long(::getpid())) return;  // the target says it, not its helpers
  std::lock_guard<std::mutex> lock(g->mu);
  std::string msg = "no snapshot: the program ended after " + std::to_string(g->matching) + " launch" +
                    (g->matching == 1 ? "" : "es") + " of kernels matching '" + g->req.kernel + "'; launch " +
                    std::to_string(g->req.nth) + " was asked for";
  if (g->in_capture) msg += " (" + std::to_string(g->in_capture) + " more inside CUDA graph capture, which cannot be snapped)";
  Tell(msg);
}

// The function handle the driver's queries take: the CUDA runtime launches through
// context-independent CUkernel handles.
CUfunction FunctionOf(CUfunction f) {
  CUmodule m = nullptr;
  if (g->drv.FuncGetModule(&m, f) == CUDA_SUCCESS) return f;
  CUfunction fn = nullptr;
  if (g->drv.KernelGetFunction && g->drv.KernelGetFunction(&fn, reinterpret_cast<CUkernel>(f)) == CUDA_SUCCESS && fn) return fn;
  return f;
}

bool Matches(CUfunction f, const char* name) {
  auto it = g->matches->find(f);
  if (it != g->matches->end()) return it->second;
  bool m = std::strstr(name, g->req.kernel.c_str()) != nullptr ||
           Demangle(name).find(g->req.kernel) != std::string::npos;
  g->matches->emplace(f, m);
  return m;
}

Resolved ResolveOnDevice(uint64_t address) {
  Resolved r;
  CUdeviceptr p = CUdeviceptr(address), start = 0;
  size_t size = 0;
  unsigned int type = 0;
  if (g->drv.PointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) != CUDA_SUCCESS) return r;
  if (type == CU_MEMORYTYPE_HOST) {
    r.kind = snapshot::WordKind::kHost;
    return r;
  }
  if (g->drv.PointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, p) != CUDA_SUCCESS ||
      g->drv.PointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, p) != CUDA_SUCCESS || size == 0)
    return r;
  int managed = 0;
  g->drv.PointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, p);
  r.kind = snapshot::WordKind::kDevice;
  r.base = start;
  r.size = size;
  r.memory = managed ? snapshot::MemoryKind::kManaged : snapshot::MemoryKind::kDevice;
  return r;
}

// The kernel's parameter layout (offset and size of each), from the driver; cached per handle.
const std::vector<snapshot::Param>& ParamLayout(CUfunction f) {
  auto it = g->layouts->find(f);
  if (it != g->layouts->end()) return it->second;
  std::vector<snapshot::Param> params;
  const CUfunction fn = FunctionOf(f);
  for (size_t i = 0;; ++i) {
    size_t off = 0, size = 0;
    if (g->drv.FuncGetParamInfo(fn, i, &off, &size) != CUDA_SUCCESS) break;
    params.push_back({uint32_t(off), uint32_t(size)});
  }
  // The launch's handle may be a CUkernel (the CUDA runtime's), which has its own query.
  if (params.empty() && g->drv.KernelGetParamInfo)
    for (size_t i = 0;; ++i) {
      size_t off = 0, size = 0;
      if (g->drv.KernelGetParamInfo(reinterpret_cast<CUkernel>(f), i, &off, &size) != CUDA_SUCCESS) break;
      params.push_back({uint32_t(off), uint32_t(size)});
    }
  return g->layouts->emplace(f, std::move(params)).first->second;
}

// The parameter buffer: from kernelParams (one pointer per parameter) or from `extra`'s
// CU_LAUNCH_PARAM_BUFFER_POINTER. "" on success, else why not.
std::string ReadParams(const Launch& l, std::vector<snapshot::Param>* params, std::string* buffer) {
  *params = ParamLayout(l.f);
  size_t total = 0;
  for (const auto& p : *params) total = std::max<size_t>(total, p.offset + p.size);
  if (l.kernel_params) {
    buffer->assign(total, '\0');
    for (size_t i = 0; i < params->size(); ++i)
      if (l.kernel_params[i]) std::memcpy(&(*buffer)[(*params)[i].offset], l.kernel_params[i], (*params)[i].size);
    return "";
  }
  if (l.extra) {
    const void* buf = nullptr;
    size_t size = 0;
    for (void** e = l.extra; *e != CU_LAUNCH_PARAM_END; e += 2) {
      if (e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) buf = e[1];
      else if (e[0] == CU_LAUNCH_PARAM_BUFFER_SIZE) size = *static_cast<size_t*>(e[1]);
      else return "the launch's `extra` holds an entry other than the parameter buffer";
    }
    if (!buf) return "the launch's `extra` has no parameter buffer";
    buffer->assign(static_cast<const char*>(buf), size);
    return "";
  }
  if (!params->empty()) return "the launch passes neither kernelParams nor extra";
  buffer->clear();
  return "";
}

// Every launch before the snapped one: the newest few on each stream are kept (their
// parameters: a few hundred bytes each).
void Remember(const Launch& l, const char* name) {
  std::deque<LastLaunch>& q = (*g->last)[l.stream];
  if (q.size() >= size_t(g->req.preludes)) q.pop_front();
  q.emplace_back();
  LastLaunch& last = q.back();
  last.kernel = name;
  last.config = l.config;
  last.attributes = l.attributes;
  last.why_not = ReadParams(l, &last.params, &last.param_buffer);
}

// The launches before the snapped one on its stream (oldest first), their pointers resolved into
// the snapshot's region table (allocations of their own are added); `images` gets the module
// images the snapped one's does not cover. Stops at a launch that cannot be kept.
void AddPreludes(CUstream stream, const std::string& image, snapshot::Snapshot* s, std::vector<std::string>* images) {
  if (g->req.preludes <= 0) {
    s->preludes_why_not = "not asked for (strata record --snap-preludes N)";
    return;
  }
  auto it = g->last->find(stream);
  if (it == g->last->end() || it->second.empty()) {
    s->preludes_why_not = "the snapped launch was the first on its stream";
    return;
  }
  int l2 = 0;
  CUdevice dev = 0;
  if (g->drv.CtxGetDevice(&dev) == CUDA_SUCCESS) g->drv.DeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
  const uint64_t enough = kPreludeL2Multiple * uint64_t(l2 > 0 ? l2 : 64 << 20);
  std::vector<snapshot::Prelude> newest_first;
  std::vector<std::string> own;  // images, in the order first named
  std::unordered_set<uint64_t> counted;  // region bases whose size is counted
  uint64_t footprint = 0;
  const std::deque<LastLaunch>& launches = it->second;
  for (auto p = launches.rbegin(); p != launches.rend() && footprint < enough; ++p) {
    const std::string name = Demangle(p->kernel.c_str()).substr(0, 120);
    if (!p->why_not.empty()) {
      s->preludes_why_not = "a launch before it (" + name + "): " + p->why_not;
      break;
    }
    snapshot::Prelude q;
    if (!ImageDefines(image, p->kernel)) {
      uint32_t candidates = 0;
      std::string mine = ImageDefining(p->kernel, &candidates);
      if (mine.empty()) {
        s->preludes_why_not = "the module image of a launch before it (" + name + ") was not kept (images of other kernels are kept up to " +
                              Mib(kOtherImagesBudget) + ")";
        break;
      }
      auto same = std::find(own.begin(), own.end(), mine);
      q.image = int32_t(same - own.begin());
      if (same == own.end()) own.push_back(std::move(mine));
    }
    snapshot::Snapshot t;
    t.params = p->params;
    t.regions = std::move(s->regions);
    ScanWords(reinterpret_cast<const uint8_t*>(p->param_buffer.data()), p->param_buffer.size(), -1, ResolveOnDevice, &t);
    s->regions = std::move(t.regions);
    for (const auto& w : t.pointers)
      if (w.kind == snapshot::WordKind::kDevice && counted.insert(s->regions[w.region].base).second)
        footprint += s->regions[w.region].size;
    q.kernel = p->kernel;
    q.launch = p->config;
    q.launch_attributes = p->attributes;
    q.params = p->params;
    q.param_buffer = p->param_buffer;
    q.pointers = std::move(t.pointers);
    newest_first.push_back(std::move(q));
  }
  s->preludes.assign(newest_first.rbegin(), newest_first.rend());
  *images = std::move(own);
}

std::string CopyRegions(snapshot::Writer* w, snapshot::Tag tag, const snapshot::Snapshot& s) {
  std::vector<char> chunk;
  for (size_t i = 0; i < s.regions.size(); ++i) {
    const snapshot::Region& r = s.regions[i];
    if (!r.saved) continue;
    if (!w->BeginRegionData(tag, uint32_t(i), r.size)) return w->error();
    for (uint64_t at = 0; at < r.size; at += kChunkBytes) {
      size_t n = size_t(std::min<uint64_t>(kChunkBytes, r.size - at));
      chunk.resize(n);
      if (CUresult e = g->drv.MemcpyDtoH(chunk.data(), CUdeviceptr(r.base + at), n); e != CUDA_SUCCESS)
        return "copying region " + std::to_string(i) + " to the host failed (" + Code(e) + ")";
      if (!w->Append(chunk.data(), n)) return w->error();
    }
  }
  return "";
}

void ReadDevice(snapshot::Device* d) {
  CUdevice dev = 0;
  if (g->drv.CtxGetDevice(&dev) != CUDA_SUCCESS) return;
  char name[256] = {};
  g->drv.DeviceGetName(name, sizeof name, dev);
  d->name = name;
  g->drv.DeviceGetAttribute(&d->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  g->drv.DeviceGetAttribute(&d->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  g->drv.DriverGetVersion(&d->driver_version);
  size_t total = 0;
  g->drv.DeviceTotalMem(&total, dev);
  d->total_memory = total;
}

std::string CommandLine() {
  std::string out;
  if (std::FILE* f = std::fopen("/proc/self/cmdline", "rb")) {
    char buf[4096];
    size_t n = std::fread(buf, 1, sizeof buf, f);
    std::fclose(f);
    for (size_t i = 0; i < n; ++i) out += buf[i] ? buf[i] : ' ';
    while (!out.empty() && out.back() == ' ') out.pop_back();
  }
  return out;
}

// The snap at the launch's entry; returns "" or why it failed (nothing is left on disk then).
// The wait kernel on the snapped launch's stream, so that the start event is taken just before
// the kernel starts (as the replay times it); nothing when the driver cannot load it.
void QueueWait(CUstream stream) {
  static CUfunction wait = nullptr;
  static bool tried = false;
  if (!tried) {
    tried = true;
    CUmodule m = nullptr;
    if (!g->drv.ModuleLoadData || !g->drv.ModuleGetFunction || !g->drv.LaunchKernel ||
        g->drv.ModuleLoadData(&m, snapshot::kWaitKernelPtx) != CUDA_SUCCESS ||
        g->drv.ModuleGetFunction(&wait, m, snapshot::kWaitKernelName) != CUDA_SUCCESS)
      wait = nullptr;
  }
  if (!wait) return;
  uint64_t ns = snapshot::kWaitKernelNs;
  void* args[] = {&ns};
  g->drv.LaunchKernel(wait, 1, 1, 1, 1, 1, 1, 0, stream, args, nullptr);
}

std::string Begin(CUfunction f, const char* name, const Launch& l, Armed* a) {
  if (CUresult e = g->drv.CtxSynchronize(); e != CUDA_SUCCESS)
    return "the context was already in error before the launch (" + Code(e) + ")";
  snapshot::Snapshot& s = a->snap;
  const CUfunction fn = FunctionOf(f);
  ReadDevice(&s.device);
  s.kernel = name;
  s.launch_index = g->req.nth;
  s.command = CommandLine();
  s.pid = int32_t(::getpid());
  s.launch = l.config;
  s.launch_attributes = l.attributes;
  for (CUfunction_attribute id : {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, CU_FUNC_ATTRIBUTE_NUM_REGS,
                                  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                  CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                                  CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                                  CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE}) {
    int v = 0;
    if (g->drv.FuncGetAttribute(&v, id, fn) == CUDA_SUCCESS) s.function_attributes.push_back({int32_t(id), int32_t(v)});
  }
  if (std::string why = ReadParams(l, &s.params, &s.param_buffer); !why.empty()) return why;
  std::string image = ImageDefining(s.kernel, &s.image_candidates);
  if (image.empty())
    return "no module image defining " + s.kernel + " was seen loading (" + std::to_string(ImagesSeen()) +
           " images loaded while recording, " + std::to_string(ImagesKept()) + " kept)";
  ScanWords(reinterpret_cast<const uint8_t*>(s.param_buffer.data()), s.param_buffer.size(), -1, ResolveOnDevice, &s);
  // One level down: pointers stored in small regions (pointer arrays of batched kernels).
  const size_t first_level = s.regions.size();
  for (size_t i = 0; i < first_level; ++i) {
    if (s.regions[i].size > kScanRegionBytes) continue;
    std::string bytes(s.regions[i].size, '\0');
    if (g->drv.MemcpyDtoH(bytes.data(), CUdeviceptr(s.regions[i].base), bytes.size()) != CUDA_SUCCESS) continue;
    ScanWords(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), int32_t(i), ResolveOnDevice, &s);
  }
  std::vector<std::string> prelude_images;
  AddPreludes(l.stream, image, &s, &prelude_images);
  BoundRegions(g->req.max_bytes, &s);
  a->path = OutputPath(g->req.output);
  a->writer = std::make_unique<snapshot::Writer>();
  if (!a->writer->Open(a->path) || !a->writer->WriteHead(s, image.data(), image.size()) ||
      !a->writer->WritePreludes(s, prelude_images))
    return a->writer->error();
  if (std::string why = CopyRegions(a->writer.get(), snapshot::Tag::kBefore, s); !why.empty()) return why;
  a->stream = l.stream;
  QueueWait(a->stream);
  if (g->drv.EventCreate(&a->start, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
      g->drv.EventCreate(&a->stop, CU_EVENT_DEFAULT) != CUDA_SUCCESS || g->drv.EventRecord(a->start, a->stream) != CUDA_SUCCESS)
    a->start = a->stop = nullptr;  // no in-run time, the snapshot still
  return "";
}

std::string Finish(const CUpti_CallbackData* cb, Armed* a) {
  if (cb->functionReturnValue) {
    CUresult r = *static_cast<const CUresult*>(cb->functionReturnValue);
    if (r != CUDA_SUCCESS) return "the snapped launch itself failed (" + Code(r) + ")";
  }
  if (a->stop) g->drv.EventRecord(a->stop, a->stream);
  if (CUresult e = g->drv.CtxSynchronize(); e != CUDA_SUCCESS) return "the snapped kernel failed (" + Code(e) + ")";
  uint64_t ns = 0;
  float ms = 0;
  if (a->stop && g->drv.EventElapsedTime(&ms, a->start, a->stop) == CUDA_SUCCESS) ns = uint64_t(double(ms) * 1e6);
  if (a->start) g->drv.EventDestroy(a->start);
  if (a->stop) g->drv.EventDestroy(a->stop);
  if (std::string why = CopyRegions(a->writer.get(), snapshot::Tag::kAfter, a->snap); !why.empty()) return why;
  if (!a->writer->WriteTiming(ns) || !a->writer->Commit()) return a->writer->error();
  a->snap.in_run_ns = ns;
  return "";
}

}  // namespace

bool Configure() {
  SnapRequest req;
  std::string why;
  if (!SnapRequestFromEnv(&req, &why)) {
    if (!why.empty()) Tell("no snapshot: " + why);
    return false;
  }
  g = new State();
  g->req = req;
  g->matches = new std::unordered_map<CUfunction, bool>();
  g->last = new std::unordered_map<CUstream, std::deque<LastLaunch>>();
  g->layouts = new std::unordered_map<CUfunction, std::vector<snapshot::Param>>();
  std::atexit(Atexit);
  return true;
}

bool InternalCall() { return t_internal > 0; }

void OnModuleLoaded(const void* image, size_t size) {
  // Also while the snap itself runs: looking the function up can load its module (lazy loading).
  if (g && (t_internal || !g->finished.load(std::memory_order_relaxed)))
    KeepImage(g->req.image_key, g->req.preludes > 0, image, size);
}

void OnLaunchEnter(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
  if (!g || g->finished.load(std::memory_order_relaxed) || t_internal) return;
  Launch l;
  if (!ReadLaunch(cbid, cb->functionParams, &l) || !l.f || !cb->symbolName) return;
  std::lock_guard<std::mutex> lock(g->mu);
  if (g->finished.load()) return;
  if (!g->driver_tried) {
    g->driver_tried = true;
    if (!LoadCudaDriver(&g->drv) || !HasSnapEntryPoints(g->drv)) return Give("the CUDA driver lacks an entry point the snap needs (cuFuncGetParamInfo: driver 12.4 or later)");
  }
  InternalScope internal;
  const bool match = Matches(l.f, cb->symbolName);
  if (!match && g->req.preludes <= 0) return;  // nothing to keep of another kernel's launch
  CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
  if (g->drv.StreamIsCapturing(l.stream, &capturing) == CUDA_SUCCESS && capturing != CU_STREAM_CAPTURE_STATUS_NONE) {
    if (match) ++g->in_capture;
    return;  // a captured launch does not run now
  }
  if (!match || ++g->matching != g->req.nth) {
    if (g->req.preludes > 0) Remember(l, cb->symbolName);
    return;
  }
  g->finished.store(true);
  auto* a = new Armed();
  if (std::string why = Begin(l.f, cb->symbolName, l, a); !why.empty()) {
    delete a;  // the writer removes its temporary file
    return Give(why);
  }
  t_armed = a;
}

void OnLaunchExit(CUpti_CallbackId, const CUpti_CallbackData* cb) {
  Armed* a = t_armed;
  if (!a) return;
  t_armed = nullptr;
  std::lock_guard<std::mutex> lock(g->mu);
  InternalScope internal;
  std::string why = Finish(cb, a);
  if (!why.empty()) {
    Give(why);
  } else {
    uint64_t saved = 0;
    size_t unsaved = 0;
    for (const auto& r : a->snap.regions) r.saved ? saved += r.size : ++unsaved;
    std::string msg = "snapshot of " + Demangle(a->snap.kernel.c_str()).substr(0, 160) + " (launch " +
                      std::to_string(a->snap.launch_index) + ") written to " + a->path + ": " +
                      std::to_string(a->snap.regions.size()) + " regions, " + Mib(saved) + " each before and after";
    if (unsaved) msg += "; " + std::to_string(unsaved) + " regions over STRATA_SNAP_MAX_BYTES kept without contents";
    const auto& q = a->snap.preludes;
    if (!q.empty())
      msg += "; " + std::to_string(q.size()) + " launch" + (q.size() == 1 ? "" : "es") + " before it on its stream kept, the last " +
             Demangle(q.back().kernel.c_str()).substr(0, 100);
    if (!a->snap.preludes_why_not.empty()) msg += "; " + std::string(q.empty() ? "no launch before it kept: " : "no earlier one: ") +
                                                  a->snap.preludes_why_not;
    Tell(msg);
  }
  delete a;
}

}  // namespace strata::rt::gpu::snap
