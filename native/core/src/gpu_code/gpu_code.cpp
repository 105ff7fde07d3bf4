// The facade over cubin_reader, cubin_lines and sass_listing (see gpu_code.h).
#include "gpu_code.h"

#include <cstdio>

#include "cubin_lines.h"
#include "cubin_reader.h"
#include "strata/core/api.h"

namespace strata::core::gpu {

namespace fmt = strata::format;

struct GpuCode::Module {
  bool decoded = false;
  int32_t cubin = -1, listing = -1;  // blob indices
  std::unique_ptr<SassListing> sass;
  std::unique_ptr<CubinLines> lines;
  std::string problems;
};

GpuCode::GpuCode(const fmt::ProfileReader& reader) : reader_(reader) {
  modules_.resize(reader.modules().size);
  for (size_t i = 0; i < reader.blob_count(); ++i) {
    fmt::BlobView b = reader.blob(i);
    auto& m = modules_[b.module];
    if (!m) m = std::make_unique<Module>();
    if (b.kind == fmt::BlobKind::kCubin) m->cubin = int32_t(i);
    else if (b.kind == fmt::BlobKind::kSassListing) m->listing = int32_t(i);
  }
}

GpuCode::~GpuCode() = default;

bool GpuCode::HasCode(uint32_t module) const {
  return module < modules_.size() && modules_[module] && (modules_[module]->cubin >= 0 || modules_[module]->listing >= 0);
}

GpuCode::Module& GpuCode::Decode(uint32_t module) {
  Module& m = *modules_[module];
  if (m.decoded) return m;
  m.decoded = true;
  auto note = [&m](const std::string& s) { m.problems += (m.problems.empty() ? "" : "; ") + s; };
  if (m.listing >= 0) {
    try {
      m.sass = std::make_unique<SassListing>(ParseSassListing(reader_.blob(size_t(m.listing)).bytes));
    } catch (const Error& e) {
      note(e.what());
    }
  }
  if (m.cubin >= 0) {
    try {
      Cubin cubin = ReadCubin(reader_.blob(size_t(m.cubin)).bytes);
      m.lines = std::make_unique<CubinLines>(DecodeCubinLines(cubin));
      if (!m.lines->error.empty()) note(m.lines->error);
    } catch (const Error& e) {
      note(e.what());
    }
  }
  return m;
}

PcInfo GpuCode::Lookup(uint32_t module, const std::string& function, uint64_t pc) {
  PcInfo out;
  if (!HasCode(module)) return out;
  Module& m = Decode(module);
  if (m.sass) {
    if (const SassInstruction* ins = m.sass->Find(function, pc)) {
      out.sass = ins->text;
      if (const SassLocation* loc = m.sass->LocationOf(*ins)) {
        out.file = loc->innermost.file;
        out.line = loc->innermost.line;
        out.inlined_at = loc->inlined_at;
      }
    }
  }
  if (out.line == 0 && m.lines) {
    if (const LineRow* row = m.lines->Find(function, pc)) {
      out.file = row->file;
      out.line = row->line;
    }
  }
  return out;
}

std::string GpuCode::Problems(uint32_t module) {
  if (!HasCode(module)) return {};
  return Decode(module).problems;
}

std::string GpuCode::Label(uint64_t pc, const PcInfo& info) {
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(pc));
  std::string s = info.sass.empty() ? "pc+" + std::string(hex) : "+" + std::string(hex) + " " + info.sass;
  // The core has no inline-chain field in a frame (native frames fold inlining), so the
  // callers of inlined device code go into the label.
  for (size_t i = 0; i < info.inlined_at.size(); ++i) {
    const SourceLine& c = info.inlined_at[i];
    size_t slash = c.file.rfind('/');
    s += i == 0 ? " (inlined at " : " < ";
    s += slash == std::string::npos ? c.file : c.file.substr(slash + 1);
    s += ":" + std::to_string(c.line);
  }
  if (!info.inlined_at.empty()) s += ")";
  return s;
}

}  // namespace strata::core::gpu
