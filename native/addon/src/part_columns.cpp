// A part of a view (core SliceView) or the whole of it, as columns.
#include "part_columns.h"

#include "promise_worker.h"

namespace strata::addon {

namespace {
// The per-node columns of the view nodes id_of(0..n-1).
template <typename IdOf>
void Fill(PartColumns& out, const strata::core::View& view, const ViewFrames& frames, size_t n, IdOf id_of) {
  out.frame.resize(n);
  out.inclusive.resize(n);
  out.exclusive.resize(n);
  out.count.resize(n);
  for (size_t j = 0; j < n; ++j) {
    const size_t i = id_of(j);
    out.frame[j] = frames.entry_of_frame[view.frame_id[i]];
    out.inclusive[j] = view.values[i].inclusive;
    out.exclusive[j] = view.values[i].exclusive;
    out.count[j] = static_cast<double>(view.values[i].count);
  }
}
}  // namespace

PartColumns PartColumns::Of(const strata::core::View& view, const ViewFrames& frames, const strata::core::ViewSlice& slice,
                            bool with_ids) {
  PartColumns out;
  out.whole = !with_ids && slice.node.size() == view.size() && slice.min_value == 0;
  out.parent = slice.parent;
  Fill(out, view, frames, slice.node.size(), [&](size_t j) { return slice.node[j]; });
  if (!out.whole) {
    out.node = slice.node;
    out.more.reserve(slice.more.size());
    for (strata::core::LeftOut x : slice.more) out.more.push_back(static_cast<uint8_t>(x));
    out.min_value = slice.min_value;
  }
  return out;
}

PartColumns PartColumns::Of(const strata::core::ViewPart& part, const ViewFrames& frames, size_t view_size, bool with_ids) {
  PartColumns out;
  const auto& slice = part.slice;
  out.whole = !with_ids && slice.node.size() == view_size && slice.min_value == 0;
  out.parent = slice.parent;
  const size_t n = slice.node.size();
  out.frame.resize(n);
  out.inclusive.resize(n);
  out.exclusive.resize(n);
  out.count.resize(n);
  for (size_t j = 0; j < n; ++j) {
    out.frame[j] = frames.entry_of_frame[part.frame_id[j]];
    out.inclusive[j] = part.values[j].inclusive;
    out.exclusive[j] = part.values[j].exclusive;
    out.count[j] = static_cast<double>(part.values[j].count);
  }
  if (!out.whole) {
    out.node = slice.node;
    out.more.reserve(slice.more.size());
    for (strata::core::LeftOut x : slice.more) out.more.push_back(static_cast<uint8_t>(x));
    out.min_value = slice.min_value;
  }
  return out;
}

PartColumns PartColumns::Of(const strata::core::View& view, const ViewFrames& frames) {
  PartColumns out;
  out.parent = view.parent;
  Fill(out, view, frames, view.size(), [](size_t i) { return i; });
  return out;
}

void PartColumns::Set(Napi::Env env, Napi::Object out) const {
  out.Set("parent", I32Column(env, parent));
  out.Set("frame", U32Column(env, frame));
  out.Set("inclusive", F64Column(env, inclusive));
  out.Set("exclusive", F64Column(env, exclusive));
  out.Set("count", F64Column(env, count));
  if (whole) return;
  out.Set("node", U32Column(env, node));
  out.Set("more", U8Column(env, more));
  out.Set("minValue", Napi::Number::New(env, min_value));
}

}  // namespace strata::addon
