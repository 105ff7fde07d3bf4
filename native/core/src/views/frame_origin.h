// Whose code a frame is (FrameOrigin) and which stored nodes the Python view folds away.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/api.h"
#include "strata/format/layout.h"

namespace strata::core::detail {

// How the Python view treats a frame: kept, folded everywhere (the interpreter's own frames), or
// folded only in the start-up prefix of a stack (the C library's and loader's frames, e.g.
// _start, __libc_start_main, clone3, start_thread: above every kept frame).
// kStackStart: kept, and a stack starts below it as below the root (a merged run's process frame).
enum class FoldClass : uint8_t { kKeep = 0, kAlways = 1, kStartUp = 2, kStackStart = 3 };

// nvcc's front end writes the host side of a .cu file into temporary files
// (tmpxft_..._name.cudafe1.stub.c: the __device_stub__ launch wrappers; .cudafe1.cpp), whose
// lines the debug info names: generated code, not a line the user can change.
bool IsCompilerGeneratedSource(std::string_view file);

// `module` is the module path ("" when none), `file` the source path.
FrameOrigin ClassifyFrame(uint32_t kind, const std::string& module, const std::string& file, bool truncated);
FoldClass FoldClassOf(uint32_t kind, const std::string& module, bool truncated);

// Per stored node: 1 when the Python view folds it into its parent (node 0, the root, is kept).
// `frame_fold` is FoldClass per stored frame.
std::vector<uint8_t> PythonViewFold(const format::NodeRecord* nodes, size_t node_count,
                                    const std::vector<FoldClass>& frame_fold);

}  // namespace strata::core::detail
