#include "strata/replay/replay.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>

#include "replay_driver.h"
#include "strata/replay/address_plan.h"
#include "strata/replay/device_check.h"
#include "strata/replay/l2_evict_kernel.h"
#include "strata/snapshot/reader.h"
#include "strata/snapshot/wait_kernel.h"

namespace strata::replay {
namespace {

// A replayed kernel (or a launch before it) that takes longer than this is taken to hang, unless
// a debugger traces the replay (`strata trace` single-steps the kernel under cuda-gdb for minutes).
constexpr int kFinishLimitS = 30;

bool UnderADebugger() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return false;
  char line[256];
  long tracer = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "TracerPid: %ld", &tracer) == 1) break;
  std::fclose(f);
  return tracer != 0;
}


std::string Hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// The parameter a byte offset of the parameter buffer belongs to, for messages.
std::string ParamAt(const snapshot::Snapshot& s, uint32_t offset) {
  for (size_t i = 0; i < s.params.size(); ++i)
    if (offset >= s.params[i].offset && offset < s.params[i].offset + s.params[i].size)
      return "parameter " + std::to_string(i) + " (byte " + std::to_string(offset) + ")";
  return "byte " + std::to_string(offset) + " of the parameters";
}

std::string Where(const snapshot::Snapshot& s, const snapshot::PointerWord& w) {
  return w.in_region < 0 ? ParamAt(s, w.offset)
                         : "byte " + std::to_string(w.offset) + " of region " + std::to_string(w.in_region);
}

// Launch attributes that name objects of the snapped process (events) or its stream, or a
// graph: not replayable, dropped.
bool Replayable(uint32_t id) {
  return id != CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT && id != CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT &&
         id != CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE && id != CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY &&
         id != CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW && id != CU_LAUNCH_ATTRIBUTE_IGNORE;
}

void Patch(std::string* bytes, uint32_t offset, uint64_t from, uint64_t to) {
  if (offset + 8 > bytes->size()) return;
  uint64_t v;
  std::memcpy(&v, bytes->data() + offset, 8);
  if (v == from) std::memcpy(bytes->data() + offset, &to, 8);
}

class Session {
 public:
  Session(const ReplayOptions& o, const std::function<void(const std::string&)>& progress) : o_(o), progress_(progress) {}

