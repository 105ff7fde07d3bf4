// The events of a Kineto trace that an import places, as typed records.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::core::detail {

enum class KinetoEventKind {
  kPythonFunction,  // "python_function": name "file.py(line): function"
  kOperator,        // "cpu_op", "user_annotation" (and older traces' "Operator")
  kRuntime,         // "cuda_runtime", "cuda_driver" (older: "Runtime"): the launching API call
  kGpu,             // "kernel", "gpu_memcpy", "gpu_memset" (older: "Kernel", "Memcpy", "Memset")
};

// Which thread an event ran on: the trace's pid and tid as written (numbers or strings).
struct KinetoThread {
  std::string pid, tid;
  bool operator<(const KinetoThread& o) const { return pid != o.pid ? pid < o.pid : tid < o.tid; }
};

struct KinetoEvent {
  KinetoEventKind kind;
  std::string name;
  KinetoThread thread;
  double ts_us = 0, dur_us = 0;
  std::optional<int64_t> correlation;  // args.correlation: joins a launch and its GPU work
};

// One end of a forward-backward link ("cat": "fwdbwd" flow events): the start lies in a forward
// operator, the finish at the start of the autograd operator that computes its backward.
struct KinetoFlowEnd {
  int64_t id = 0;
  KinetoThread thread;
  double ts_us = 0;
  bool start = false;
};

// Complete events ("ph": "X") of the kinds above; others are skipped. Throws Error when the text
// is not JSON, has no traceEvents array, or has no event of these kinds. `links` (optional)
// receives the fwdbwd flow events.
std::vector<KinetoEvent> ReadKinetoEvents(const std::string& text, std::vector<KinetoFlowEnd>* links = nullptr);

}  // namespace strata::core::detail
