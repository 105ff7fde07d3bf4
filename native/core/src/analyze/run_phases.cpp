#include "run_phases.h"

#include <string>
#include <string_view>

namespace strata::core::detail {

const char* PhaseName(Phase p) {
  switch (p) {
    case Phase::kSteady: return "steady";
    case Phase::kImport: return "import";
    case Phase::kConstruction: return "construction";
    case Phase::kCompilation: return "compilation";
    case Phase::kWarmup: return "warm-up";
    case Phase::kShutdown: return "shutdown";
    case Phase::kProfiler: return "profiler";
  }
  return "steady";
}

namespace {
bool Has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }
bool Starts(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool Installed(const std::string& file) {
  return Has(file, "/site-packages/") || Has(file, "/dist-packages/") || Has(file, "/lib/python");
}
}  // namespace

PhaseMark FramePhaseMark(const FrameInfo& f) {
  const std::string& n = f.name;
  const std::string& file = f.file;
  if (f.kind == "python") {
    if (n == "_find_and_load" || Starts(file, "<frozen importlib")) return PhaseMark::kImport;
    if (n == "_run_exitfuncs" || Has(file, "/atexit.py") || (Has(file, "/multiprocessing/util.py") && n == "_exit_function"))
      return PhaseMark::kShutdown;
    if (!Installed(file)) return PhaseMark::kNone;  // the user's own code marks no phase
    // torch.compile: every function of these files runs at compile time only (a compiled frame's
    // cache hit does not reach Python).
    if (Has(file, "/torch/_dynamo/convert_frame.py") || Has(file, "/torch/_dynamo/symbolic_convert.py") ||
        Has(file, "/torch/_inductor/compile_fx.py") || Has(file, "/torch/_inductor/async_compile.py") ||
        Has(file, "/torch/_inductor/codecache.py") || Has(file, "/torch/_inductor/graph.py") ||
        Has(file, "/triton/compiler/") || Has(file, "/torch/_functorch/_aot_autograd/jit_compile_runtime_wrappers.py"))
      return PhaseMark::kCompilation;
    if (Has(file, "/torch/_inductor/runtime/triton_heuristics.py") &&
        (Has(n, "precompile") || Has(n, "_make_launchers") || Has(n, "_create_compile")))
      return PhaseMark::kCompilation;
    // Inductor's and Triton's autotuning: each config timed once, at first call.
    if ((Has(file, "/torch/_inductor/") && (Has(n, "autotune") || Has(n, "benchmark") || Has(n, "Benchmarker"))) ||
        (Has(file, "/triton/") && (Has(n, "Autotuner") || Has(n, "do_bench"))))
      return PhaseMark::kWarmup;
    // JAX: a jitted call that misses the C++ dispatch cache is a first call of its shapes (trace,
    // lower, compile, initialise the backend, run once); later calls never reach Python.
    if (Has(file, "/jax/_src/pjit.py") && Has(n, "cache_miss")) return PhaseMark::kCompilation;
    // JAX: tracing, lowering and XLA compilation (cached after the first call of a shape).
    if (Has(file, "/jax/_src/") &&
        (n == "_pjit_lower" || n == "lower_sharding_computation" || n == "_cached_lowering_to_hlo" ||
         n == "backend_compile" || n == "backend_compile_and_load" || n == "compile_or_get_cached" ||
         n == "_cached_compilation" || n == "trace_to_jaxpr_dynamic" || n == "_create_pjit_jaxpr" ||
         Has(n, "UnloadedMeshExecutable.from_hlo") || Has(n, "MeshComputation.compile")))
      return PhaseMark::kCompilation;
    if (Has(file, "/torch/cuda/__init__.py") && n == "_lazy_init") return PhaseMark::kWarmup;
    // Model construction: moving a module to a device or dtype, parameter initialisation,
    // flax's init, loading weights.
    if (Has(file, "/torch/nn/modules/module.py") &&
        (n == "Module._apply" || n == "Module.to" || n == "Module.cuda" || n == "Module.load_state_dict"))
      return PhaseMark::kConstruction;
    if (Has(file, "/optax/") && Has(n, "init_fn")) return PhaseMark::kConstruction;  // optimizer state
    if (Has(file, "/torch/nn/init.py") || Has(n, "reset_parameters") || Has(n, "from_pretrained") ||
        Has(n, "_init_weights") || (Has(file, "/flax/") && (Has(n, "Module.init") || Has(n, "init_with_output"))))
      return PhaseMark::kConstruction;
    if (Installed(file) && (n == "__init__" || (n.size() > 9 && n.compare(n.size() - 9, 9, ".__init__") == 0)))
      return PhaseMark::kConstructorCall;
    return PhaseMark::kNone;
  }
  if (f.kind == "native") {
    size_t slash = f.module.rfind('/');
    std::string_view base(f.module);
    if (slash != std::string::npos) base.remove_prefix(slash + 1);
    if (Starts(base, "libcupti") || Starts(base, "libnvperf") || Starts(base, "libstrata_runtime") ||
        Starts(base, "libstrata_torch"))
      return PhaseMark::kProfiler;
    // PyTorch's RecordFunction calling its observers: it runs only while a profiler watches the
    // operators (Strata's operator recording, torch.profiler); the operator's own work is not
    // under it.
    if (Starts(n, "at::RecordFunction::") || Starts(n, "c10::Dispatcher::runRecordFunction")) return PhaseMark::kProfiler;
  }
  if (f.kind == "native" && (n == "Py_FinalizeEx" || n == "Py_Finalize" || n == "exit" || n == "__run_exit_handlers" ||
                             n == "__cxa_finalize" || n == "_dl_fini" || n == "_PyRuntime_Finalize"))
    return PhaseMark::kShutdown;
  if (f.kind == "native" || f.kind == "gpu_api") {
    // CUDA start-up: the context, library handles, module loading.
    if (n == "cuInit" || Starts(n, "cuDevicePrimaryCtxRetain") || Starts(n, "cuCtxCreate") ||
        Starts(n, "cublasCreate") || Starts(n, "cublasLtCreate") || Starts(n, "cudnnCreate") ||
        Starts(n, "cuModuleLoad") || Starts(n, "cuLibraryLoad") || Starts(n, "cudnnFind") ||
        Has(n, "cudaGetDeviceCount"))
      return PhaseMark::kWarmup;
  }
  return PhaseMark::kNone;
}

}  // namespace strata::core::detail
