// The torch loaded into the profiled process, read from what the dynamic loader holds: where
// its libraries and headers are, its version, and the C++ ABI it was compiled with. The
// operator plugin is matched to (or built for) exactly this install.
#pragma once

#include <string>

namespace strata::rt::ops {

struct TorchInstall {
  std::string torch_cpu;  // path of the loaded libtorch_cpu
  std::string c10;        // path of the loaded libc10
  int count = 0;          // loaded objects that are libtorch_cpu / libc10 (a second torch: more)
  std::string version;    // "2.11.0+cu130"; empty when unknown
  std::string include;    // directory holding ATen/record_function.h; empty when none found
  int cxx11_abi = -1;     // _GLIBCXX_USE_CXX11_ABI of the loaded libc10; -1 unknown
};

// Libraries only (cheap; called after every dlopen that names torch).
TorchInstall LoadedTorchLibraries();

// Everything: version (torch/version.py beside `opened` or the libraries, else the soname),
// headers and ABI. `opened` is the file whose dlopen brought torch in (may be null).
TorchInstall DescribeLoadedTorch(const char* opened);

// The version as a label: "torch 2.11.0" or "torch (version unknown)".
std::string TorchLabel(const TorchInstall& t);

// Leading numeric components equal (at least major.minor): "2.11.0" matches "2.11.0+cu130".
bool SameVersion(const std::string& a, const std::string& b);

}  // namespace strata::rt::ops
