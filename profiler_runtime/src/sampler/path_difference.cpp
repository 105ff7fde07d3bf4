#include "sampler/path_difference.h"

#include <dlfcn.h>

#include <cstring>

#include "common/log.h"
#include "sampler/sample.h"

namespace strata::rt {
namespace {

const char* WordKind(uint64_t w) {
  if (IsNativeWord(w)) return "native";
  if (IsPendingPyWord(w)) return "python (pending name)";
  if (IsGlobalPyWord(w)) return "python";
  if (IsSpecialWord(w) && SpecialKindOf(w) == kSpecialOp) return "operator";
  if (IsSpecialWord(w) && SpecialKindOf(w) == kSpecialThread) return "thread";
  return "other";
}

const char* ModuleOf(uint64_t w) {
  Dl_info info;
  if (!IsNativeWord(w) || !dladdr(reinterpret_cast<void*>(uintptr_t(w)), &info) || !info.dli_fname) return "-";
  const char* slash = strrchr(info.dli_fname, '/');
  return slash ? slash + 1 : info.dli_fname;
}

}  // namespace

void LogPathDifference(const char* what, const uint64_t* cached, int cn, const uint64_t* full, int fn,
                       std::atomic<int>* logged, int limit) {
  if (logged->fetch_add(1, std::memory_order_relaxed) >= limit) return;
  int r = 0;
  while (r < cn && r < fn && cached[cn - 1 - r] == full[fn - 1 - r]) ++r;
  int ci = cn - 1 - r, fi = fn - 1 - r;  // the rootmost differing words (-1: none left)
  Log("%s: cached %d words, full %d; same from the root for %d; then %s %s %llx vs %s %s %llx", what, cn, fn, r,
      ci >= 0 ? WordKind(cached[ci]) : "end", ci >= 0 ? ModuleOf(cached[ci]) : "", ci >= 0 ? (unsigned long long)cached[ci] : 0ull,
      fi >= 0 ? WordKind(full[fi]) : "end", fi >= 0 ? ModuleOf(full[fi]) : "", fi >= 0 ? (unsigned long long)full[fi] : 0ull);
}

}  // namespace strata::rt
