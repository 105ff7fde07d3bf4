// The native state behind one JS Profile object, shared by the calls that work on it.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "strata/core/api.h"

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
  // Views built so far, per (kind, metric), and the metric most recently used per kind (the
  // view the user is looking at, for sourceLocation without an explicit metric).
  std::map<std::pair<int, size_t>, std::shared_ptr<const View>> views;
  std::map<int, size_t> last_metric;

  std::shared_ptr<const View> GetView(ViewKind kind, std::optional<size_t> metric) {
    size_t m = 0;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (metric) {
        m = *metric;
      } else {
        auto it = last_metric.find(static_cast<int>(kind));
        if (it != last_metric.end()) m = it->second;
      }
      auto it = views.find({static_cast<int>(kind), m});
      if (it != views.end()) {
        if (metric) last_metric[static_cast<int>(kind)] = m;
        return it->second;
      }
    }
    // Compact: every frame once (the profile's frame table), nodes refer to it.
    strata::core::ViewOptions options;
    options.primary_metric = m;
    options.expand = false;
    auto view = std::make_shared<const View>(profile->BuildView(kind, options));  // may throw
    std::lock_guard<std::mutex> lock(mu);
    auto& slot = views[{static_cast<int>(kind), m}];
    if (!slot) slot = view;
    if (metric) last_metric[static_cast<int>(kind)] = m;
    // Memory: each view holds every metric of every node. Keep the view just built and the one
    // each kind shows (last_metric); others are rebuilt when asked for again.
    std::shared_ptr<const View> kept = slot;
    for (auto it = views.begin(); it != views.end();) {
      auto lm = last_metric.find(it->first.first);
      const bool shown = lm != last_metric.end() && lm->second == it->first.second;
      if (it->second != kept && !shown) it = views.erase(it);
      else ++it;
    }
    return kept;
  }
};

}  // namespace strata::addon
