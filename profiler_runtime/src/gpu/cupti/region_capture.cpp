#include "gpu/cupti/region_capture.h"

#include <cupti.h>  // brings cuda.h and the launch parameter structs (generated_cuda_meta.h)

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "common/log.h"
#include "common/tls.h"
#include "gpu/driver/cuda_driver.h"
#include "gpu/cupti/cupti_session.h"
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

}  // namespace

// Everything the region capture keeps for the process (one per CUPTI session).
struct State {
  std::mutex mu;
  bool on = false;
  std::string* filter = nullptr;
  uint32_t every = 1, max = 8;
  size_t bytes = 16u << 20;
  CudaDriver* drv = nullptr;
  bool drv_ok = false;  // the entry points the capture needs are there
  bool driver_tried = false;
  std::unordered_map<CUmodule, Module>* modules = nullptr;
  std::unordered_map<std::string, Kernel>* kernels = nullptr;
  std::vector<InFlight>* inflight = nullptr;
  std::vector<Capture>* done = nullptr;
  std::unordered_set<uint32_t>* captured_corrs = nullptr;  // launches handed a buffer (both ids)
  uint64_t captured = 0, failed = 0, instrumented_launches = 0, launches_seen = 0;
  int last_lookup_error = 0;
  std::string* why = nullptr;

  double record_cost = -1;        // cycles per record for replay; -1: not settled yet
  std::string* cost_source = nullptr;
};

State* NewState() { return new State(); }

namespace {

State& S() { return *CuptiSession::Get()->region_capture_state; }

// What the capture cannot go without: its buffers, their zeroing and copies, the events that tell
// a launch finished. The calibration kernel's entry points are optional (no calibration).
bool HasCaptureEntryPoints(const CudaDriver& d) {
  return d.FuncGetModule && d.ModuleGetGlobal && d.MemAlloc && d.MemFree && d.MemAllocHost && d.MemFreeHost &&
         d.MemsetD8Async && d.MemcpyHtoDAsync && d.MemcpyDtoHAsync && d.MemcpyDtoH && d.EventCreate && d.EventRecord &&
         d.EventQuery && d.EventSynchronize && d.EventDestroy;
}

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
  CUresult r = S().drv->FuncGetModule(&m, f);
  // The CUDA runtime (12+) launches through context-independent CUkernel handles: the
  // launch's "function" is then a CUkernel, whose function in this context has the module.
  if (r != CUDA_SUCCESS && S().drv->KernelGetFunction) {
    CUfunction g = nullptr;
    if (S().drv->KernelGetFunction(&g, reinterpret_cast<CUkernel>(f)) == CUDA_SUCCESS && g) r = S().drv->FuncGetModule(&m, g);
  }
  if (r != CUDA_SUCCESS || !m) {
    S().last_lookup_error = 1000 + int(r);
    return kNone;
  }
  auto it = S().modules->find(m);
  if (it != S().modules->end()) return it->second;
  Module mod;
  CUdeviceptr p = 0;
  size_t bytes = 0;
  CUresult gr = S().drv->ModuleGetGlobal(&p, &bytes, m, "strata_region_buffer");
  if (gr != CUDA_SUCCESS || bytes != sizeof(Desc)) S().last_lookup_error = gr != CUDA_SUCCESS ? 2000 + int(gr) : 3000 + int(bytes);
  if (gr == CUDA_SUCCESS && bytes == sizeof(Desc)) {
    mod.desc = p;
    CUdeviceptr np = 0;
    size_t nbytes = 0;
    if (S().drv->ModuleGetGlobal(&np, &nbytes, m, "strata_region_names") == CUDA_SUCCESS && nbytes > 0 &&
        nbytes < (1u << 20)) {
      std::string s(nbytes, '\0');
      if (S().drv->MemcpyDtoH(s.data(), np, nbytes) == CUDA_SUCCESS) {
        s.resize(strnlen(s.c_str(), s.size()));
        mod.names = region_decoder::ParseNameTable(s);
      }
    }
  }
  return S().modules->emplace(m, std::move(mod)).first->second;
}

void Fail(const std::string& why) {
  ++S().failed;
  if (!S().why) S().why = new std::string(why);
}

