// What the format tests share to damage a serialized profile on purpose: find a section, change
// bytes in it, reseal the checksum (so the reader's section checks, not the checksum, must catch
// it) and read back the one-line error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "strata/format/reader.h"

namespace strata::format::test {

// The reader's error for `b`, or "" when it parses.
inline std::string ErrorOf(const std::vector<unsigned char>& b) {
  try {
    ProfileReader::Parse(b.data(), b.size());
  } catch (const ReadError& e) {
    return e.what();
  }
  return "";
}

inline void Reseal(std::vector<unsigned char>& b) {
  auto* h = reinterpret_cast<FileHeader*>(b.data());
  h->checksum = Fnv1a(b.data() + sizeof *h, b.size() - sizeof *h);
}

inline SectionEntry* Section(std::vector<unsigned char>& b, SectionKind kind) {
  auto* h = reinterpret_cast<FileHeader*>(b.data());
  auto* t = reinterpret_cast<SectionEntry*>(b.data() + h->section_table_offset);
  for (uint32_t i = 0; i < h->section_count; ++i)
    if (t[i].kind == uint32_t(kind)) return &t[i];
  return nullptr;
}

// The section's header, typed.
template <typename Header>
Header* SectionHeader(std::vector<unsigned char>& b, SectionKind kind) {
  return reinterpret_cast<Header*>(b.data() + Section(b, kind)->offset);
}

// The reader's error for `b` after `damage(b)` and a reseal.
template <typename Damage>
std::string ErrorAfter(std::vector<unsigned char> b, Damage damage) {
  damage(b);
  Reseal(b);
  return ErrorOf(b);
}

}  // namespace strata::format::test
