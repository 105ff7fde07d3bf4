// The hard-coded CPython 3.11 offsets against the installed 3.11 headers (offsetof).
#include <gtest/gtest.h>

#include <cstdint>

#include "python/offsets.h"

extern "C" void strata_py311_header_offsets(uint32_t* out);

TEST(PyOffsets, Table311MatchesHeaders) {
  uint32_t h[32] = {0};
  strata_py311_header_offsets(h);
  const auto& t = strata::rt::python::kPy311;
  int i = 0;
  EXPECT_EQ(h[i++], uint32_t(t.minor));
  EXPECT_EQ(h[i++], t.tstate_cframe);
  EXPECT_EQ(h[i++], t.cframe_current_frame);
  EXPECT_EQ(h[i++], t.frame_code);
  EXPECT_EQ(h[i++], t.frame_previous);
  EXPECT_EQ(h[i++], t.frame_prev_instr);
  EXPECT_EQ(h[i++], uint32_t(t.frame_is_entry));
  EXPECT_EQ(h[i++], t.frame_owner);
  EXPECT_EQ(h[i++], t.ob_type);
  EXPECT_EQ(h[i++], t.code_firstlineno);
  EXPECT_EQ(h[i++], t.code_filename);
  EXPECT_EQ(h[i++], t.code_qualname);
  EXPECT_EQ(h[i++], t.code_linetable);
  EXPECT_EQ(h[i++], t.code_firsttraceable);
  EXPECT_EQ(h[i++], t.code_code_adaptive);
  EXPECT_EQ(h[i++], t.var_size);
  EXPECT_EQ(h[i++], t.bytes_sval);
  EXPECT_EQ(h[i++], t.unicode_length);
  EXPECT_EQ(h[i++], t.unicode_state);
  EXPECT_EQ(h[i++], t.ascii_data);
  EXPECT_EQ(h[i++], t.compact_utf8_length);
  EXPECT_EQ(h[i++], t.compact_utf8);
  EXPECT_EQ(h[i++], uint32_t(strata::rt::python::kOwnedByGenerator));
  EXPECT_EQ(h[i++], strata::rt::python::kStateCompact);
  EXPECT_EQ(h[i++], strata::rt::python::kStateAscii);
}

TEST(PyOffsets, SupportedVersions) {
  EXPECT_NE(strata::rt::python::OffsetsFor(3, 11), nullptr);
  EXPECT_NE(strata::rt::python::OffsetsFor(3, 12), nullptr);
  EXPECT_EQ(strata::rt::python::OffsetsFor(3, 10), nullptr);
  EXPECT_EQ(strata::rt::python::OffsetsFor(3, 13), nullptr);
}
