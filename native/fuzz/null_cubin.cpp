// The fuzzer's cubin decoding: no LLVM (as for the symbolizer). SASS listings in a hostile
// profile are still parsed for real (sass_listing.cpp is plain C++).
#include "gpu_code/cubin_lines.h"
#include "gpu_code/cubin_reader.h"
#include "strata/core/api.h"

namespace strata::core::gpu {

Cubin ReadCubin(std::string_view) { throw Error("cubin: not decoded in the fuzzer"); }
CubinLines DecodeCubinLines(const Cubin&) { return {}; }
const LineRow* CubinLines::Find(const std::string&, uint64_t) const { return nullptr; }

}  // namespace strata::core::gpu