// What one marker costs on this device, for replay: STRATA_REGIONS_RECORD_CYCLES, else the
// calibration kernel run once (its own module, buffer and stream; the runtime's own launch is
// marked internal like its copies), else 0 (no replay). Under the state's mu.
void SettleRecordCostLocked() {
  if (S().record_cost >= 0) return;
  S().record_cost = 0;
  if (const char* c = getenv("STRATA_REGIONS_RECORD_CYCLES"); c && *c) {
    S().record_cost = atof(c);
    S().cost_source = new std::string("STRATA_REGIONS_RECORD_CYCLES");
    return;
  }
#if defined(STRATA_HAVE_CALIBRATION_PTX)
  CudaDriver& d = *S().drv;
  if (!d.ModuleLoadData || !d.ModuleGetFunction || !d.LaunchKernel || !d.StreamCreate || !d.StreamSynchronize ||
      !d.MemcpyHtoD) {
    S().cost_source = new std::string("no replay: the driver lacks an entry point the calibration needs");
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
        S().record_cost = c;
        char text[96];
        snprintf(text, sizeof(text), "calibration kernel: %.1f cycles per record", c);
        S().cost_source = new std::string(text);
      } else {
        why = "the calibration buffer did not decode";
      }
    }
  }
  if (!why.empty()) S().cost_source = new std::string("no replay: " + why);
  if (s && d.StreamDestroy) d.StreamDestroy(s);
  if (buf) d.MemFree(buf);
  if (m && d.ModuleUnload) d.ModuleUnload(m);
#else
  S().cost_source = new std::string("no replay: runtime built without nvcc (no calibration kernel)");
#endif
}

}  // namespace

bool Configure() {
  const char* v = getenv("STRATA_REGIONS");
  if (!v || !*v || strcmp(v, "0") == 0 || strcmp(v, "off") == 0) return false;
  std::lock_guard<std::mutex> lock(S().mu);
  S().filter = new std::string(strcmp(v, "all") == 0 || strcmp(v, "1") == 0 ? "" : v);
  S().every = uint32_t(EnvNumber("STRATA_REGIONS_EVERY", 1));
  if (S().every == 0) S().every = 1;
  S().max = uint32_t(EnvNumber("STRATA_REGIONS_MAX", 8));
  S().bytes = size_t(EnvNumber("STRATA_REGIONS_BYTES", 16u << 20));
  if (S().bytes < 4096) S().bytes = 4096;
  S().modules = new std::unordered_map<CUmodule, Module>();
  S().kernels = new std::unordered_map<std::string, Kernel>();
  S().inflight = new std::vector<InFlight>();
  S().done = new std::vector<Capture>();
  S().captured_corrs = new std::unordered_set<uint32_t>();
  S().on = true;
  return true;
}

bool On() { return S().on; }

bool InternalCall() { return t_internal_cuda > 0; }

void OnLaunchEnter(CUpti_CallbackId cbid, const CUpti_CallbackData* cb, uint32_t corr, uint32_t outer) {
  t_armed.on = false;
  if (!S().on) return;
  CUfunction f = nullptr;
  CUstream stream = StreamOf(cbid, cb->functionParams, &f);
  std::lock_guard<std::mutex> lock(S().mu);
  ++S().launches_seen;
  if (!f) return;
  if (!S().driver_tried) {
    S().driver_tried = true;
    S().drv = new CudaDriver();
    S().drv_ok = LoadCudaDriver(S().drv) && HasCaptureEntryPoints(*S().drv);
    if (!S().drv_ok) Fail("the CUDA driver lacks an entry point the capture needs");
  }
  if (!S().drv_ok) return;
  InternalScope internal;
  const Module& mod = ModuleOfLocked(f);
  if (!mod.desc) return;
  std::string kernel = cb->symbolName ? cb->symbolName : "";
  ++S().instrumented_launches;
  if (!S().filter->empty() && kernel.find(*S().filter) == std::string::npos) return;
  Kernel& k = (*S().kernels)[kernel];
  uint64_t index = k.launches++;
  if (index % S().every != 0 || k.captured >= S().max) return;
  SettleRecordCostLocked();
  InFlight fl;
  fl.corr = corr;
  fl.outer = outer;
  CUdevice dev = 0;
  if (S().drv->CtxGetDevice && S().drv->DeviceGetAttribute && S().drv->CtxGetDevice(&dev) == CUDA_SUCCESS)
    S().drv->DeviceGetAttribute(&fl.clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev);
  fl.kernel = kernel;
  fl.names = mod.names;
  fl.capacity = S().bytes;
  if (S().drv->MemAlloc(&fl.buf, S().bytes) != CUDA_SUCCESS) { Fail("cuMemAlloc of the region buffer failed"); return; }
  if (S().drv->MemAllocHost(&fl.host, S().bytes) != CUDA_SUCCESS || S().drv->EventCreate(&fl.done, 0x2 /*disable timing*/) != CUDA_SUCCESS) {
    S().drv->MemFree(fl.buf);
    if (fl.host) S().drv->MemFreeHost(fl.host);
    Fail("pinned host memory or an event for the region buffer could not be made");
    return;
  }
  // On the launch's stream, before the launch is queued: a zeroed buffer, then the descriptor.
  Desc d{fl.buf, S().bytes, 0, 0};
  if (S().drv->MemsetD8Async(fl.buf, 0, S().bytes, stream) != CUDA_SUCCESS ||
      S().drv->MemcpyHtoDAsync(mod.desc, &d, sizeof(d), stream) != CUDA_SUCCESS) {
    Fail("setting the region buffer on the launch's stream failed");
    return;
  }
  ++k.captured;
  S().captured_corrs->insert(corr);
  S().captured_corrs->insert(outer);
  t_armed.on = true;
  t_armed.desc = mod.desc;
  t_armed.stream = stream;
  t_armed.f = std::move(fl);
}

