// The frame table of a view as the webview protocol's columns (FrameTable): one entry per
// distinct frame the view shows, in order of first use, strings interned into one table. Made
// once per kept view: the view's first part, its later parts and its sandwiches index into it.
#pragma once

#include <napi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/api.h"

namespace strata::addon {

struct ViewFrames {
  std::vector<std::string> strings;
  std::vector<uint8_t> kind, origin, flags;
  std::vector<uint32_t> name, file, line, module;
  // A fused kernel's lines per entry (CSR: entry e's are [fused_offset[e], fused_offset[e + 1])),
  // strings into `strings`; sent only when some entry has lines.
  std::vector<uint32_t> fused_offset, fused_file, fused_function, fused_line;
  // Per entry of the view's frame_table (a profile frame): its entry here.
  std::vector<uint32_t> entry_of_frame;

  // Entries in frame-table order of the frames shown (whatever order the nodes come in: a view
  // sent in parts has the same table before and after it is whole).
  static ViewFrames Of(const strata::core::View& view);
  static ViewFrames Of(const std::vector<strata::core::FrameInfo>& table, const std::vector<uint32_t>& frames_shown);
  // {kind, name, file, line, module, origin, flags[, fusedOffset, fusedFile, fusedFunction, fusedLine]} columns.
  Napi::Object Columns(Napi::Env env) const;
};

}  // namespace strata::addon
