#include "gpu/cupti/region_capture.h"

#include <cupti.h>  // brings cuda.h and the launch parameter structs (generated_cuda_meta.h)

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "common/log.h"
#include "common/tls.h"
#include "gpu/cupti/cuda_driver.h"
#include "strata/region_decoder/calibration.h"
#include "strata/region_decoder/decode.h"
#include "strata/region_decoder/names.h"

#if defined(STRATA_HAVE_CALIBRATION_PTX)
#include "calibration_ptx.inc"  // kCalibrationPtx (build dir, from calibration/calibration_kernel.cu)
#endif

namespace strata::rt::gpu::regions {
namespace {

// Same layout as strata::regions::BufferDesc (regions.cuh).
struct Desc {
  uint64_t ptr, capacity;
  uint32_t flags, reserved;
};
static_assert(sizeof(Desc) == 24, "descriptor layout");

struct Module {
  CUdeviceptr desc = 0;  // 0: not instrumented
  region_decoder::RegionNames names;
};
struct Kernel {
  uint64_t launches = 0;
  uint32_t captured = 0;
};
struct InFlight {
  uint32_t corr = 0, outer = 0;
  int clock_khz = 0;
  std::string kernel;
  region_decoder::RegionNames names;
  CUdeviceptr buf = 0;
  void* host = nullptr;
  size_t capacity = 0;
  CUevent done = nullptr;
};
struct Armed {  // set at a launch's entry, finished at its exit (same thread)
  bool on = false;
  CUdeviceptr desc = 0;
  CUstream stream = nullptr;
  InFlight f;
};

std::mutex g_mu;
bool g_on = false;
std::string* g_filter = nullptr;
uint32_t g_every = 1, g_max = 8;
size_t g_bytes = 16u << 20;
CudaDriver* g_drv = nullptr;
bool g_driver_tried = false;
std::unordered_map<CUmodule, Module>* g_modules = nullptr;
std::unordered_map<std::string, Kernel>* g_kernels = nullptr;
std::vector<InFlight>* g_inflight = nullptr;
std::vector<Capture>* g_done = nullptr;
std::unordered_set<uint32_t>* g_captured_corrs = nullptr;  // launches handed a buffer (both ids)
uint64_t g_captured = 0, g_failed = 0, g_instrumented_launches = 0, g_launches_seen = 0;
int g_last_lookup_error = 0;
std::string* g_why = nullptr;

double g_record_cost = -1;        // cycles per record for replay; -1: not settled yet
std::string* g_cost_source = nullptr;

STRATA_TLS int t_internal_cuda = 0;
thread_local Armed t_armed;

struct InternalScope {
  InternalScope() { ++t_internal_cuda; }
  ~InternalScope() { --t_internal_cuda; }
};

uint64_t EnvNumber(const char* name, uint64_t dflt) {
  const char* v = getenv(name);
  if (!v || !*v) return dflt;
  char* end = nullptr;
  unsigned long long n = strtoull(v, &end, 10);
  return *end ? dflt : n;
}

CUstream StreamOf(CUpti_CallbackId cbid, const void* params, CUfunction* f) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: {
      auto* p = static_cast<const cuLaunchKernel_params*>(params);
      *f = p->f;
      return p->hStream;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      auto* p = static_cast<const cuLaunchKernel_ptsz_params*>(params);
      *f = p->f;
      return p->hStream ? p->hStream : CU_STREAM_PER_THREAD;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: {
      auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
      *f = p->f;
      return p->config ? p->config->hStream : nullptr;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      auto* p = static_cast<const cuLaunchKernelEx_ptsz_params*>(params);
      *f = p->f;
      CUstream s = p->config ? p->config->hStream : nullptr;
      return s ? s : CU_STREAM_PER_THREAD;
    }
    default:
      *f = nullptr;
      return nullptr;
  }
}

// The module's descriptor, looked up once per module (names read once, synchronously).
const Module& ModuleOfLocked(CUfunction f) {
  static const Module kNone;
  CUmodule m = nullptr;
  CUresult r = g_drv->FuncGetModule(&m, f);
  // The CUDA runtime (12+) launches through context-independent CUkernel handles: the
  // launch's "function" is then a CUkernel, whose function in this context has the module.
  if (r != CUDA_SUCCESS && g_drv->KernelGetFunction) {
    CUfunction g = nullptr;
    if (g_drv->KernelGetFunction(&g, reinterpret_cast<CUkernel>(f)) == CUDA_SUCCESS && g) r = g_drv->FuncGetModule(&m, g);
  }
  if (r != CUDA_SUCCESS || !m) {
    g_last_lookup_error = 1000 + int(r);
    return kNone;
  }
  auto it = g_modules->find(m);
  if (it != g_modules->end()) return it->second;
  Module mod;
  CUdeviceptr p = 0;
  size_t bytes = 0;
  CUresult gr = g_drv->ModuleGetGlobal(&p, &bytes, m, "strata_region_buffer");
  if (gr != CUDA_SUCCESS || bytes != sizeof(Desc)) g_last_lookup_error = gr != CUDA_SUCCESS ? 2000 + int(gr) : 3000 + int(bytes);
  if (gr == CUDA_SUCCESS && bytes == sizeof(Desc)) {
    mod.desc = p;
    CUdeviceptr np = 0;
    size_t nbytes = 0;
    if (g_drv->ModuleGetGlobal(&np, &nbytes, m, "strata_region_names") == CUDA_SUCCESS && nbytes > 0 &&
        nbytes < (1u << 20)) {
      std::string s(nbytes, '\0');
      if (g_drv->MemcpyDtoH(s.data(), np, nbytes) == CUDA_SUCCESS) {
        s.resize(strnlen(s.c_str(), s.size()));
        mod.names = region_decoder::ParseNameTable(s);
      }
    }
  }
  return g_modules->emplace(m, std::move(mod)).first->second;
}

void Fail(const std::string& why) {
  ++g_failed;
  if (!g_why) g_why = new std::string(why);
}

// What one marker costs on this device, for replay: STRATA_REGIONS_RECORD_CYCLES, else the
// calibration kernel run once (its own module, buffer and stream; the runtime's own launch is
// marked internal like its copies), else 0 (no replay). Under g_mu.
void SettleRecordCostLocked() {
  if (g_record_cost >= 0) return;
  g_record_cost = 0;
  if (const char* c = getenv("STRATA_REGIONS_RECORD_CYCLES"); c && *c) {
    g_record_cost = atof(c);
    g_cost_source = new std::string("STRATA_REGIONS_RECORD_CYCLES");
    return;
  }
#if defined(STRATA_HAVE_CALIBRATION_PTX)
  CudaDriver& d = *g_drv;
  if (!d.ModuleLoadData || !d.ModuleGetFunction || !d.LaunchKernel || !d.StreamCreate || !d.StreamSynchronize ||
      !d.MemcpyHtoD) {
    g_cost_source = new std::string("no replay: the driver lacks an entry point the calibration needs");
    return;
  }
  std::string entry;
  if (const char* e = strstr(kCalibrationPtx, ".entry ")) {
    e += 7;
    while (*e && *e != '(' && *e != ' ' && *e != '\n') entry += *e++;
  }
  constexpr uint32_t kN = 200;  // as the harness: 4n + 6 records fit the kernel's 1024
  const size_t bytes = 64 + 96 + 8 * (4 * kN + 6) + 4096;
  CUmodule m = nullptr;
  CUfunction fn = nullptr;
  CUdeviceptr desc = 0, buf = 0;
  size_t desc_bytes = 0;
  CUstream s = nullptr;
  std::string why;
  if (d.ModuleLoadData(&m, kCalibrationPtx) != CUDA_SUCCESS) why = "cuModuleLoadData of the calibration PTX failed";
  else if (d.ModuleGetFunction(&fn, m, entry.c_str()) != CUDA_SUCCESS) why = "calibration kernel not found";
  else if (d.ModuleGetGlobal(&desc, &desc_bytes, m, "strata_region_buffer") != CUDA_SUCCESS) why = "no descriptor in the calibration module";
  else if (d.MemAlloc(&buf, bytes) != CUDA_SUCCESS || d.StreamCreate(&s, 0x1 /*non-blocking*/) != CUDA_SUCCESS) why = "no memory or stream for the calibration";
  if (why.empty()) {
    Desc dd{buf, bytes, 0, 0};
    uint32_t n = kN;
    void* args[] = {&n};
    std::vector<uint8_t> host(bytes);
    if (d.MemsetD8Async(buf, 0, bytes, s) != CUDA_SUCCESS || d.MemcpyHtoD(desc, &dd, sizeof(dd)) != CUDA_SUCCESS ||
        d.LaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, s, args, nullptr) != CUDA_SUCCESS ||
        d.MemcpyDtoHAsync(host.data(), buf, bytes, s) != CUDA_SUCCESS || d.StreamSynchronize(s) != CUDA_SUCCESS) {
      why = "the calibration launch failed";
    } else {
      region_decoder::Trace t = region_decoder::Decode(host.data(), host.size());
      double c = region_decoder::CalibrateRecordCost(t);
      if (c > 0) {
        g_record_cost = c;
        char text[96];
        snprintf(text, sizeof(text), "calibration kernel: %.1f cycles per record", c);
        g_cost_source = new std::string(text);
      } else {
        why = "the calibration buffer did not decode";
      }
    }
  }
  if (!why.empty()) g_cost_source = new std::string("no replay: " + why);
  if (s && d.StreamDestroy) d.StreamDestroy(s);
  if (buf) d.MemFree(buf);
  if (m && d.ModuleUnload) d.ModuleUnload(m);
#else
  g_cost_source = new std::string("no replay: runtime built without nvcc (no calibration kernel)");
#endif
}

}  // namespace

