// Little-endian fields of the snapshot's sections (x86-64 and aarch64 hosts are little-endian;
// the file says so by its magic and version, not per field).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "strata/snapshot/snapshot.h"

namespace strata::snapshot::codec {

class Out {
 public:
  template <typename T>
  void Pod(const T& v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void Str(const std::string& s) {
    Pod(uint64_t(s.size()));
    bytes_ += s;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

class In {
 public:
  In(const std::string& bytes, const char* section) : b_(bytes), section_(section) {}
  template <typename T>
  T Pod() {
    T v;
    Need(sizeof v);
    std::memcpy(&v, b_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string Str() {
    uint64_t n = Pod<uint64_t>();
    Need(n);
    std::string s = b_.substr(at_, n);
    at_ += n;
    return s;
  }
  uint64_t Count(uint64_t each) {  // a count of records of `each` bytes that must fit
    uint64_t n = Pod<uint64_t>();
    if (each && n > (b_.size() - at_) / each) Bad("a count larger than the section");
    return n;
  }
  void Need(uint64_t n) const {
    if (n > b_.size() - at_) Bad("shorter than its fields");
  }
  [[noreturn]] void Bad(const char* why) const {
    throw Error(std::string("the ") + section_ + " section is malformed: " + why);
  }

 private:
  const std::string& b_;
  const char* section_;
  size_t at_ = 0;
};

}  // namespace strata::snapshot::codec
