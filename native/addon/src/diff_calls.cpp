// The diff workers: the core compares on the thread pool; the answer is B's view as a view's
// first part is (the part wider than half a pixel, or the whole view when small) with, per node
// sent, A's value and how it matched; the comparison is kept behind the answer's `part` (a
// node's part, as viewPart cuts one), `path` (the nodes from the root to one node: what a row of
// the table zooms to) and `frameOf` (a node's frame, for opening its source).
#include "diff_calls.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "part_columns.h"
#include "promise_worker.h"
#include "strata/core/profile_diff.h"

namespace strata::addon {
namespace {

namespace core = strata::core;

// Rows sent to the table: the largest changes (the table shows a screenful and scrolls).
constexpr size_t kRowsSent = 200;

// What the answer's methods work on: the comparison and B's frame table as columns.
struct DiffState {
  core::DiffView diff;
  ViewFrames frames;
};

Napi::Object FrameObject(Napi::Env env, const core::FrameInfo& f) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("kind", f.kind);
  o.Set("name", f.name);
  o.Set("file", f.file);
  o.Set("line", Napi::Number::New(env, f.line));
  return o;
}

// Nodes of B's view with A's value and the match of each: a part's columns plus `baseline` and
// `match`.
struct DiffPart {
  PartColumns columns;
  std::vector<double> baseline;
  std::vector<uint8_t> match;

  static DiffPart Of(const DiffState& s, const core::ViewSlice& slice, bool with_ids) {
    DiffPart out;
    out.columns = PartColumns::Of(s.diff.view, s.frames, slice, with_ids);
    out.baseline.reserve(slice.node.size());
    out.match.reserve(slice.node.size());
    for (uint32_t i : slice.node) {
      out.baseline.push_back(s.diff.a_inclusive[i]);
      out.match.push_back(uint8_t(s.diff.match[i]));
    }
    return out;
  }
  void Set(Napi::Env env, Napi::Object out) const {
    columns.Set(env, out);
    out.Set("baseline", F64Column(env, baseline));
    out.Set("match", U8Column(env, match));
  }
};

// The nodes from the root down to `node`, each with its other children left out whatever their
// value: what the viewer needs to show a node it has not been sent.
core::ViewSlice PathSlice(const core::View& view, size_t node) {
  core::ViewSlice s;
  for (size_t n = node;; n = size_t(view.parent[n])) {
    s.node.push_back(uint32_t(n));
    if (n == 0) break;
  }
  std::reverse(s.node.begin(), s.node.end());
  for (size_t j = 0; j < s.node.size(); ++j) {
    s.parent.push_back(int32_t(j) - 1);
    const size_t i = s.node[j];
    const bool has_children = i + 1 < view.size() && size_t(view.parent[i + 1]) == i;
    s.more.push_back(has_children ? core::LeftOut::kAny : core::LeftOut::kNone);
  }
  return s;
}

class DiffPartWorker : public PromiseWorker {
 public:
  DiffPartWorker(Napi::Env env, std::shared_ptr<const DiffState> state, size_t node, core::SliceBound bound, bool path)
      : PromiseWorker(env, "strata.diffPart"), state_(std::move(state)), node_(node), bound_(bound), path_(path) {}

 protected:
  void Run() override {
    const core::View& view = state_->diff.view;
    if (node_ >= view.size()) return;  // not a node of B's view: null
    found_ = true;
    part_ = DiffPart::Of(*state_, path_ ? PathSlice(view, node_) : core::SliceView(view, node_, bound_), /*with_ids=*/true);
  }
  Napi::Value Result(Napi::Env env) override {
    if (!found_) return env.Null();
    Napi::Object out = Napi::Object::New(env);
    out.Set("root", Napi::Number::New(env, double(path_ ? 0 : node_)));
    part_.Set(env, out);
    return out;
  }

 private:
  std::shared_ptr<const DiffState> state_;
  size_t node_;
  core::SliceBound bound_;
  bool path_;
  bool found_ = false;
  DiffPart part_;
};

size_t NodeArgOf(const Napi::CallbackInfo& info, const char* what) {
  const double d = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().DoubleValue() : -1;
  if (!(d >= 0) || d != double(int64_t(d))) throw Napi::TypeError::New(info.Env(), std::string(what) + ": node must be a non-negative integer");
  return size_t(d);
}

core::SliceBound BoundArgOf(const Napi::CallbackInfo& info) {
  if (info.Length() < 2 || !info[1].IsObject()) throw Napi::TypeError::New(info.Env(), "part(node, bound): the bound must be an object {minValue, maxNodes?, maxDepth?}");
  Napi::Object o = info[1].As<Napi::Object>();
  auto number = [&](const char* key, double dflt) {
    Napi::Value v = o.Get(key);
    if (v.IsUndefined() && dflt >= 0) return dflt;
    const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
    if (!(d >= 0) || !std::isfinite(d)) throw Napi::RangeError::New(info.Env(), std::string("part: ") + key + " must be a non-negative number");
    return d;
  };
  core::SliceBound b;
  b.min_value = number("minValue", -1);
  b.max_nodes = size_t(std::min(number("maxNodes", 1e15), 1e15));
  b.max_depth = size_t(std::min(number("maxDepth", 1e15), 1e15));
  return b;
}

class DiffWorker : public PromiseWorker {
 public:
  DiffWorker(Napi::Env env, std::shared_ptr<ProfileState> a, std::shared_ptr<ProfileState> b, std::string metric,
             std::optional<FirstPart> first)
      : PromiseWorker(env, "strata.diff"), a_(std::move(a)), b_(std::move(b)), metric_(std::move(metric)), first_(first) {}