  ReplayResult Run() {
    s_ = snapshot::Read(o_.file);
    r_.kernel = s_.kernel;
    r_.in_run_ns = s_.in_run_ns;
    for (const auto& q : s_.preludes) prelude_buffers_.push_back(q.param_buffer);
    CheckPointers();
    if (o_.l2 == L2State::kPrelude && s_.preludes.empty())
      throw ReplayError("--l2 prelude: the snapshot has no launch before the snapped one (" + s_.preludes_why_not + ")");
    d_.Load();
    d_.Check(d_.Init(0), "cuInit");
    d_.Check(d_.DeviceGet(&dev_, 0), "cuDeviceGet");
    snapshot::Device here;
    char name[256] = {};
    d_.DeviceGetName(name, sizeof name, dev_);
    here.name = name;
    d_.DeviceGetAttribute(&here.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev_);
    d_.DeviceGetAttribute(&here.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev_);
    d_.DriverGetVersion(&here.driver_version);
    r_.device = here.name;
    if (std::string why = CheckDevice(s_.device, here, o_.any_driver); !why.empty()) throw ReplayError(why);
    d_.Check(d_.DevicePrimaryCtxRetain(&ctx_, dev_), "cuDevicePrimaryCtxRetain");
    d_.Check(d_.CtxSetCurrent(ctx_), "cuCtxSetCurrent");
    // The snapped addresses first, before the replay allocates anything of its own.
    Place();
    Restorable();
    LoadKernel();
    d_.Check(d_.StreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    Correctness();
    if (o_.l2 == L2State::kPrelude) CheckPreludes();
    Time();
    return r_;
  }

 private:
  void Say(const std::string& m) {
    if (progress_) progress_(m);
  }

  void CheckPointers() {
    if (!s_.image.present || s_.image.size == 0) throw ReplayError(o_.file + ": the snapshot holds no module image");
    for (const auto& w : s_.pointers) {
      if (w.kind == snapshot::WordKind::kHost)
        r_.warnings.push_back(Where(s_, w) + " holds " + Hex(w.value) +
                              ", an address in pinned host memory, which a replay does not restore: if the kernel uses it, the replay faults");
      if (w.kind == snapshot::WordKind::kUnresolved)
        r_.warnings.push_back(Where(s_, w) + " holds " + Hex(w.value) +
                              ", which no device allocation held at the snap: if the kernel dereferences it, the replay faults");
    }
    for (size_t i = 0; i < s_.regions.size(); ++i)
      if (!s_.regions[i].saved)
        r_.warnings.push_back("region " + std::to_string(i) + " (" + Hex(s_.regions[i].base) + ", " +
                              std::to_string(s_.regions[i].size) + " bytes) was over the snapshot's size bound: replayed as zeros");
  }

  // Each region at its snapped address (reserved and mapped), or, where that cannot be had,
  // every region anywhere with the known pointers patched.
  void Place() {
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev_;
    size_t gran = 0;
    d_.Check(d_.MemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "cuMemGetAllocationGranularity");
    base_.assign(s_.regions.size(), 0);
    std::string why;
    if (!o_.relocate) {
      std::vector<Span> reserved;
      for (const Span& sp : PlanSpans(s_.regions, gran)) {
        CUdeviceptr got = 0;
        // The alignment named (the default one can be coarser than the snapped address's).
        CUresult e = d_.MemAddressReserve(&got, sp.size, gran, CUdeviceptr(sp.start), 0);
        if (e != CUDA_SUCCESS || got != sp.start) {
          if (e == CUDA_SUCCESS) d_.MemAddressFree(got, sp.size);
          why = "the snapped range " + Hex(sp.start) + "+" + std::to_string(sp.size) + " could not be reserved (" +
                (e != CUDA_SUCCESS ? d_.Name(e) : "the driver offered " + Hex(got)) + ")";
          break;
        }
        reserved.push_back(sp);
      }
      if (why.empty()) {
        for (const Span& sp : reserved) {
          CUmemGenericAllocationHandle h = 0;
          d_.Check(d_.MemCreate(&h, sp.size, &prop, 0), "cuMemCreate");
          d_.Check(d_.MemMap(CUdeviceptr(sp.start), sp.size, 0, h, 0), "cuMemMap");
          CUmemAccessDesc access{};
          access.location = prop.location;
          access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
          d_.Check(d_.MemSetAccess(CUdeviceptr(sp.start), sp.size, &access, 1), "cuMemSetAccess");
        }
        for (size_t i = 0; i < s_.regions.size(); ++i) base_[i] = s_.regions[i].base;
        Say("memory: " + std::to_string(s_.regions.size()) + " regions at their snapped addresses (" +
            std::to_string(reserved.size()) + " ranges reserved)");
        return;
      }
      for (const Span& sp : reserved) d_.MemAddressFree(CUdeviceptr(sp.start), sp.size);
    }
    r_.same_addresses = false;
    for (size_t i = 0; i < s_.regions.size(); ++i) {
      CUdeviceptr p = 0;
      d_.Check(d_.MemAlloc(&p, s_.regions[i].size), "cuMemAlloc of a region");
      base_[i] = p;
    }
    for (const auto& w : s_.pointers) {
      if (w.kind != snapshot::WordKind::kDevice || w.in_region >= 0 || w.encoding != snapshot::Encoding::kRaw) continue;
      Patch(&s_.param_buffer, w.offset, w.value, base_[w.region] + (w.value - s_.regions[w.region].base));
    }
    for (size_t i = 0; i < s_.preludes.size(); ++i)
      for (const auto& w : s_.preludes[i].pointers) {
        if (w.kind != snapshot::WordKind::kDevice || w.encoding != snapshot::Encoding::kRaw) continue;
        Patch(&prelude_buffers_[i], w.offset, w.value, base_[w.region] + (w.value - s_.regions[w.region].base));
      }
    r_.warnings.push_back((why.empty() ? std::string("--relocate") : why) +
                          ": regions placed elsewhere and the pointers found in the parameters and small regions patched; "
                          "addresses stored elsewhere (in large regions, or encoded in a TMA descriptor) still point to the old place");
    Say("memory: regions relocated");
  }

  std::string Patched(size_t region, std::string bytes) const {
    if (r_.same_addresses) return bytes;
    for (const auto& w : s_.pointers)
      if (w.kind == snapshot::WordKind::kDevice && w.in_region == int32_t(region) && w.encoding == snapshot::Encoding::kRaw)
        Patch(&bytes, w.offset, w.value, base_[w.region] + (w.value - s_.regions[w.region].base));
    return bytes;
  }

  // A device copy of each region's before-state, restored before every launch.
  void Restorable() {
    golden_.assign(s_.regions.size(), 0);
    uint64_t total = 0;
    for (size_t i = 0; i < s_.regions.size(); ++i) {
      const auto& g = s_.regions[i];
      if (!g.saved) {
        d_.Check(d_.MemsetD8(CUdeviceptr(base_[i]), 0, g.size), "zeroing a region without contents");
        continue;
      }
      std::string bytes = Patched(i, snapshot::ReadData(o_.file, s_.before[i]));
      d_.Check(d_.MemAlloc(&golden_[i], g.size), "cuMemAlloc of a region's restore copy");
      d_.Check(d_.MemcpyHtoD(golden_[i], bytes.data(), bytes.size()), "copying a region to the GPU");
      total += g.size;
    }
    Say("restore copies: " + std::to_string(total) + " bytes");
  }

  void LoadKernel() {
    std::string image = snapshot::ReadData(o_.file, s_.image);
    CUmodule m = nullptr;
    d_.Check(d_.ModuleLoadData(&m, image.data()), "cuModuleLoadData of the snapped image");
    if (CUresult e = d_.ModuleGetFunction(&fn_, m, s_.kernel.c_str()); e != CUDA_SUCCESS)
      throw ReplayError("the snapped image does not define " + s_.kernel + " (" + d_.Name(e) + ")");
    int dynamic_max = 0;
    for (const auto& a : s_.function_attributes) {
      auto id = CUfunction_attribute(a.id);
      if (id == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) dynamic_max = a.value;
      else if (id == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT || id == CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED ||
               id == CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE) {
        if (CUresult e = d_.FuncSetAttribute(fn_, id, a.value); e != CUDA_SUCCESS)
          r_.warnings.push_back("function attribute " + std::to_string(a.id) + " = " + std::to_string(a.value) + " not set: " + d_.Name(e));
      }
    }
    dynamic_max = std::max<int>(dynamic_max, int(s_.launch.shared_bytes));
    if (dynamic_max > 0)
      d_.Check(d_.FuncSetAttribute(fn_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamic_max),
               "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    kernel_ = Prepare(fn_, s_.launch, s_.launch_attributes, s_.params, &s_.param_buffer);
    if (o_.l2 == L2State::kPrelude) LoadPreludes(m);
  }

  void Restore() {
    for (size_t i = 0; i < s_.regions.size(); ++i) {
      if (s_.regions[i].saved)
        d_.Check(d_.MemcpyDtoDAsync(CUdeviceptr(base_[i]), golden_[i], s_.regions[i].size, stream_), "restoring a region");
    }
  }

  // One kernel as launched in the run: its configuration, attributes and parameter buffer.
  struct Launchable {
    CUfunction fn = nullptr;
    const snapshot::LaunchConfig* config = nullptr;
    const std::vector<snapshot::LaunchAttribute>* attributes = nullptr;
    const std::vector<snapshot::Param>* params = nullptr;
    std::string* buffer = nullptr;
    std::vector<void*> args;
    size_t size = 0;
  };

  static Launchable Prepare(CUfunction fn, const snapshot::LaunchConfig& config,
                            const std::vector<snapshot::LaunchAttribute>& attributes,
                            const std::vector<snapshot::Param>& params, std::string* buffer) {
    Launchable k;
    k.fn = fn, k.config = &config, k.attributes = &attributes, k.params = &params, k.buffer = buffer;
    for (const auto& p : params) k.args.push_back(buffer->data() + p.offset);
    return k;
  }

  CUresult Launch() { return LaunchOne(&kernel_); }

  CUresult LaunchOne(Launchable* k) {
    const auto& l = *k->config;
    k->size = k->buffer->size();
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, k->buffer->data(), CU_LAUNCH_PARAM_BUFFER_SIZE, &k->size,
                     CU_LAUNCH_PARAM_END};
    // Parameters the driver could not describe (an `extra` buffer): passed as one buffer.
    void** kernel_params = k->params->empty() && !k->buffer->empty() ? nullptr : k->args.data();
    void** ex = kernel_params ? nullptr : extra;
    if (!l.ex) return d_.LaunchKernel(k->fn, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2], l.shared_bytes, stream_, kernel_params, ex);
    std::vector<CUlaunchAttribute> attrs;
    for (const auto& a : *k->attributes) {
      if (!Replayable(a.id)) continue;
      CUlaunchAttribute c{};
      c.id = CUlaunchAttributeID(a.id);
      std::memcpy(&c.value, a.value, sizeof c.value);
      attrs.push_back(c);
    }
    CUlaunchConfig c{};
    c.gridDimX = l.grid[0], c.gridDimY = l.grid[1], c.gridDimZ = l.grid[2];
    c.blockDimX = l.block[0], c.blockDimY = l.block[1], c.blockDimZ = l.block[2];
    c.sharedMemBytes = l.shared_bytes;
    c.hStream = stream_;
    c.attrs = attrs.empty() ? nullptr : attrs.data();
    c.numAttrs = unsigned(attrs.size());
    return d_.LaunchKernelEx(&c, k->fn, kernel_params, ex);
  }

