// The native state behind one JS Profile object, shared by the calls that work on it.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "strata/core/api.h"
#include "view_frames.h"

namespace strata::addon {

using strata::core::Profile;
using strata::core::View;
using strata::core::ViewKind;

// The native state behind one JS Profile object. Workers hold a shared_ptr to it, so close()
// while a worker runs is safe: the core profile is released when the last worker finishes.
struct ProfileState {
  std::string path;
  std::shared_ptr<const Profile> profile;
  std::mutex mu;
  // Views built so far, per (kind, metric, frame filter, by function), and the last ones asked
  // for per kind (the view the user is looking at: sourceLocation and regionLaunchesOf without an
  // explicit metric, nodeMetrics).
  struct Shape {
    size_t metric = 0;
    strata::core::FrameFilter filter = strata::core::FrameFilter::kAuto;  // the Python view for Python programs
    bool by_function = false;
  };
  std::map<std::tuple<int, size_t, int, bool>, std::shared_ptr<const View>> views;
  std::map<int, Shape> last;
  // The frame table of each kept view, as columns (made when a view is first sent).
  std::map<const View*, std::shared_ptr<const ViewFrames>> frames;

  // What the kind last showed (its metric, frames and grouping).
  Shape LastShape(ViewKind kind) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = last.find(static_cast<int>(kind));
    return it == last.end() ? Shape{} : it->second;
  }

  std::shared_ptr<const ViewFrames> FramesOf(const std::shared_ptr<const View>& view) {
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = frames.find(view.get());
      if (it != frames.end()) return it->second;
    }
    auto made = std::make_shared<const ViewFrames>(ViewFrames::Of(*view));
    std::lock_guard<std::mutex> lock(mu);
    // Kept only while the view is (it may have been dropped meanwhile).
    bool kept = false;
    for (const auto& [key, v] : views) kept |= v == view;
    if (!kept) return made;
    auto& slot = frames[view.get()];
    if (!slot) slot = made;
    return slot;
  }

  // `metric` and `shape` absent: the kind's last ones. An explicit metric keeps the kind's last
  // filter and grouping (node ids then name nodes of the view on screen). `shown` false: a view
  // asked for on the side (a sandwich's top-down view while bottom-up is shown) leaves what the
  // kind shows as it was.
  std::shared_ptr<const View> GetView(ViewKind kind, std::optional<size_t> metric,
                                      std::optional<Shape> shape = std::nullopt, bool shown = true) {
    Shape s;
    const int k = static_cast<int>(kind);
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = last.find(k);
      if (shape) s = *shape;
      else if (it != last.end()) s = it->second;
      if (metric) s.metric = *metric;
      else if (it != last.end()) s.metric = it->second.metric;
      auto v = views.find(Key(k, s));
      if (v != views.end()) {
        if ((metric || shape) && shown) last[k] = s;
        return v->second;
      }
    }
    // Compact: every frame once (the profile's frame table), nodes refer to it; the drawn
    // metric's values only (a node's other metrics are computed when the details ask).
    strata::core::ViewOptions options;
    options.primary_metric = s.metric;
    options.expand = false;
    options.all_metrics = false;
    options.filter = s.filter;
    options.by_function = s.by_function;
    auto view = std::make_shared<const View>(profile->BuildView(kind, options));  // may throw
    std::lock_guard<std::mutex> lock(mu);
    if (s.filter == strata::core::FrameFilter::kAuto) {
      // Cached under what it resolved to, and also under kAuto.
      views.try_emplace(Key(k, s), view);
      s.filter = view->filter;
    }
    auto& slot = views[Key(k, s)];
    if (!slot) slot = view;
    if ((metric || shape) && shown) last[k] = s;
    // Memory: a view of a million nodes holds tens of megabytes. Keep the view just built and
    // the ones each kind shows (`last`); others are rebuilt when asked for again.
    std::shared_ptr<const View> kept = slot;
    std::set<const View*> keep{kept.get()};
    for (const auto& [kind, shown] : last) {
      auto it = views.find(Key(kind, shown));
      if (it != views.end()) keep.insert(it->second.get());
    }
    for (auto it = views.begin(); it != views.end();) {
      if (!keep.count(it->second.get())) it = views.erase(it);
      else ++it;
    }
    for (auto it = frames.begin(); it != frames.end();) {
      if (!keep.count(it->first)) it = frames.erase(it);
      else ++it;
    }
    return kept;
  }

  static std::tuple<int, size_t, int, bool> Key(int kind, const Shape& s) {
    return {kind, s.metric, static_cast<int>(s.filter), s.by_function};
  }
};

}  // namespace strata::addon