bool Configure() {
  const char* v = getenv("STRATA_REGIONS");
  if (!v || !*v || strcmp(v, "0") == 0 || strcmp(v, "off") == 0) return false;
  std::lock_guard<std::mutex> lock(g_mu);
  g_filter = new std::string(strcmp(v, "all") == 0 || strcmp(v, "1") == 0 ? "" : v);
  g_every = uint32_t(EnvNumber("STRATA_REGIONS_EVERY", 1));
  if (g_every == 0) g_every = 1;
  g_max = uint32_t(EnvNumber("STRATA_REGIONS_MAX", 8));
  g_bytes = size_t(EnvNumber("STRATA_REGIONS_BYTES", 16u << 20));
  if (g_bytes < 4096) g_bytes = 4096;
  g_modules = new std::unordered_map<CUmodule, Module>();
  g_kernels = new std::unordered_map<std::string, Kernel>();
  g_inflight = new std::vector<InFlight>();
  g_done = new std::vector<Capture>();
  g_captured_corrs = new std::unordered_set<uint32_t>();
  g_on = true;
  return true;
}

bool On() { return g_on; }

bool InternalCall() { return t_internal_cuda > 0; }

void OnLaunchEnter(CUpti_CallbackId cbid, const CUpti_CallbackData* cb, uint32_t corr, uint32_t outer) {
  t_armed.on = false;
  if (!g_on) return;
  CUfunction f = nullptr;
  CUstream stream = StreamOf(cbid, cb->functionParams, &f);
  std::lock_guard<std::mutex> lock(g_mu);
  ++g_launches_seen;
  if (!f) return;
  if (!g_driver_tried) {
    g_driver_tried = true;
    g_drv = new CudaDriver();
    if (!LoadCudaDriver(g_drv)) Fail("the CUDA driver lacks an entry point the capture needs");
  }
  if (!g_drv->ok) return;
  InternalScope internal;
  const Module& mod = ModuleOfLocked(f);
  if (!mod.desc) return;
  std::string kernel = cb->symbolName ? cb->symbolName : "";
  ++g_instrumented_launches;
  if (!g_filter->empty() && kernel.find(*g_filter) == std::string::npos) return;
  Kernel& k = (*g_kernels)[kernel];
  uint64_t index = k.launches++;
  if (index % g_every != 0 || k.captured >= g_max) return;
  SettleRecordCostLocked();
  InFlight fl;
  fl.corr = corr;
  fl.outer = outer;
  CUdevice dev = 0;
  if (g_drv->CtxGetDevice && g_drv->DeviceGetAttribute && g_drv->CtxGetDevice(&dev) == CUDA_SUCCESS)
    g_drv->DeviceGetAttribute(&fl.clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev);
  fl.kernel = kernel;
  fl.names = mod.names;
  fl.capacity = g_bytes;
  if (g_drv->MemAlloc(&fl.buf, g_bytes) != CUDA_SUCCESS) { Fail("cuMemAlloc of the region buffer failed"); return; }
  if (g_drv->MemAllocHost(&fl.host, g_bytes) != CUDA_SUCCESS || g_drv->EventCreate(&fl.done, 0x2 /*disable timing*/) != CUDA_SUCCESS) {
    g_drv->MemFree(fl.buf);
    if (fl.host) g_drv->MemFreeHost(fl.host);
    Fail("pinned host memory or an event for the region buffer could not be made");
    return;
  }
  // On the launch's stream, before the launch is queued: a zeroed buffer, then the descriptor.
  Desc d{fl.buf, g_bytes, 0, 0};
  if (g_drv->MemsetD8Async(fl.buf, 0, g_bytes, stream) != CUDA_SUCCESS ||
      g_drv->MemcpyHtoDAsync(mod.desc, &d, sizeof(d), stream) != CUDA_SUCCESS) {
    Fail("setting the region buffer on the launch's stream failed");
    return;
  }
  ++k.captured;
  g_captured_corrs->insert(corr);
  g_captured_corrs->insert(outer);
  t_armed.on = true;
  t_armed.desc = mod.desc;
  t_armed.stream = stream;
  t_armed.f = std::move(fl);
}