  // The launches before the snapped one (--l2 prelude): loaded from their own images or the
  // snapped kernel's module. Run once on the restored state to see whether they leave the state
  // as the snap saw it (kernels that read their inputs and write only their outputs do).
  void LoadPreludes(CUmodule snapped) {
    std::vector<CUmodule> modules(s_.prelude_images.size(), nullptr);
    for (size_t i = 0; i < s_.preludes.size(); ++i) {
      const snapshot::Prelude& q = s_.preludes[i];
      if (!r_.same_addresses) {
        // Relocated, only raw words are patched: a descriptor (TMA) would still name the old
        // addresses, and the kernel could fault or wait forever on a copy that never lands (a
        // cuDNN convolution did, 2026-11-30). A parameter of 128 bytes or more may hold one
        // whose address the snap did not recognize.
        bool opaque = false;
        for (const auto& w : q.pointers) opaque |= w.kind == snapshot::WordKind::kDevice && w.encoding != snapshot::Encoding::kRaw;
        for (const auto& p : q.params) opaque |= p.size >= 128;
        if (opaque) {
          r_.warnings.push_back("--l2 prelude: " + q.kernel.substr(0, 100) +
                                " left out: the regions were relocated and its parameters may hold addresses in a descriptor (TMA), which are not patched");
          continue;
        }
      }
      CUmodule m = snapped;
      if (q.image >= 0) {
        CUmodule& own = modules[size_t(q.image)];
        if (!own) {
          std::string image = snapshot::ReadData(o_.file, s_.prelude_images[size_t(q.image)]);
          d_.Check(d_.ModuleLoadData(&own, image.data()), "cuModuleLoadData of a prelude's image");
        }
        m = own;
      }
      CUfunction f = nullptr;
      if (CUresult e = d_.ModuleGetFunction(&f, m, q.kernel.c_str()); e != CUDA_SUCCESS)
        throw ReplayError("--l2 prelude: its image does not define " + q.kernel + " (" + d_.Name(e) + ")");
      if (q.launch.shared_bytes > 0)
        d_.Check(d_.FuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(q.launch.shared_bytes)),
                 "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) of a prelude");
      preludes_.push_back(Prepare(f, q.launch, q.launch_attributes, q.params, &prelude_buffers_[i]));
      r_.prelude_kernels.push_back(q.kernel);
    }
  }

  void LaunchPreludes() {
    for (Launchable& k : preludes_)
      if (CUresult e = LaunchOne(&k); e != CUDA_SUCCESS) Failed(e, "(a launch before it, --l2 prelude) to launch");
  }

  // The first pass runs the launches before it one at a time, so that one that fails or never
  // finishes is named.
  void CheckPreludes() {
    Restore();
    for (size_t i = 0; i < preludes_.size(); ++i) {
      const std::string what = "the launch before it " + std::to_string(i + 1) + " of " + std::to_string(preludes_.size()) + " (" +
                               r_.prelude_kernels[i].substr(0, 100) + ", --l2 prelude)";
      if (CUresult e = LaunchOne(&preludes_[i]); e != CUDA_SUCCESS) Failed(e, ("(" + what + ") to launch").c_str());
      if (CUresult e = Finish(what); e != CUDA_SUCCESS) Failed(e, ("(" + what + ")").c_str());
    }
    std::string got;
    for (size_t i = 0; i < s_.regions.size(); ++i) {
      if (!s_.regions[i].saved) continue;
      std::string want = Patched(i, snapshot::ReadData(o_.file, s_.before[i]));
      got.resize(want.size());
      d_.Check(d_.MemcpyDtoH(got.data(), CUdeviceptr(base_[i]), got.size()), "copying a region back");
      if (got != want) ++r_.prelude_changed_regions;
    }
    if (r_.prelude_changed_regions)
      r_.warnings.push_back("the launches before it changed " + std::to_string(r_.prelude_changed_regions) +
                            " regions when replayed on the snapped state (they do not only recompute their outputs): "
                            "the timed launches read other values than the run's");
  }

  void Failed(CUresult e, const char* when) {
    std::string hint;
    for (const auto& w : s_.pointers)
      if (w.kind != snapshot::WordKind::kDevice) {
        hint = " (" + Where(s_, w) + " holds " + Hex(w.value) + ", " +
               (w.kind == snapshot::WordKind::kHost ? "pinned host memory the replay does not have)" : "which no allocation held at the snap)");
        break;
      }
    if (hint.empty() && !r_.same_addresses) hint = " (regions were relocated: a pointer the snap could not see still points to the old place)";
    throw ReplayError(std::string("the replayed kernel failed ") + when + ": " + d_.Name(e) + hint);
  }

  // Waits for the stream, at most kFinishLimitS: a replayed kernel that never finishes (it waits
  // on something the replay did not restore) ends the replay with a message, not a hang.
  CUresult Finish(const std::string& what) {
    static const bool traced = UnderADebugger();
    if (traced) return d_.StreamSynchronize(stream_);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(kFinishLimitS);
    for (;;) {
      CUresult e = d_.StreamQuery(stream_);
      if (e != CUDA_ERROR_NOT_READY) return e;
      if (std::chrono::steady_clock::now() > until)
        throw ReplayError(what + " did not finish within " + std::to_string(kFinishLimitS) +
                          " s: it waits on something the replay did not restore");
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

  void Correctness() {
    ElementType type;
    if (std::string why = ParseElementType(o_.dtype, &type); !why.empty()) throw ReplayError(why);
    Restore();
    if (CUresult e = Launch(); e != CUDA_SUCCESS) Failed(e, "to launch");
    if (CUresult e = Finish("the replayed kernel"); e != CUDA_SUCCESS) Failed(e, "");
    r_.matches = true;
    std::string got;
    for (size_t i = 0; i < s_.regions.size(); ++i) {
      RegionOutcome out;
      out.index = uint32_t(i);
      out.base = s_.regions[i].base;
      out.size = s_.regions[i].size;
      out.saved = s_.regions[i].saved;
      if (out.saved) {
        std::string want = Patched(i, snapshot::ReadData(o_.file, s_.after[i]));
        got.resize(want.size());
        d_.Check(d_.MemcpyDtoH(got.data(), CUdeviceptr(base_[i]), got.size()), "copying a region back");
        out.diff = CompareRegion(want.data(), got.data(), want.size(), type, o_.rtol, o_.atol);
        if (out.diff.bytes_differ && !out.diff.within_tolerance) r_.matches = false;
      }
      r_.regions.push_back(out);
    }
  }

  void Time() {
    if (o_.repeat <= 0) return;  // (`strata trace` replays once under cuda-gdb: nothing else to load)
    CUmodule spin_module = nullptr;
    CUfunction spin = nullptr;
    // Without timing kernels nothing is loaded: times include the launch's latency.
    if (o_.timing_kernels && (d_.ModuleLoadData(&spin_module, snapshot::kWaitKernelPtx) != CUDA_SUCCESS ||
                              d_.ModuleGetFunction(&spin, spin_module, snapshot::kWaitKernelName) != CUDA_SUCCESS)) {
      spin = nullptr;
      r_.warnings.push_back("the wait kernel did not load: times include the launch's latency on an idle stream");
    }
    uint64_t spin_ns = snapshot::kWaitKernelNs;
    void* spin_args[] = {&spin_ns};
    CUevent a = nullptr, b = nullptr;
    d_.Check(d_.EventCreate(&a, CU_EVENT_DEFAULT), "cuEventCreate");
    d_.Check(d_.EventCreate(&b, CU_EVENT_DEFAULT), "cuEventCreate");
    // Under an instrument (alone) the profile should hold the snapped kernel only: no scratch read.
    const bool clean = o_.l2 == L2State::kClean && o_.timing_kernels;
    if (o_.l2 == L2State::kClean && !clean) r_.l2_note = "launched alone: the L2 scratch read is left out, the L2 is as restored";
    CUfunction evict = clean ? EvictKernel() : nullptr;
    CUdeviceptr scratch = 0, sink = 0;
    uint64_t sectors = 0;
    if (evict) {
      int l2_bytes = 0;
      d_.Check(d_.DeviceGetAttribute(&l2_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev_), "cuDeviceGetAttribute(L2_CACHE_SIZE)");
      size_t bytes = 2 * size_t(std::max(l2_bytes, 1 << 20));
      sectors = bytes / kL2EvictSectorBytes;
      d_.Check(d_.MemAlloc(&scratch, bytes), "cuMemAlloc of the L2 scratch buffer");
      d_.Check(d_.MemAlloc(&sink, 4), "cuMemAlloc of the L2 scratch sink");
      d_.Check(d_.MemsetD8(scratch, 0, bytes), "zeroing the L2 scratch buffer");
    }
    void* evict_args[] = {&scratch, &sectors, &sink};
    if (o_.l2 == L2State::kBackToBack) Restore();
    for (int i = 0; i < o_.repeat; ++i) {
      if (o_.l2 != L2State::kBackToBack) Restore();
      if (o_.l2 == L2State::kPrelude) LaunchPreludes();
      if (evict) d_.Check(d_.LaunchKernel(evict, 1024, 1, 1, 256, 1, 1, 0, stream_, evict_args, nullptr), "launching the L2 scratch read");
      if (spin) d_.Check(d_.LaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, stream_, spin_args, nullptr), "launching the wait kernel");
      d_.Check(d_.EventRecord(a, stream_), "cuEventRecord");
      if (CUresult e = Launch(); e != CUDA_SUCCESS) Failed(e, "to launch");
      d_.Check(d_.EventRecord(b, stream_), "cuEventRecord");
      if (CUresult e = d_.EventSynchronize(b); e != CUDA_SUCCESS) Failed(e, "");
      float ms = 0;
      d_.Check(d_.EventElapsedTime(&ms, a, b), "cuEventElapsedTime");
      r_.times_ns.push_back(double(ms) * 1e6);
    }
    if (r_.times_ns.empty()) return;
    std::vector<double> t = r_.times_ns;
    std::sort(t.begin(), t.end());
    r_.min_ns = t.front();
    r_.median_ns = Median(t);
    CUfunction empty = nullptr;
    if (spin && d_.ModuleGetFunction(&empty, spin_module, snapshot::kEmptyKernelName) == CUDA_SUCCESS) {
      std::vector<double> f;
      for (int i = 0; i < 20; ++i) {
        d_.Check(d_.LaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, stream_, spin_args, nullptr), "launching the wait kernel");
        d_.Check(d_.EventRecord(a, stream_), "cuEventRecord");
        d_.Check(d_.LaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, stream_, nullptr, nullptr), "launching the empty kernel");
        d_.Check(d_.EventRecord(b, stream_), "cuEventRecord");
        d_.Check(d_.EventSynchronize(b), "cuEventSynchronize");
        float ms = 0;
        d_.Check(d_.EventElapsedTime(&ms, a, b), "cuEventElapsedTime");
        f.push_back(double(ms) * 1e6);
      }
      std::sort(f.begin(), f.end());
      r_.floor_median_ns = Median(f);
    }
  }

  static double Median(const std::vector<double>& sorted) {
    size_t n = sorted.size();
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  CUfunction EvictKernel() {
    CUmodule m = nullptr;
    CUfunction f = nullptr;
    d_.Check(d_.ModuleLoadData(&m, kL2EvictKernelPtx), "cuModuleLoadData of the L2 scratch-read kernel");
    d_.Check(d_.ModuleGetFunction(&f, m, kL2EvictKernelName), "cuModuleGetFunction of the L2 scratch-read kernel");
    return f;
  }

  const ReplayOptions& o_;
  std::function<void(const std::string&)> progress_;
  snapshot::Snapshot s_;
  ReplayResult r_;
  ReplayDriver d_;
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
  CUstream stream_ = nullptr;
  CUfunction fn_ = nullptr;
  std::vector<uint64_t> base_;
  std::vector<CUdeviceptr> golden_;
  Launchable kernel_;
  std::vector<Launchable> preludes_;
  std::vector<std::string> prelude_buffers_;  // the preludes' parameters (patched when relocated); never resized after Place
};

}  // namespace

ReplayResult Replay(const ReplayOptions& options, const std::function<void(const std::string&)>& progress) {
  if (options.repeat < 0) throw ReplayError("--repeat must be 0 or more");
  return Session(options, progress).Run();
}

}  // namespace strata::replay
