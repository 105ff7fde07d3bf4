#include "children/toolchain_helper.h"

#include <limits.h>
#include <unistd.h>

namespace strata::rt::children {
namespace {

constexpr std::string_view kHelpers[] = {
    // CUDA: the PTX assembler, device linker, fat binary packer, front ends.
    "ptxas", "nvlink", "fatbinary", "cicc", "cudafe++", "nvptxcompiler", "bin2c",
    // C/C++ compilers, their passes, assembler and linkers.
    "gcc", "g++", "cc", "c++", "cpp", "cc1", "cc1plus", "collect2", "lto-wrapper", "lto1", "as", "ld",
    "ld.bfd", "ld.gold", "ld.lld", "lld", "clang", "clang++",
};

constexpr std::string_view kBuildDrivers[] = {"make", "gmake", "ninja", "cmake", "scons", "bazel", "meson"};

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) if (c < '0' || c > '9') return false;
  return true;
}

// The name without a target triple prefix or a version suffix.
std::string_view BareName(std::string_view name) {
  // A target triple prefix: x86_64-linux-gnu-gcc, aarch64-linux-gnu-ld.
  for (std::string_view triple : {"-linux-gnu-", "-linux-musl-", "-pc-linux-gnu-"}) {
    size_t at = name.find(triple);
    if (at != std::string_view::npos) name = name.substr(at + triple.size());
  }
  // A version suffix: gcc-12, clang-14, g++-12.
  size_t dash = name.rfind('-');
  if (dash != std::string_view::npos && AllDigits(name.substr(dash + 1))) name = name.substr(0, dash);
  return name;
}

}  // namespace

bool IsToolchainHelper(std::string_view name) {
  name = BareName(name);
  for (std::string_view h : kHelpers)
    if (name == h) return true;
  return false;
}

bool RunsToolchainAsItsWork(std::string_view name) {
  if (IsToolchainHelper(name)) return true;
  name = BareName(name);
  for (std::string_view d : kBuildDrivers)
    if (name == d) return true;
  return false;
}

std::string OwnExecutableName() {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return "";
  path[n] = 0;
  std::string s(path);
  size_t slash = s.rfind('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

}  // namespace strata::rt::children
