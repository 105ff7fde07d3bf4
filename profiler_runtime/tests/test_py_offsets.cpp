// The hard-coded CPython offsets (src/python/offsets.h) against each version's headers
// (offsetof), for every CPython 3.9-3.13 whose headers were found at build time.
#include <gtest/gtest.h>

#include <cstdint>

#include "python/offsets.h"

namespace py = strata::rt::python;

extern "C" {
#define STRATA_DECLARE(minor) void strata_py3##minor##_header_offsets(int32_t* out);
STRATA_DECLARE(9) STRATA_DECLARE(10) STRATA_DECLARE(11) STRATA_DECLARE(12) STRATA_DECLARE(13)
}

namespace {

using OffsetsFn = void (*)(int32_t*);

// Null when the headers of 3.<minor> were not found at build time.
OffsetsFn HeaderOffsets(int minor) {
  switch (minor) {
#ifdef STRATA_HAVE_PY39_HEADERS
    case 9: return strata_py39_header_offsets;
#endif
#ifdef STRATA_HAVE_PY310_HEADERS
    case 10: return strata_py310_header_offsets;
#endif
#ifdef STRATA_HAVE_PY311_HEADERS
    case 11: return strata_py311_header_offsets;
#endif
#ifdef STRATA_HAVE_PY312_HEADERS
    case 12: return strata_py312_header_offsets;
#endif
#ifdef STRATA_HAVE_PY313_HEADERS
    case 13: return strata_py313_header_offsets;
#endif
    default: return nullptr;
  }
}

class PyOffsets : public ::testing::TestWithParam<int> {};

TEST_P(PyOffsets, TableMatchesHeaders) {
  int minor = GetParam();
  OffsetsFn fn = HeaderOffsets(minor);
  if (!fn) GTEST_SKIP() << "CPython 3." << minor << " headers not found (~/.pyenv/versions/3." << minor << ".*/include)";
  int32_t h[64];
  for (auto& v : h) v = -2;
  fn(h);
  const py::Offsets* t = py::OffsetsFor(3, minor);
  ASSERT_NE(t, nullptr);
  int i = 0;
  EXPECT_EQ(h[i++], t->minor);
  EXPECT_EQ(h[i++], int32_t(t->tstate_frame)) << "tstate frame";
  EXPECT_EQ(h[i++], t->cframe_current_frame) << "cframe current_frame";
  EXPECT_EQ(h[i++], int32_t(t->frame_code)) << "frame code";
  EXPECT_EQ(h[i++], int32_t(t->frame_previous)) << "frame previous";
  EXPECT_EQ(h[i++], int32_t(t->frame_instr)) << "frame instr";
  EXPECT_EQ(h[i++], t->frame_is_entry) << "is_entry";
  EXPECT_EQ(h[i++], t->frame_owner) << "owner";
  EXPECT_EQ(h[i++], t->frame_lineno) << "f_lineno";
  EXPECT_EQ(h[i++], int32_t(t->ob_type));
  EXPECT_EQ(h[i++], int32_t(t->code_firstlineno)) << "co_firstlineno";
  EXPECT_EQ(h[i++], int32_t(t->code_filename)) << "co_filename";
  EXPECT_EQ(h[i++], int32_t(t->code_name)) << "co_qualname / co_name";
  EXPECT_EQ(h[i++], int32_t(t->code_linetable)) << "co_linetable / co_lnotab";
  EXPECT_EQ(h[i++], t->code_firsttraceable) << "_co_firsttraceable";
  EXPECT_EQ(h[i++], t->code_code_adaptive) << "co_code_adaptive";
  EXPECT_EQ(h[i++], int32_t(t->var_size));
  EXPECT_EQ(h[i++], int32_t(t->bytes_sval));
  EXPECT_EQ(h[i++], int32_t(t->unicode_length));
  EXPECT_EQ(h[i++], int32_t(t->unicode_state));
  EXPECT_EQ(h[i++], int32_t(t->ascii_data));
  EXPECT_EQ(h[i++], int32_t(t->compact_utf8_length));
  EXPECT_EQ(h[i++], int32_t(t->compact_utf8));
  EXPECT_EQ(h[i++], int32_t(t->compact_data));
  bool interp = t->layout == py::FrameLayout::kInterpreterFrame;
  EXPECT_EQ(h[i++], interp ? py::kOwnedByGenerator : -1);
  EXPECT_EQ(h[i++], minor >= 12 ? py::kOwnedByCStack : -1);
  EXPECT_EQ(uint32_t(h[i++]), py::kStateCompact);
  EXPECT_EQ(uint32_t(h[i++]), py::kStateAscii);
  EXPECT_EQ(uint32_t(h[i++]), py::kStateKindMask);
  // Layout and table format follow the version.
  EXPECT_EQ(interp, minor >= 11);
  EXPECT_EQ(t->lines, minor == 9 ? py::LineTable::kLnotab
                      : minor == 10 ? py::LineTable::kLinetable : py::LineTable::kLocations);
}

INSTANTIATE_TEST_SUITE_P(Versions, PyOffsets, ::testing::Values(9, 10, 11, 12, 13),
                         [](const ::testing::TestParamInfo<int>& i) { return "Py3" + std::to_string(i.param); });

TEST(PyOffsetsTable, SupportedVersions) {
  for (int minor = 9; minor <= 13; ++minor) EXPECT_NE(py::OffsetsFor(3, minor), nullptr) << minor;
  EXPECT_EQ(py::OffsetsFor(3, 8), nullptr);
  EXPECT_EQ(py::OffsetsFor(3, 14), nullptr);
  EXPECT_EQ(py::OffsetsFor(2, 7), nullptr);
}

}  // namespace
