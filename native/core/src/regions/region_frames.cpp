// How region frames read (strata/core/regions.h, region_frames.h).
#include "region_frames.h"

#include "legacy_region_form.h"
#include "strata/core/regions.h"

namespace strata::core::regions {

std::string RegionFrameLabel(std::string_view name, bool iteration) {
  std::string label(name);
  if (iteration) label += kIterationSuffix;
  return label;
}

namespace detail {

StoredRegionFrame ReadRegionFrame(const format::ProfileReader& r, const format::FrameRecord& f) {
  StoredRegionFrame out{std::string(r.string(f.name)), (f.flags & format::kFrameFlagIteration) != 0};
  if (!out.iteration) out.iteration = TakeLegacyIterationSuffix(&out.name);
  return out;
}

}  // namespace detail
}  // namespace strata::core::regions
