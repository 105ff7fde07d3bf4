// The profile's meta entries "gpu", "pc_sampling" and "regions": what was collected, or why not;
// and sampled tracing's typed entries.
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "common/loaded_objects.h"
#include "gpu/api/launch_path_cache.h"
#include "gpu/cupti/cupti_session.h"
#include "gpu/cupti/capture_range.h"
#include "gpu/cupti/trace_windows.h"
#include "gpu/cupti/pc_sampling.h"
#include "gpu/cupti/region_capture.h"
#include "gpu/gpu.h"

namespace strata::rt::gpu {
namespace {

std::string CollectedLine(CuptiSession& session, const WindowScale& w) {
  const GpuCounts& j = session.join.attribution().counts;
  size_t dropped = 0;
  if (session.api) session.api->ActivityGetNumDroppedRecords(nullptr, 0, &dropped);
  std::string s = "collected: CUPTI " + std::to_string(session.cupti_version) + " (" + session.api->path + "); " +
                  std::to_string(j.kernels) + " kernels, " + std::to_string(j.copies) + " copies, " +
                  std::to_string(j.sets) + " memsets, " +
                  (session.Records(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION)
                       ? std::to_string(j.syncs) + " syncs, "
                       : std::string("syncs not recorded (STRATA_GPU_ACTIVITY), ")) +
                  std::to_string(j.api_calls) + " API calls";
  if (j.unattributed) s += ", " + std::to_string(j.unattributed) + " unattributed";
  if (uint64_t n = session.paths.load()) {
    char buf[64];
    snprintf(buf, sizeof(buf), "; call paths taken %.2f us each", double(session.path_ns.load()) / double(n) / 1000.0);
    s += buf + std::string(" (") + LaunchPathCacheStatus() + ")";
  } else if (!session.options.take_paths) {
    s += "; call paths off (STRATA_GPU_CALLPATHS=0)";
  }
  if (dropped) s += ", " + std::to_string(dropped) + " records dropped by CUPTI";
  s += TraceWindowsStatus(session, w);
  s += CaptureRangeStatus(session);
  s += session.join.PlacementStatus();
  s += "; " + session.join.attribution().timeline.StatusPart();
  if (uint64_t q = session.queue.Dropped()) s += ", " + std::to_string(q) + " API calls dropped (queue full)";
  return s;
}

// Which CUDA libraries this process loaded, from the loader's list: a look that costs nothing,
// where a dlopen probe of each name went through the loader's file search (and, being our own
// interposed dlopen, prepared an unwinder on the aggregator thread): ~3 ms in every process
// that writes a profile, CUDA or not.
struct CudaLoaded {
  bool driver = false;   // libcuda.so.1
  bool runtime = false;  // libcudart.so.*
};

int NoteCudaLibrary(dl_phdr_info* info, size_t, void* data) {
  const char* path = info->dlpi_name ? info->dlpi_name : "";
  const char* slash = strrchr(path, '/');
  const char* name = slash ? slash + 1 : path;
  auto* seen = static_cast<CudaLoaded*>(data);
  if (strncmp(name, "libcuda.so", 10) == 0) seen->driver = true;
  if (strncmp(name, "libcudart.so", 12) == 0) seen->runtime = true;
  return 0;
}

// CUDA was never initialized in this process: say what we can see.
std::string NeverInitializedLine() {
  CudaLoaded seen;
  IterateLoadedObjects(&NoteCudaLibrary, &seen);
  if (seen.driver) {
    if (void* cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
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
  }
  if (seen.runtime)
    return "not collected: the program loaded the CUDA runtime but no CUDA driver (libcuda.so.1 not loaded: no driver installed?)";
  return "not collected: the program did not use CUDA";
}

SampledTracing SampledTracingMeta(CuptiSession& session, const WindowScale& w) {
  const TraceWindowConfig& c = session.options.windows;
  if (!c.Enabled()) return {};
  auto number = [](double v) {
    char buf[32];
    snprintf(buf, sizeof(buf), "%.17g", v);
    return std::string(buf);
  };
  SampledTracing out;
  out.meta = {{"gpu_window_ms", std::to_string(c.on_ms)},
              {"gpu_window_period_ms", std::to_string(c.period_ms)},
              {"gpu_scale", number(w.applied)},
              {"gpu_time_scale", number(w.time)},
              {"gpu_scale_basis", w.by_calls ? "operator_calls" : "window_time"},
              {"gpu_windows_opened", std::to_string(session.windows_opened.load())},
              {"gpu_traced_ns", std::to_string(w.traced.traced_ns)},
              {"gpu_traced_of_ns", std::to_string(w.traced.in_range_ns)}};
  if (w.calls.counted) {
    out.meta.emplace_back("gpu_op_calls_counted", std::to_string(w.calls.all));
    out.meta.emplace_back("gpu_op_calls_counted_traced", std::to_string(w.calls.traced));
    out.meta.emplace_back("gpu_op_count_probability", number(w.calls.probability));
  }
  if (w.applied != w.nominal)
    for (const char* m : {"gpu_time", "sync_time", "api_time", "memcpy_bytes", "memset_bytes"})
      out.metric_factors.emplace_back(m, w.applied / w.nominal);
  return out;
}

}  // namespace

GpuStatus StatusNow() {
  CuptiSession* session = CuptiSession::Get();
  if (session) {
    if (!session->taken_by.empty())
      return {"not collected: CUPTI already taken by CUDA_INJECTION64_PATH=" + session->taken_by, {}};
    int phase = session->phase.load();
    if (phase == CuptiSession::kFailed) {
      std::lock_guard<std::mutex> lock(session->status_mu);
      return {"not collected: " + (session->failed ? session->failure : std::string("CUPTI setup failed")), {}};
    }
    if (phase == CuptiSession::kCollecting) {
      const WindowScale w = CurrentWindowScale(*session);
      return {CollectedLine(*session, w), SampledTracingMeta(*session, w)};
    }
    // Closing first makes a late InitializeInjection (the cuInit below succeeding) a no-op.
    int zero = CuptiSession::kNotInjected;
    session->phase.compare_exchange_strong(zero, CuptiSession::kClosed);
  }
  return {NeverInitializedLine(), {}};
}

std::string PcSamplingStatusLine() {
  CuptiSession* session = CuptiSession::Get();
  if (!session || !session->options.pc_sampling) {
    const char* v = getenv("STRATA_PC_SAMPLING");
    if (!v || !*v || strcmp(v, "0") == 0) return "off (strata record --pc-sampling)";
    if (!session || session->phase.load() != CuptiSession::kCollecting) return "not collected: GPU collection is off (see gpu)";
  }
  return pcs::StatusLine();
}

std::string RegionsStatusLine() {
  std::string s = regions::StatusLine();
  CuptiSession* session = CuptiSession::Get();
  if (session && !session->join.region_issues().empty()) s += "; " + session->join.region_issues();
  return s;
}

}  // namespace strata::rt::gpu
