// The few protobuf wire-format encodings pprof's profile.proto and Perfetto's trace need (varint,
// 64-bit, length-delimited and packed varint fields), so the core links no protobuf library: the packaged CLI and addon
// must run on hosts with nothing but the NVIDIA driver installed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strata::core::detail {

class ProtobufWriter {
 public:
  void Varint(uint32_t field, uint64_t value);           // wire type 0
  void Int64(uint32_t field, int64_t value) { Varint(field, uint64_t(value)); }
  void Fixed64(uint32_t field, uint64_t bits);           // wire type 1: doubles (their bits)
  void Bytes(uint32_t field, const std::string& bytes);  // wire type 2: strings, messages
  void Message(uint32_t field, const ProtobufWriter& message) { Bytes(field, message.bytes_); }
  void PackedVarints(uint32_t field, const std::vector<uint64_t>& values);  // proto3 repeated scalars

  const std::string& bytes() const { return bytes_; }

 private:
  void Tag(uint32_t field, uint32_t wire_type);
  void RawVarint(uint64_t value);
  std::string bytes_;
};

}  // namespace strata::core::detail
