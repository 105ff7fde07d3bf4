#include "gpu/placement/inductor_path.h"

namespace strata::rt::gpu::inductor {

std::string FusedFrameName(size_t lines) { return "fused (" + std::to_string(lines) + " lines)"; }

void AppendPlacedFrames(Cct::Unlocked& u, const std::vector<SourceTrace>& traces, std::vector<uint32_t>* ids) {
  for (const SourceFrame& f : traces[0])
    ids->push_back(u.Frame(Cct::FrameKind::kPython, strata::format::kNone, 0, f.function, f.file, f.line));
  const std::vector<SourceFrame> fused = FusedLines(traces);
  if (fused.size() < 2) return;
  std::vector<strata::format::SourceLine> lines;
  for (const SourceFrame& f : fused) lines.push_back({f.file, f.function, f.line});
  ids->push_back(u.Frame(Cct::FrameKind::kOperator, FusedFrameName(fused.size()), strata::format::SourceLinesRole::kFused, lines));
}

}  // namespace strata::rt::gpu::inductor
