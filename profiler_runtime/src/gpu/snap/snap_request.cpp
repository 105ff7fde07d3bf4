#include "gpu/snap/snap_request.h"

#include <cctype>
#include <cstdlib>

namespace strata::rt::gpu::snap {

std::string ParseSnapSpec(const std::string& spec, SnapRequest* out) {
  std::string kernel = spec;
  uint64_t nth = 1;
  // KERNEL:N, where N is all digits (a demangled name's "::" is left alone).
  size_t colon = spec.rfind(':');
  if (colon != std::string::npos && colon + 1 < spec.size() && (colon == 0 || spec[colon - 1] != ':')) {
    bool digits = true;
    for (size_t i = colon + 1; i < spec.size(); ++i) digits = digits && std::isdigit(static_cast<unsigned char>(spec[i]));
    if (digits) {
      kernel = spec.substr(0, colon);
      nth = std::strtoull(spec.c_str() + colon + 1, nullptr, 10);
      if (nth == 0) return "--snap " + spec + ": N counts from 1";
    }
  }
  if (kernel.empty()) return "--snap needs a kernel name (KERNEL or KERNEL:N)";
  std::string key, run;
  for (char c : kernel + " ") {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      run += c;
    } else {
      if (run.size() > key.size()) key = run;
      run.clear();
    }
  }
  out->kernel = kernel;
  out->nth = nth;
  out->image_key = key;
  return "";
}

bool SnapRequestFromEnv(SnapRequest* out, std::string* why) {
  const char* spec = std::getenv("STRATA_SNAP");
  if (!spec || !*spec) return false;
  *why = ParseSnapSpec(spec, out);
  if (!why->empty()) return false;
  const char* o = std::getenv("STRATA_SNAP_OUTPUT");
  out->output = o && *o ? o : "strata.snap";
  if (const char* m = std::getenv("STRATA_SNAP_MAX_BYTES"); m && *m) out->max_bytes = std::strtoull(m, nullptr, 10);
  if (const char* p = std::getenv("STRATA_SNAP_PRELUDES"); p && *p) {
    long n = std::strtol(p, nullptr, 10);
    out->preludes = int(n < 0 ? 0 : n > kMaxPreludes ? kMaxPreludes : n);
  }
  return true;
}

}  // namespace strata::rt::gpu::snap
