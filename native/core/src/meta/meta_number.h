// Numbers in profile meta values, which the runtime writes as plain decimals: the whole value
// must be the number (no sign, unit or blank), or it is not one.
#pragma once

#include <cctype>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace strata::core {

inline std::optional<uint64_t> MetaUnsigned(std::string_view s) {
  uint64_t v = 0;
  const char* end = s.data() + s.size();
  const auto [at, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || at != end) return std::nullopt;
  return v;
}

// A finite decimal (as %.17g writes one).
inline std::optional<double> MetaNumber(std::string_view s) {
  if (s.empty()) return std::nullopt;
  const std::string text(s);  // strtod needs the terminator
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v) || std::isspace(uint8_t(text[0])))
    return std::nullopt;
  return v;
}

}  // namespace strata::core