void OnLaunchExit(CUpti_CallbackId, const CUpti_CallbackData*) {
  if (!t_armed.on) return;
  t_armed.on = false;
  std::lock_guard<std::mutex> lock(g_mu);
  InternalScope internal;
  // After the kernel on its stream: nothing recorded by later launches, then the copy back.
  static const Desc kOff{0, 0, 0, 0};
  InFlight& f = t_armed.f;
  if (g_drv->MemcpyHtoDAsync(t_armed.desc, &kOff, sizeof(kOff), t_armed.stream) != CUDA_SUCCESS ||
      g_drv->MemcpyDtoHAsync(f.host, f.buf, f.capacity, t_armed.stream) != CUDA_SUCCESS ||
      g_drv->EventRecord(f.done, t_armed.stream) != CUDA_SUCCESS) {
    Fail("queuing the region buffer's copy back failed");
    return;
  }
  g_inflight->push_back(std::move(f));
  t_armed.f = InFlight();
}

void Harvest(bool wait) {
  if (!g_on) return;
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_drv || !g_drv->ok || g_inflight->empty()) return;
  InternalScope internal;
  std::vector<InFlight> still;
  for (InFlight& f : *g_inflight) {
    CUresult r = wait ? g_drv->EventSynchronize(f.done) : g_drv->EventQuery(f.done);
    if (r == CUDA_ERROR_NOT_READY) { still.push_back(std::move(f)); continue; }
    if (r == CUDA_SUCCESS) {
      const auto* h = static_cast<const uint8_t*>(f.host);
      uint64_t used = 0;
      memcpy(&used, h + 16, sizeof(used));  // header: bytes reserved after the 64-byte header
      size_t n = used + 64 < f.capacity ? size_t(used) + 64 : f.capacity;
      Capture c;
      c.corr = f.corr;
      c.outer = f.outer;
      c.clock_khz = f.clock_khz;
      c.kernel = f.kernel;
      c.names = f.names;
      c.bytes.assign(h, h + n);
      g_done->push_back(std::move(c));
      ++g_captured;
    } else {
      Fail("the region buffer's copy back failed");
    }
    g_drv->EventDestroy(f.done);
    g_drv->MemFreeHost(f.host);
    g_drv->MemFree(f.buf);
  }
  g_inflight->swap(still);
}

