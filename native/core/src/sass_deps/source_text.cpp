#include "source_text.h"

namespace strata::core::sass {

std::string BaseName(const std::string& path) {
  size_t s = path.rfind('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

std::string KernelLine(const SassInstr& i) {
  const SassSourceLine& l = i.inlined_at.empty() ? i.line : i.inlined_at.back();
  return l.line ? BaseName(l.file) + ":" + std::to_string(l.line) : "";
}

std::string SourceText(const SassInstr& i) {
  std::string k = KernelLine(i);
  if (k.empty()) return "no source line";
  if (!i.inlined_at.empty() && i.line.line) k += " (inlined " + BaseName(i.line.file) + ":" + std::to_string(i.line.line) + ")";
  return k;
}

}  // namespace strata::core::sass
