// The nodes of a part of a view as the webview protocol's node columns: parent inside the part,
// frame (an entry of the view's ViewFrames), the drawn metric's inclusive, exclusive and count;
// for a part that is not the whole view also each node's id in the view (what later calls name
// it by) and whether some of its children were left out.
#pragma once

#include <napi.h>

#include <cstdint>
#include <vector>

#include "strata/core/api.h"
#include "view_frames.h"

namespace strata::addon {

struct PartColumns {
  std::vector<int32_t> parent;
  std::vector<uint32_t> frame, node;
  std::vector<double> inclusive, exclusive, count;
  std::vector<uint8_t> more;  // strata::core::LeftOut per node (the protocol's LeftOut)
  double min_value = 0;  // every child left out is under it (0: none)
  bool whole = true;     // every node of the view, ids = indexes: no `node` / `more` columns

  // `with_ids`: name the nodes also when the slice is the whole view (a part's ids are never
  // taken for indexes).
  static PartColumns Of(const strata::core::View& view, const ViewFrames& frames, const strata::core::ViewSlice& slice,
                        bool with_ids = false);
  // A part with its nodes' frames and values (a view sent in parts); `view_size`: the view's nodes.
  static PartColumns Of(const strata::core::ViewPart& part, const ViewFrames& frames, size_t view_size, bool with_ids = false);
  // The whole view.
  static PartColumns Of(const strata::core::View& view, const ViewFrames& frames);
  // parent, frame, inclusive, exclusive, count; node, more and minValue unless whole.
  void Set(Napi::Env env, Napi::Object out) const;
};

}  // namespace strata::addon
