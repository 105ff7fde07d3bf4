#include "protobuf_writer.h"

namespace strata::core::detail {

void ProtobufWriter::RawVarint(uint64_t value) {
  while (value >= 0x80) {
    bytes_.push_back(char((value & 0x7f) | 0x80));
    value >>= 7;
  }
  bytes_.push_back(char(value));
}

void ProtobufWriter::Tag(uint32_t field, uint32_t wire_type) { RawVarint((uint64_t(field) << 3) | wire_type); }

void ProtobufWriter::Varint(uint32_t field, uint64_t value) {
  Tag(field, 0);
  RawVarint(value);
}

void ProtobufWriter::Fixed64(uint32_t field, uint64_t bits) {
  Tag(field, 1);
  for (int k = 0; k < 8; ++k) bytes_.push_back(char((bits >> (8 * k)) & 0xff));  // little-endian
}

void ProtobufWriter::Bytes(uint32_t field, const std::string& bytes) {
  Tag(field, 2);
  RawVarint(bytes.size());
  bytes_ += bytes;
}

void ProtobufWriter::PackedVarints(uint32_t field, const std::vector<uint64_t>& values) {
  if (values.empty()) return;
  ProtobufWriter body;
  for (uint64_t v : values) body.RawVarint(v);
  Bytes(field, body.bytes_);
}

}  // namespace strata::core::detail
