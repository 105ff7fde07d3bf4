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
#include "strata/core/rank_run.h"
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
  // A distributed job's ranks when opened by openRankRun (profile is then its merged profile).
  std::shared_ptr<const strata::core::RankRun> ranks;
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
  // Top-down views whose first part was sent before the whole was built (the rest is built in
  // the background; GetView waits for it), with their frame tables, per the same key.
  std::map<std::tuple<int, size_t, int, bool>, std::shared_ptr<strata::core::TopDownParts>> parts;
  std::map<strata::core::TopDownParts*, std::shared_ptr<const ViewFrames>> parts_frames;
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

  // The top-down view of `shape` as parts (made now unless kept), and its frame table; null when
  // its whole view is kept already (GetView has it). Becomes what the kind shows.
  std::shared_ptr<strata::core::TopDownParts> GetParts(const Shape& shape, std::shared_ptr<const ViewFrames>* frames_out) {
    const int k = static_cast<int>(ViewKind::kTopDown);
    Shape s = shape;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (views.count(Key(k, s))) return nullptr;
      auto it = parts.find(Key(k, s));
      if (it != parts.end()) {
        last[k] = s;
        *frames_out = parts_frames[it->second.get()];
        return it->second;
      }
    }
    strata::core::ViewOptions options;
    options.primary_metric = s.metric;
    options.expand = false;
    options.all_metrics = false;
    options.filter = s.filter;
    options.by_function = s.by_function;
    std::shared_ptr<strata::core::TopDownParts> made = profile->BeginTopDown(options);  // may throw
    auto frames_made = std::make_shared<const ViewFrames>(ViewFrames::Of(*made->frame_table(), made->frames_shown()));
    std::lock_guard<std::mutex> lock(mu);
    if (s.filter == strata::core::FrameFilter::kAuto) {
      parts.try_emplace(Key(k, s), made);
      s.filter = made->filter();
    }
    auto& slot = parts[Key(k, s)];
    if (!slot) slot = made;
    auto& frames_slot = parts_frames[slot.get()];
    if (!frames_slot) frames_slot = frames_made;
    last[k] = s;
    *frames_out = frames_slot;
    Prune(nullptr);
    return slot;
  }

  // The top-down view shown, when it is still in parts (else null: GetView has it whole).
  std::shared_ptr<strata::core::TopDownParts> ShownParts(std::shared_ptr<const ViewFrames>* frames_out) {
    std::lock_guard<std::mutex> lock(mu);
    const int k = static_cast<int>(ViewKind::kTopDown);
    auto it = last.find(k);
    if (it == last.end()) return nullptr;
    auto p = parts.find(Key(k, it->second));
    if (p == parts.end() || p->second->has_whole()) return nullptr;
    *frames_out = parts_frames[p->second.get()];
    return p->second;
  }

  // The parts' whole view (built now unless the background fill did), kept as GetView keeps
  // views, with the parts' frame table.
  std::shared_ptr<const View> Fill(const std::shared_ptr<strata::core::TopDownParts>& made) {
    std::shared_ptr<const View> whole = made->Whole();
    std::lock_guard<std::mutex> lock(mu);
    bool kept = false;
    for (auto it = parts.begin(); it != parts.end();) {
      if (it->second != made) { ++it; continue; }
      kept = true;
      views.try_emplace(it->first, whole);
      it = parts.erase(it);
    }
    auto f = parts_frames.find(made.get());
    if (f != parts_frames.end()) {
      if (kept) frames.try_emplace(whole.get(), f->second);
      parts_frames.erase(f);
    }
    return whole;
  }

  // `metric` and `shape` absent: the kind's last ones. An explicit metric keeps the kind's last
  // filter and grouping (node ids then name nodes of the view on screen). `shown` false: a view
  // asked for on the side (a sandwich's top-down view while bottom-up is shown) leaves what the
  // kind shows as it was.
  std::shared_ptr<const View> GetView(ViewKind kind, std::optional<size_t> metric,
                                      std::optional<Shape> shape = std::nullopt, bool shown = true) {
    Shape s;
    const int k = static_cast<int>(kind);
    std::shared_ptr<strata::core::TopDownParts> pending;
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
      auto p = parts.find(Key(k, s));
      if (p != parts.end()) {
        pending = p->second;
        if ((metric || shape) && shown) last[k] = s;
      }
    }
    // Sent in parts: its whole view (filled in the background, or built now).
    if (pending) return Fill(pending);
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
    std::shared_ptr<const View> kept = slot;
    Prune(kept.get());
    return kept;
  }

  // Memory: a view of a million nodes holds tens of megabytes. Keep the view just built (`kept`)
  // and the ones each kind shows (`last`), whole or in parts; others are rebuilt when asked for
  // again. Called with `mu` held.
  void Prune(const View* just_built) {
    std::set<const void*> keep{just_built};
    for (const auto& [kind, shown] : last) {
      auto it = views.find(Key(kind, shown));
      if (it != views.end()) keep.insert(it->second.get());
      auto p = parts.find(Key(kind, shown));
      if (p != parts.end()) keep.insert(p->second.get());
    }
    for (auto it = views.begin(); it != views.end();) {
      if (!keep.count(it->second.get())) it = views.erase(it);
      else ++it;
    }
    for (auto it = frames.begin(); it != frames.end();) {
      if (!keep.count(it->first)) it = frames.erase(it);
      else ++it;
    }
    for (auto it = parts.begin(); it != parts.end();) {
      if (!keep.count(it->second.get())) it = parts.erase(it);
      else ++it;
    }
    for (auto it = parts_frames.begin(); it != parts_frames.end();) {
      if (!keep.count(it->first)) it = parts_frames.erase(it);
      else ++it;
    }
  }

  static std::tuple<int, size_t, int, bool> Key(int kind, const Shape& s) {
    return {kind, s.metric, static_cast<int>(s.filter), s.by_function};
  }
};

}  // namespace strata::addon
