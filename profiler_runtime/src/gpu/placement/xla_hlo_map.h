// XLA's optimized HLO (the text dump `module_NNNN.<name>.<target>_after_optimizations.txt`
// written with XLA_FLAGS="--xla_dump_to=DIR --xla_dump_hlo_as_text") as a map from GPU kernel
// name to what XLA recorded about the instruction that emits it: the op_name
// ("jit(step)/reduce_sum") and the Python call path of the op at trace time (the module
// header's FileNames / FunctionNames / FileLocations / StackFrames tables, or the older
// source_file= / source_line= metadata).
//
// A fusion's computation is parsed too: the lines of its instructions (HloKernel::fused) are
// every source line the kernel computes.
//
// Kernel name = the fusion instruction's name with '.' and '-' replaced by '_'
// (`input_reduce_fusion.1` -> `input_reduce_fusion_1`). Library calls (cuBLAS / cuDNN
// custom-calls) launch kernels with the library's own names; they are kept as `library`
// entries so a caller can place such a kernel by launch order (LibraryBefore).
//
// StackFrames id convention (verified on XLA dumps of JAX 0.11 / CUDA 13): the printed
// `parent_frame_id=P` means "parent is frame P-1", 0 = no parent. E.g.
//   1 {file_location_id=1 parent_frame_id=1}   <module>:28, root
//   2 {file_location_id=2 parent_frame_id=2}   main:23, parent frame 1
//   3 {file_location_id=3 parent_frame_id=3}   step:13, parent frame 2
//   4 {file_location_id=4 parent_frame_id=3}   step:11, parent frame 2 (a sibling of frame 3)
//
// Pure C++ (no CUDA, no runtime state): unit-tested on fixture dumps. Not thread-safe; the
// collector uses it from the aggregator thread only. Never call from a signal handler.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpu/placement/source_frame.h"

namespace strata::rt::gpu::xla {

using PyFrame = SourceFrame;  // the op's Python call path, one frame

struct HloKernel {
  std::string kernel;          // kernel name as CUPTI reports it (fusions); "" for library calls
  std::string instruction;     // HLO instruction name ("input_reduce_fusion.1", "custom-call.1")
  std::string op_name;         // metadata op_name ("" when XLA recorded none)
  std::string target;          // custom_call_target for library calls
  std::vector<PyFrame> stack;  // Python call path, root first (empty when none recorded)
  // A fusion: the source line of each instruction of its fused computation (the innermost
  // frame of each op's metadata), in the computation's order, each (file, line) once.
  std::vector<PyFrame> fused;
  uint32_t module = 0;         // index into HloMap::Modules()
  int32_t prev = -1;           // previous kernel-emitting instruction of the same computation
                               // in schedule order (index into Kernels()), -1 if first
  bool library = false;        // cuBLAS / cuDNN custom-call: kernel names are the library's
  int64_t grid = -1, block = -1;  // launch dims from the module's thunk_sequence.txt, -1 unknown
};

class HloMap {
 public:
  // Parses one after-optimizations module text. `module` names it (file stem); `thunks` is
  // the module's thunk_sequence.txt text when present ("" otherwise). Returns kernels added.
  size_t AddModule(std::string_view text, std::string_view module, std::string_view thunks = {});
  // Reads `*after_optimizations.txt` files of `dir` not read before, at most `max_files` per
  // call (bounded work); files modified less than `min_age_ns` ago may still be being written
  // and wait for a later call. Returns the number of files read; *more: files were left.
  size_t ScanDir(const std::string& dir, size_t max_files = 32, int64_t min_age_ns = 0,
                 bool* more = nullptr);

  // Kernel-emitting instructions whose kernel name is `name` (several modules may use the same
  // fusion name), filtered by launch dims when the dump recorded them (grid/block < 0: unknown).
  std::vector<uint32_t> Find(std::string_view name, int64_t grid = -1, int64_t block = -1) const;
  // The library call scheduled right before kernel `index` (its `prev` when that is a library
  // entry), or -1.
  int32_t LibraryBefore(uint32_t index) const;

  const std::vector<HloKernel>& Kernels() const { return kernels_; }
  const std::vector<std::string>& Modules() const { return modules_; }
  size_t FilesRead() const { return seen_.size(); }

 private:
  std::vector<HloKernel> kernels_;
  std::vector<std::string> modules_;
  std::unordered_map<std::string, std::vector<uint32_t>> by_name_;
  std::unordered_set<std::string> seen_;
};

// "input_reduce_fusion.1" -> "input_reduce_fusion_1" (XLA's kernel name sanitizing).
std::string KernelNameOf(std::string_view instruction);

// XLA_FLAGS value with `--xla_dump_to=<dir> --xla_dump_hlo_as_text` added to `current`
// (nullptr = unset). When `current` already has --xla_dump_to, its directory is kept (and set
// in *user_dir; "" otherwise) and only --xla_dump_hlo_as_text is added when missing
// (*user_text: the user had asked for text dumps).
std::string XlaFlagsWithDump(const char* current, const std::string& dir, std::string* user_dir,
                             bool* user_text);

}  // namespace strata::rt::gpu::xla
