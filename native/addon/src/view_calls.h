// The flame graph's calls of the addon (its route to the core's views): a view, or the part of
// it to draw first; a node's part when the viewer zooms into it; the sandwich of a function; every
// metric of one node. Each runs on the libuv thread pool.
#pragma once

#include <napi.h>

#include <cstdint>
#include <memory>
#include <optional>

#include "profile_state.h"

namespace strata::addon {

// The part of a view to send first: the nodes of at least `min_share` of the root's value (a
// viewer asks for what is over half a pixel at its width), at most `max_nodes`, `max_depth`
// levels below the root (the rows of a screen); a view of at most `whole_up_to` nodes goes whole.
struct FirstPart {
  double min_share = 0;
  size_t max_nodes = SIZE_MAX;
  size_t max_depth = SIZE_MAX;
  size_t whole_up_to = 0;
};

// view(kind, metric, options[, first]): `first` absent, the whole view.
Napi::Value QueueView(Napi::Env env, std::shared_ptr<ProfileState> state, ViewKind kind, size_t metric,
                      std::optional<ProfileState::Shape> shape, std::optional<FirstPart> first);
// viewPart(kind, node, bound): the part under `node` of the view last built for `kind`; null
// for a node that view does not have.
Napi::Value QueueViewPart(Napi::Env env, std::shared_ptr<ProfileState> state, ViewKind kind, size_t node,
                          strata::core::SliceBound bound);
// sandwich(kind, node): the sandwich of the function of `node` (of the view last built for
// `kind`), made from the top-down view of the same metric and frames; null for an unknown node.
Napi::Value QueueSandwich(Napi::Env env, std::shared_ptr<ProfileState> state, ViewKind kind, size_t node);
// nodeMetrics(kind, node): every metric at a node of the view last built for `kind`.
Napi::Value QueueNodeMetrics(Napi::Env env, std::shared_ptr<ProfileState> state, ViewKind kind, size_t node);

}  // namespace strata::addon