bool Captured(uint32_t corr) {
  if (!g_on) return false;
  std::lock_guard<std::mutex> lock(g_mu);
  return g_captured_corrs->count(corr) != 0;
}

std::vector<Capture> TakeCaptures() {
  std::lock_guard<std::mutex> lock(g_mu);
  std::vector<Capture> out;
  if (g_done) out.swap(*g_done);
  return out;
}

double RecordCostCycles() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_record_cost > 0 ? g_record_cost : 0;
}

std::string StatusLine() {
  const char* v = getenv("STRATA_REGIONS");
  if (!g_on) return v && *v && strcmp(v, "0") != 0 ? "not collected: GPU collection is off (see gpu)" : "off (strata record --regions)";
  std::lock_guard<std::mutex> lock(g_mu);
  std::string s = "collected: " + std::to_string(g_captured) + " launches captured of " +
                  std::to_string(g_instrumented_launches) + " instrumented launches of " +
                  std::to_string(g_launches_seen) + " driver launches seen" +
                  (g_last_lookup_error ? " [lookup " + std::to_string(g_last_lookup_error) + ", modules " + std::to_string(g_modules->size()) + "]" : std::string()) +
                  " (every " + std::to_string(g_every) +
                  ", at most " + std::to_string(g_max) + " per kernel, " + std::to_string(g_bytes >> 10) + " KiB each" +
                  (g_filter && !g_filter->empty() ? ", kernels matching \"" + *g_filter + "\"" : std::string()) + ")";
  if (g_cost_source) s += "; replay: " + *g_cost_source;
  if (g_failed) s += "; " + std::to_string(g_failed) + " failed: " + (g_why ? *g_why : std::string("?"));
  return s;
}

}  // namespace strata::rt::gpu::regions
