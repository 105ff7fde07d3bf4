#include "dispatcher_operator.h"

namespace strata::core::detail {

std::optional<std::string> DispatcherOperatorName(std::string_view symbol) {
  constexpr std::string_view kPrefix = "at::_ops::";
  constexpr std::string_view kCall = "::call(";
  if (symbol.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  std::string_view rest = symbol.substr(kPrefix.size());
  size_t end = rest.find("::");
  if (end == 0 || end == std::string_view::npos || rest.substr(end, kCall.size()) != kCall) return std::nullopt;
  std::string_view op = rest.substr(0, end);
  for (char c : op)
    if (!(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return std::nullopt;
  return "aten::" + std::string(op);
}

}  // namespace strata::core::detail
