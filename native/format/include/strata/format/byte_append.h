// Appending records to a profile being built in memory (the writer and the core's rewrite both
// lay sections out this way: little-endian records, each section 8-byte aligned).
#pragma once

#include <vector>

namespace strata::format {

inline void Align8(std::vector<unsigned char>& out) {
  while (out.size() % 8) out.push_back(0);
}

template <typename T>
void Append(std::vector<unsigned char>& out, const T& v) {
  const auto* p = reinterpret_cast<const unsigned char*>(&v);
  out.insert(out.end(), p, p + sizeof(T));
}

}  // namespace strata::format
