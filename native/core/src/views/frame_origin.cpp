// Frame origins and the Python view's fold, decided on typed fields only: the frame kind, the
// module's file name and the source path's folders (never on symbol names).
#include "frame_origin.h"

#include <cctype>
#include <string_view>

namespace strata::core::detail {

namespace fmt = strata::format;

namespace {

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// "python3.12", "python3", "python", "python3.12d", "libpython3.12.so.1.0", "libpython3.so".
bool IsInterpreterModule(std::string_view module) {
  std::string_view b = BaseName(module);
  if (StartsWith(b, "lib")) b.remove_prefix(3);
  if (!StartsWith(b, "python")) return false;
  b.remove_prefix(6);
  size_t i = 0;
  while (i < b.size() && (std::isdigit(static_cast<unsigned char>(b[i])) || b[i] == '.')) {
    if (b[i] == '.' && StartsWith(b.substr(i), ".so")) break;
    ++i;
  }
  b.remove_prefix(i);
  while (!b.empty() && std::islower(static_cast<unsigned char>(b[0])) && b[0] != 's') b.remove_prefix(1);  // ABI flags: d, m, t
  return b.empty() || StartsWith(b, ".so");
}

// The C library and the dynamic loader: where every process and thread starts.
bool IsStartUpModule(std::string_view module) {
  std::string_view b = BaseName(module);
  return StartsWith(b, "libc.so") || StartsWith(b, "libc-") || StartsWith(b, "ld-linux") ||
         StartsWith(b, "ld64.so") || StartsWith(b, "libpthread");
}

bool InLibraryFolder(std::string_view path) {
  return path.find("/site-packages/") != std::string_view::npos ||
         path.find("/dist-packages/") != std::string_view::npos ||
         path.find("/lib/python") != std::string_view::npos ||  // the standard library
         StartsWith(path, "/usr/") || StartsWith(path, "/lib/") || StartsWith(path, "/lib64/") ||
         StartsWith(path, "/opt/");
}

bool IsSharedObject(std::string_view module) {
  std::string_view b = BaseName(module);
  size_t so = b.find(".so");
  return so != std::string_view::npos && (so + 3 == b.size() || b[so + 3] == '.');
}

}  // namespace

bool IsCompilerGeneratedSource(std::string_view file) {
  return BaseName(file).find(".cudafe1.") != std::string_view::npos;
}

FrameOrigin ClassifyFrame(uint32_t kind, const std::string& module, const std::string& file, bool truncated) {
  if (truncated) return FrameOrigin::kNone;
  switch (static_cast<fmt::FrameKind>(kind)) {
    case fmt::FrameKind::kRoot:
    case fmt::FrameKind::kThread:
    case fmt::FrameKind::kProcess:
      return FrameOrigin::kNone;
    case fmt::FrameKind::kGpuApi:
    case fmt::FrameKind::kKernel:
    case fmt::FrameKind::kPc:
    case fmt::FrameKind::kRegion:
      return FrameOrigin::kGpu;
    case fmt::FrameKind::kOperator:
      return FrameOrigin::kLibrary;
    case fmt::FrameKind::kPython:
      // Frozen modules ("<frozen importlib._bootstrap>") are the interpreter's own Python code:
      // a library to the user ("<string>", code given to exec or -c, is the user's).
      if (file.empty() || StartsWith(file, "<frozen") || InLibraryFolder(file)) return FrameOrigin::kLibrary;
      return FrameOrigin::kUser;
    case fmt::FrameKind::kNative:
      if (IsInterpreterModule(module)) return FrameOrigin::kInterpreter;
      if (IsCompilerGeneratedSource(file)) return FrameOrigin::kLibrary;
      if (module.empty()) return file.empty() || InLibraryFolder(file) ? FrameOrigin::kLibrary : FrameOrigin::kUser;
      if (InLibraryFolder(module) || IsStartUpModule(module)) return FrameOrigin::kLibrary;
      // A program binary or a shared object outside the system and package folders (built in
      // the user's tree).
      return FrameOrigin::kUser;
  }
  return FrameOrigin::kNone;
}

FoldClass FoldClassOf(uint32_t kind, const std::string& module, bool truncated) {
  if (kind == uint32_t(fmt::FrameKind::kProcess)) return FoldClass::kStackStart;
  if (truncated || kind != uint32_t(fmt::FrameKind::kNative)) return FoldClass::kKeep;
  if (IsInterpreterModule(module)) return FoldClass::kAlways;
  if (IsStartUpModule(module)) return FoldClass::kStartUp;
  return FoldClass::kKeep;
}

std::vector<uint8_t> PythonViewFold(const fmt::NodeRecord* nodes, size_t node_count,
                                    const std::vector<FoldClass>& frame_fold) {
  std::vector<uint8_t> fold(node_count, 0);
  // prefix[i]: every node from the root's child down to i is folded (the stack's start-up part).
  std::vector<uint8_t> prefix(node_count, 0);
  if (node_count) prefix[0] = 1;
  for (size_t i = 1; i < node_count; ++i) {
    const uint32_t p = nodes[i].parent;
    const uint32_t f = nodes[i].frame;
    const FoldClass c = f < frame_fold.size() ? frame_fold[f] : FoldClass::kKeep;
    fold[i] = c == FoldClass::kAlways || (c == FoldClass::kStartUp && prefix[p]);
    prefix[i] = (fold[i] && prefix[p]) || c == FoldClass::kStackStart;
  }
  return fold;
}

}  // namespace strata::core::detail
