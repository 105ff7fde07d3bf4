// What torch.compile's Inductor records about where its kernels came from, read from files it
// writes: with INDUCTOR_PROVENANCE=1 and TORCH_TRACE=<dir>, each compiled graph leaves in the
// structured trace log an `inductor_output_code` record (the generated wrapper's path) followed
// by an `inductor_provenance_tracking_kernel_stack_traces` artifact: for each kernel call,
// "kernel:handle" -> the stack traces of the FX nodes it computes (the model's lines; several
// for a fused kernel). The wrapper marks each kernel call with a comment
// `# [Provenance debug handles] kernel:handle` a few lines above it. Inductor leaves some kernel
// calls without a trace (nodes autograd made with no stack trace, e.g. a bias gradient) and some
// launches on wrapper lines without a handle; those can still be placed under the compiled
// function itself: each record's header names its compile (frame id / compile id), and that
// compile's `compilation_metrics` record names the function (co_name, co_filename,
// co_firstlineno), for the backward graph's wrapper too.
//
// Pure C++ (no CUDA, no runtime state): unit-tested on a trace log and wrappers recorded with
// torch 2.11. Aggregator thread only; never from a signal handler.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpu/placement/source_frame.h"

namespace strata::rt::gpu::inductor {

using SourceFrame = gpu::SourceFrame;
using SourceTrace = std::vector<SourceFrame>;  // outermost first, as Python prints tracebacks

// The source lines a kernel with these traces computes: of each trace the innermost frame outside
// torch/nn/modules (the model's line, not nn.Linear's forward; the innermost when all are), in
// Inductor's order, each (file, line) once. More than one line: a fused kernel.
std::vector<SourceFrame> FusedLines(const std::vector<SourceTrace>& traces);

class Provenance {
 public:
  // Reads what the text of log `source` adds (a record split across calls is kept for the
  // next call with the same source).
  void AddLog(std::string_view text, const std::string& source = "");
  // Reads the new bytes of every *.log file in `dir`; returns how many bytes were read.
  size_t ScanDir(const std::string& dir);

  // The source traces of the kernel call at `line` of the generated wrapper `wrapper`; null
  // when Inductor recorded none (yet). Reads the wrapper file once.
  const std::vector<SourceTrace>* Find(const std::string& wrapper, uint32_t line);
  // The function whose compile generated `wrapper` (its def line); null when not known (yet)
  // or when it is Dynamo's own wrapper rather than the model's code.
  const SourceFrame* CompiledFunction(const std::string& wrapper) const;
  // Whether `file` is a wrapper this log named.
  bool IsWrapper(const std::string& file) const { return wrappers_.count(file) != 0; }

  // Exposed for tests: the call line -> handle key map of one wrapper's text.
  static std::unordered_map<uint32_t, std::string> CallHandles(std::string_view wrapper_text);
  static std::vector<SourceTrace> ParseTraces(const std::vector<std::string>& traces);

 private:
  struct Wrapper {
    std::unordered_map<std::string, std::vector<SourceTrace>> by_handle;
    int64_t compile = -1;  // frame id << 32 | frame compile id; -1 when the header had none
    // Its traces are read, or a later record of its log shows none are coming: only then is a
    // call without a trace placed on the compiled function (not before its traces arrive).
    bool settled = false;
    std::unordered_map<uint32_t, std::string> handle_at_line;
    bool read = false;
  };
  struct Log {
    size_t read = 0;      // bytes read of the file
    std::string pending;  // unfinished record text
    std::string current;  // wrapper of the graph being logged
  };
  void Record(Log& log, std::string_view header, std::string_view payload);

  std::unordered_map<std::string, Wrapper> wrappers_;
  std::unordered_map<int64_t, SourceFrame> compiled_;  // compile -> the function compiled
  std::unordered_map<std::string, Log> logs_;  // one per log file (one per process)
};

}  // namespace strata::rt::gpu::inductor
