// How the core prints numbers (findings, the text report): shares as percentages, times with a
// unit a reader takes in. One duration ladder (s, ms, us, ns) for every text the core writes.
#pragma once

#include <cstdio>
#include <string>

namespace strata::core::detail {

inline std::string Percent(double share) {
  char b[32];
  std::snprintf(b, sizeof b, share >= 0.1 ? "%.0f%%" : "%.1f%%", share * 100.0);
  return b;
}

// `sub_second_decimals` for ms and us: findings print 1 ("12.3 ms"), the text report's columns 2.
inline std::string Duration(double ns, int sub_second_decimals = 1) {
  char b[48];
  if (ns >= 1e9) std::snprintf(b, sizeof b, "%.2f s", ns / 1e9);
  else if (ns >= 1e6) std::snprintf(b, sizeof b, "%.*f ms", sub_second_decimals, ns / 1e6);
  else if (ns >= 1e3) std::snprintf(b, sizeof b, "%.*f us", sub_second_decimals, ns / 1e3);
  else std::snprintf(b, sizeof b, "%.0f ns", ns);
  return b;
}

inline std::string Number(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

// A count for people: "412", "4,589", "156,700"; "1.2 M" from ten million on.
inline std::string Count(double v) {
  char b[48];
  if (v >= 1e7) {
    std::snprintf(b, sizeof b, "%.1f M", v / 1e6);
    return b;
  }
  std::snprintf(b, sizeof b, "%.0f", v);
  std::string digits = b, out;
  size_t lead = digits[0] == '-' ? 1 : 0;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > lead && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// "train (train.py:49)" or "matmul" when there is no line.
inline std::string Where(const std::string& name, const std::string& file, unsigned line) {
  if (file.empty() || line == 0) return name;
  size_t slash = file.rfind('/');
  return name + " (" + (slash == std::string::npos ? file : file.substr(slash + 1)) + ":" + std::to_string(line) + ")";
}

}  // namespace strata::core::detail
