// libFuzzer target: arbitrary bytes through the reader, the three views and both reports, and
// the region decoder on the region launches the profile carries.
// Any crash, sanitizer report, leak or exception other than strata::core::Error is a bug.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "strata/core/api.h"
#include "strata/core/report.h"
#include "regions/legacy_region_form.h"
#include "strata/format/layout.h"
#include "strata/format/reader.h"
#include "strata/region_decoder/calibration.h"
#include "strata/region_decoder/decode.h"
#include "strata/region_decoder/group_shares.h"

namespace {

void Exercise(std::vector<unsigned char> bytes) {
  using namespace strata::core;
  const std::vector<unsigned char> bytes_copy = bytes;  // 8-aligned (operator new)
  std::unique_ptr<Profile> profile;
  try {
    profile = Profile::FromBytes(std::move(bytes));
  } catch (const Error&) {
    return;
  }
  profile->meta();
  profile->meta("command");
  {  // Validated by FromBytes already: Parse does not throw here.
    auto r = strata::format::ProfileReader::Parse(bytes_copy.data(), bytes_copy.size());
    namespace rd = strata::region_decoder;
    for (size_t i = 0; i < r.region_launch_count(); ++i) {
      std::string_view b = r.region_launch(i).buffer;
      rd::Trace t = rd::Decode(reinterpret_cast<const uint8_t*>(b.data()), b.size());
      rd::GroupShares(t);
      rd::CalibrateRecordCost(t);
    }
    for (const auto& l : strata::core::regions::detail::LegacyLaunches(r))  // the old form's blobs
      rd::GroupShares(rd::Decode(reinterpret_cast<const uint8_t*>(l.bytes.data()), l.bytes.size()));
  }
  for (ViewKind kind : {ViewKind::kTopDown, ViewKind::kBottomUp, ViewKind::kFlat}) {
    try {
      ViewOptions options;
      options.expand = kind == ViewKind::kTopDown;
      View view = profile->BuildView(kind, options);
      ReportOptions ro;
      ro.limit = 3;
      JsonReport(*profile, view, ro);
      TextReport(*profile, view, ReportOptions{});
    } catch (const Error&) {
    }
  }
  // A lean top-down view's metrics at every node, and the view in parts before it is whole.
  try {
    ViewOptions lean;
    lean.expand = false;
    lean.all_metrics = false;
    View view = profile->BuildView(ViewKind::kTopDown, lean);
    for (size_t k = 0; k < profile->metrics().size() && k < 4; ++k) profile->MetricColumn(view, k);
    auto parts = profile->BeginTopDown(lean);
    if (parts->size()) {
      const auto first = parts->Part(0, strata::core::SliceBound{0, 64, 8, 0});
      for (size_t j = 1; j < first.slice.node.size() && j < 4; ++j) parts->Part(first.slice.node[j], strata::core::SliceBound{});
      parts->Whole();
    }
  } catch (const Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<unsigned char> bytes(data, data + size);
  Exercise(bytes);
  // Again with file_size and checksum made consistent, so that mutations reach the checks
  // behind the checksum (section table, records, indices, views).
  namespace fmt = strata::format;
  if (size >= sizeof(fmt::FileHeader)) {
    fmt::FileHeader h;
    std::memcpy(&h, bytes.data(), sizeof h);
    h.file_size = size;
    h.checksum = fmt::Fnv1a(bytes.data() + sizeof h, size - sizeof h);
    std::memcpy(bytes.data(), &h, sizeof h);
    Exercise(std::move(bytes));
  }
  return 0;
}
