// The phases of a run, told apart by the frames on a call path: a calling context tree has no
// time order, so a phase is a property of a call path, set by the outermost frame on it that marks
// one (docs/analyzers.md "Phases"). The rules judge the steady state unless asked for every phase.
#pragma once

#include <cstdint>

#include "strata/core/api.h"

namespace strata::core::detail {

enum class Phase : uint8_t {
  kSteady,        // none of the below: the work the program is run for
  kImport,        // module imports (importlib)
  kConstruction,  // building the model: library constructors called from the user's code,
                  // parameter initialisation, moving a module to the device
  kCompilation,   // torch.compile (Dynamo, AOTAutograd, Inductor, Triton), JAX/XLA lowering and
                  // compilation (XLA's autotuning runs inside it)
  kWarmup,        // one-time start-up work at first use: CUDA context and library handles, module
                  // loading, kernel autotuning and benchmarking
  kShutdown,      // interpreter finalization and exit handlers
  kProfiler,      // the profiler's own work inside the program (CUPTI, its PC sampling, Strata's
                  // runtime): not the program's, in any phase
};

const char* PhaseName(Phase p);  // "steady", "import", "construction", "compilation", "warm-up", "shutdown", "profiler"

// What a frame alone says. kConstructorCall: a library constructor (`X.__init__` in an installed
// package), which is model construction when the user's code calls it directly.
enum class PhaseMark : uint8_t { kNone, kImport, kConstruction, kCompilation, kWarmup, kShutdown, kProfiler, kConstructorCall };
PhaseMark FramePhaseMark(const FrameInfo& frame);

}  // namespace strata::core::detail
