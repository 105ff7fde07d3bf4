// GPU code of a profile: resolves a sampled PC (module, function, offset) to its SASS
// instruction and CUDA source line with the inlining chain, from the cubin and SASS listing
// blobs the profile carries (docs/profile-format.md, blobs section). The listing is preferred
// (it has the SASS text and the inlining chain); without one the cubin's line table gives the
// innermost line; a cubin built without -lineinfo gives neither. Decoded lazily, once per module.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sass_listing.h"
#include "strata/format/reader.h"

namespace strata::core::gpu {

struct PcInfo {
  std::string sass;                    // SASS text, "" when no listing covers the PC
  std::string file;                    // innermost source file, "" when unknown
  uint32_t line = 0;                   // innermost source line, 0 when unknown
  std::vector<SourceLine> inlined_at;  // callers, innermost caller first
};

class GpuCode {
 public:
  // Indexes the blobs (nothing is decoded yet). `reader` must outlive this object.
  explicit GpuCode(const format::ProfileReader& reader);
  ~GpuCode();

  // Whether the profile carries a cubin or a listing for `module`.
  bool HasCode(uint32_t module) const;
  // Never throws: undecodable blobs give an empty PcInfo (see Problems).
  PcInfo Lookup(uint32_t module, const std::string& function, uint64_t pc);
  // What went wrong decoding the module's blobs, one line ("" when nothing did).
  std::string Problems(uint32_t module);

  // The label a pc frame shows: "+0x140 FFMA R5, R5, R2, 0.5", "pc+0x1a0" without SASS, and
  // the callers of inlined code: " (inlined at stall_kernels.cu:26)".
  static std::string Label(uint64_t pc, const PcInfo& info);

 private:
  struct Module;
  Module& Decode(uint32_t module);
  const format::ProfileReader& reader_;
  std::vector<std::unique_ptr<Module>> modules_;  // per module index, decoded on first use
};

}  // namespace strata::core::gpu
