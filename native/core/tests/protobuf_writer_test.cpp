// The pprof export's protobuf wire-format writer, byte for byte against the encoding rules
// (varints little-endian in 7-bit groups, negative int64 as ten bytes, tags field << 3 | type).
#include <gtest/gtest.h>

#include <string>

#include "export/protobuf_writer.h"

namespace strata::core::detail {
namespace {

std::string Hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out += ' ';
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

TEST(ProtobufWriter, Varints) {
  ProtobufWriter w;
  w.Varint(1, 150);
  EXPECT_EQ(Hex(w.bytes()), "08 96 01");
  ProtobufWriter zero;
  zero.Varint(1, 0);
  EXPECT_EQ(Hex(zero.bytes()), "08 00");
  ProtobufWriter negative;
  negative.Int64(2, -1);
  EXPECT_EQ(Hex(negative.bytes()), "10 ff ff ff ff ff ff ff ff ff 01");
  ProtobufWriter high_field;
  high_field.Varint(16, 1);  // a tag past one byte
  EXPECT_EQ(Hex(high_field.bytes()), "80 01 01");
}

TEST(ProtobufWriter, LengthDelimitedAndPacked) {
  ProtobufWriter w;
  w.Bytes(6, "hi");
  EXPECT_EQ(Hex(w.bytes()), "32 02 68 69");
  ProtobufWriter empty_string;
  empty_string.Bytes(6, "");
  EXPECT_EQ(Hex(empty_string.bytes()), "32 00");

  ProtobufWriter packed;
  packed.PackedVarints(1, {1, 300});
  EXPECT_EQ(Hex(packed.bytes()), "0a 03 01 ac 02");
  ProtobufWriter none;
  none.PackedVarints(1, {});
  EXPECT_EQ(none.bytes(), "");

  ProtobufWriter inner, outer;
  inner.Varint(1, 3);
  outer.Message(2, inner);
  EXPECT_EQ(Hex(outer.bytes()), "12 02 08 03");
}

}  // namespace
}  // namespace strata::core::detail
