// The frame table of a view as columns: every profile frame the view shows marshalled once
// (a flat array per profile frame, not a hash map per node), frames that show the same (same
// kind, name, file, line, module, origin and flags) one entry.
#include "view_frames.h"

#include <map>
#include <tuple>

#include "promise_worker.h"

namespace strata::addon {

namespace {
// FrameTable.flags bits (webview/src/protocol.ts FrameFlag).
constexpr uint8_t kFrameTruncated = 1;
constexpr uint32_t kNoEntry = ~0u;
}  // namespace

ViewFrames ViewFrames::Of(const strata::core::View& view) {
  static const std::vector<strata::core::FrameInfo> none;
  return Of(view.frame_table ? *view.frame_table : none, view.frame_id);
}

ViewFrames ViewFrames::Of(const std::vector<strata::core::FrameInfo>& table, const std::vector<uint32_t>& frames_shown) {
  ViewFrames out;
  out.fused_offset.push_back(0);
  out.entry_of_frame.assign(table.size(), kNoEntry);
  std::vector<uint8_t> shown(table.size(), 0);
  for (uint32_t f : frames_shown) shown[f] = 1;
  // The last field: a fused kernel's frame is an entry of its own (its profile frame), whatever its name.
  std::map<std::tuple<uint8_t, uint32_t, uint32_t, uint32_t, uint32_t, uint8_t, uint8_t, uint32_t>, uint32_t> entry_of_key;
  StringTable strings;
  for (size_t i = 0; i < table.size(); ++i) {
    if (!shown[i]) continue;
    uint32_t& slot = out.entry_of_frame[i];
    const auto& f = table[i];
    const int code = strata::core::FrameKindCode(f.kind);
    const uint8_t flags = f.truncated ? kFrameTruncated : 0;
    const auto key = std::make_tuple(static_cast<uint8_t>(code < 0 ? 2 : code), strings.Intern(f.name), strings.Intern(f.file), f.line,
                                     strings.Intern(f.module), static_cast<uint8_t>(f.origin), flags,
                                     f.fused_lines.empty() ? kNoEntry : static_cast<uint32_t>(i));
    auto [entry, added] = entry_of_key.try_emplace(key, static_cast<uint32_t>(out.kind.size()));
    if (added) {
      out.kind.push_back(std::get<0>(key));
      out.name.push_back(std::get<1>(key));
      out.file.push_back(std::get<2>(key));
      out.line.push_back(std::get<3>(key));
      out.module.push_back(std::get<4>(key));
      out.origin.push_back(std::get<5>(key));
      out.flags.push_back(std::get<6>(key));
      for (const strata::core::SourceLine& l : f.fused_lines) {
        out.fused_file.push_back(strings.Intern(l.file));
        out.fused_function.push_back(strings.Intern(l.function));
        out.fused_line.push_back(l.line);
      }
      out.fused_offset.push_back(static_cast<uint32_t>(out.fused_line.size()));
    }
    slot = entry->second;
  }
  out.strings = strings.strings();
  return out;
}

Napi::Object ViewFrames::Columns(Napi::Env env) const {
  Napi::Object o = addon::Columns(env, {
      {"kind", U8Column(env, kind)},
      {"name", U32Column(env, name)},
      {"file", U32Column(env, file)},
      {"line", U32Column(env, line)},
      {"module", U32Column(env, module)},
      {"origin", U8Column(env, origin)},
      {"flags", U8Column(env, flags)},
  });
  if (fused_line.empty()) return o;  // no fused kernel: the columns stay out of the message
  o.Set("fusedOffset", U32Column(env, fused_offset));
  o.Set("fusedFile", U32Column(env, fused_file));
  o.Set("fusedFunction", U32Column(env, fused_function));
  o.Set("fusedLine", U32Column(env, fused_line));
  return o;
}

}  // namespace strata::addon