void OnLaunchExit(CUpti_CallbackId, const CUpti_CallbackData*) {
  if (!t_armed.on) return;
  t_armed.on = false;
  std::lock_guard<std::mutex> lock(S().mu);
  InternalScope internal;
  // After the kernel on its stream: nothing recorded by later launches, then the copy back.
  static const Desc kOff{0, 0, 0, 0};
  InFlight& f = t_armed.f;
  if (S().drv->MemcpyHtoDAsync(t_armed.desc, &kOff, sizeof(kOff), t_armed.stream) != CUDA_SUCCESS ||
      S().drv->MemcpyDtoHAsync(f.host, f.buf, f.capacity, t_armed.stream) != CUDA_SUCCESS ||
      S().drv->EventRecord(f.done, t_armed.stream) != CUDA_SUCCESS) {
    Fail("queuing the region buffer's copy back failed");
    return;
  }
  S().inflight->push_back(std::move(f));
  t_armed.f = InFlight();
}

void Harvest(bool wait) {
  if (!S().on) return;
  std::lock_guard<std::mutex> lock(S().mu);
  if (!S().drv_ok || S().inflight->empty()) return;
  InternalScope internal;
  std::vector<InFlight> still;
  for (InFlight& f : *S().inflight) {
    CUresult r = wait ? S().drv->EventSynchronize(f.done) : S().drv->EventQuery(f.done);
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
      S().done->push_back(std::move(c));
      ++S().captured;
    } else {
      Fail("the region buffer's copy back failed");
    }
    S().drv->EventDestroy(f.done);
    S().drv->MemFreeHost(f.host);
    S().drv->MemFree(f.buf);
  }
  S().inflight->swap(still);
}

bool Captured(uint32_t corr) {
  if (!S().on) return false;
  std::lock_guard<std::mutex> lock(S().mu);
  return S().captured_corrs->count(corr) != 0;
}

std::vector<Capture> TakeCaptures() {
  std::lock_guard<std::mutex> lock(S().mu);
  std::vector<Capture> out;
  if (S().done) out.swap(*S().done);
  return out;
}

double RecordCostCycles() {
  std::lock_guard<std::mutex> lock(S().mu);
  return S().record_cost > 0 ? S().record_cost : 0;
}

std::string StatusLine() {
  const char* v = getenv("STRATA_REGIONS");
  if (!CuptiSession::Get() || !S().on) return v && *v && strcmp(v, "0") != 0 ? "not collected: GPU collection is off (see gpu)" : "off (strata record --regions)";
  std::lock_guard<std::mutex> lock(S().mu);
  std::string s = "collected: " + std::to_string(S().captured) + " launches captured of " +
                  std::to_string(S().instrumented_launches) + " instrumented launches of " +
                  std::to_string(S().launches_seen) + " driver launches seen" +
                  (S().last_lookup_error ? " [lookup " + std::to_string(S().last_lookup_error) + ", modules " + std::to_string(S().modules->size()) + "]" : std::string()) +
                  " (every " + std::to_string(S().every) +
                  ", at most " + std::to_string(S().max) + " per kernel, " + std::to_string(S().bytes >> 10) + " KiB each" +
                  (S().filter && !S().filter->empty() ? ", kernels matching \"" + *S().filter + "\"" : std::string()) + ")";
  if (S().cost_source) s += "; replay: " + *S().cost_source;
  if (S().failed) s += "; " + std::to_string(S().failed) + " failed: " + (S().why ? *S().why : std::string("?"));
  return s;
}

}  // namespace strata::rt::gpu::regions
