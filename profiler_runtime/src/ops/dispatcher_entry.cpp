#include "ops/dispatcher_entry.h"

namespace strata::rt::ops {

// _ZN2at4_ops<len><op>4callE<params>: a nested name at::_ops::<op>::call. Other members of the
// op's struct (redispatch) and the ops' schema strings are not entries.
bool IsDispatcherEntrySymbol(std::string_view s) {
  constexpr std::string_view kPrefix = "_ZN2at4_ops";
  constexpr std::string_view kCall = "4callE";
  if (s.substr(0, kPrefix.size()) != kPrefix) return false;
  size_t i = kPrefix.size(), len = 0;
  if (i >= s.size() || s[i] < '1' || s[i] > '9') return false;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    len = len * 10 + size_t(s[i] - '0');
    if (len > 4096) return false;
    ++i;
  }
  if (len > s.size() - i) return false;
  i += len;
  return s.substr(i, kCall.size()) == kCall;
}

}  // namespace strata::rt::ops