 protected:
  void Run() override {
    auto state = std::make_shared<DiffState>();
    state->diff = core::DiffProfilesView(*a_->profile, *b_->profile, metric_, kRowsSent);
    state->frames = ViewFrames::Of(state->diff.view);
    const core::View& view = state->diff.view;
    core::SliceBound bound;  // no `first`: the whole view
    if (first_ && view.size()) {
      const double total = view.values[0].inclusive;
      bound = core::SliceBound{first_->min_share * total, first_->max_nodes, first_->max_depth, first_->whole_up_to};
    }
    if (view.size()) first_part_ = DiffPart::Of(*state, core::SliceView(view, 0, bound), /*with_ids=*/false);
    state_ = std::move(state);
  }

  Napi::Value Result(Napi::Env env) override {
    const core::DiffView& dv = state_->diff;
    const core::ProfileDiff& d = dv.diff;
    Napi::Object out = Napi::Object::New(env);
    out.Set("metric", d.metric.name);
    out.Set("unit", d.metric.unit);
    out.Set("totalA", Napi::Number::New(env, d.total_a));
    out.Set("totalB", Napi::Number::New(env, d.total_b));
    out.Set("commonPaths", Napi::Number::New(env, double(d.common_paths)));
    out.Set("fuzzyPaths", Napi::Number::New(env, double(d.fuzzy_paths)));
    out.Set("frameFilter", dv.view.filter == core::FrameFilter::kPython ? "python" : "all");
    out.Set("nodes", Napi::Number::New(env, double(dv.view.size())));
    out.Set("largestChange", Napi::Number::New(env, dv.largest_change));
    out.Set("strings", StringArray(env, state_->frames.strings));
    out.Set("frames", state_->frames.Columns(env));
    first_part_.Set(env, out);

    Napi::Array rows = Napi::Array::New(env);
    for (size_t i = 0; i < d.rows.size() && i < kRowsSent; ++i) {
      const core::DiffRow& r = d.rows[i];
      if (r.change() == 0) break;
      Napi::Object o = Napi::Object::New(env);
      o.Set("frame", r.path.empty() ? Napi::Value(env.Null()) : Napi::Value(FrameObject(env, r.path.back())));
      // The user's own line the path runs through (what the change is for, in their code).
      for (size_t k = r.path.size(); k-- > 0;)
        if (r.path[k].origin == core::FrameOrigin::kUser && !r.path[k].file.empty()) {
          o.Set("userFrame", FrameObject(env, r.path[k]));
          break;
        }
      o.Set("a", Napi::Number::New(env, r.a));
      o.Set("b", Napi::Number::New(env, r.b));
      o.Set("match", core::DiffMatchName(r.match));
      o.Set("node", Napi::Number::New(env, double(r.node_b)));
      rows.Set(uint32_t(rows.Length()), o);
    }
    out.Set("rows", rows);
    for (const auto& [key, list] : {std::pair{"appeared", &d.appeared}, std::pair{"vanished", &d.vanished}}) {
      Napi::Array kernels = Napi::Array::New(env);
      for (const core::KernelChange& k : *list) {
        Napi::Object o = Napi::Object::New(env);
        o.Set("name", k.name);
        o.Set("value", Napi::Number::New(env, k.value));
        kernels.Set(uint32_t(kernels.Length()), o);
      }
      out.Set(key, kernels);
    }
    // The comparison stays with the answer (released with it): its parts, paths and frames.
    std::shared_ptr<const DiffState> state = state_;
    out.Set("part", Napi::Function::New(env, [state](const Napi::CallbackInfo& info) -> Napi::Value {
      return strata::addon::Queue(new DiffPartWorker(info.Env(), state, NodeArgOf(info, "part"), BoundArgOf(info), false));
    }, "part"));
    out.Set("path", Napi::Function::New(env, [state](const Napi::CallbackInfo& info) -> Napi::Value {
      return strata::addon::Queue(new DiffPartWorker(info.Env(), state, NodeArgOf(info, "path"), core::SliceBound{}, true));
    }, "path"));
    out.Set("frameOf", Napi::Function::New(env, [state](const Napi::CallbackInfo& info) -> Napi::Value {
      const size_t node = NodeArgOf(info, "frameOf");
      if (node >= state->diff.view.size()) return info.Env().Null();
      return FrameObject(info.Env(), state->diff.view.frame(node));
    }, "frameOf"));
    return out;
  }

 private:
  std::shared_ptr<ProfileState> a_, b_;
  std::string metric_;
  std::optional<FirstPart> first_;
  std::shared_ptr<const DiffState> state_;
  DiffPart first_part_;
};

}  // namespace

Napi::Value QueueDiff(Napi::Env env, std::shared_ptr<ProfileState> a, std::shared_ptr<ProfileState> b,
                      std::string metric, std::optional<FirstPart> first) {
  return Queue(new DiffWorker(env, std::move(a), std::move(b), std::move(metric), first));
}

}  // namespace strata::addon
