// Workers of the flame graph's calls: each asks the core on the thread pool and turns what it
// built into columns (a view's frame table once per view, its nodes per part).
#include "view_calls.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "part_columns.h"
#include "promise_worker.h"

namespace strata::addon {

namespace {

using strata::core::View;

// The fields every answer that carries nodes has: which metric, the frame table, the frames shown.
struct ViewHeader {
  std::string metric, unit;
  bool python_view = false, by_function = false;
  std::shared_ptr<const ViewFrames> frames;

  void Fill(const ProfileState& state, const View& view) { Fill(state, view.primary_metric, view.filter, view.by_function); }
  void Fill(const ProfileState& state, size_t primary, strata::core::FrameFilter filter, bool grouped) {
    const auto& metrics = state.profile->metrics();
    if (primary < metrics.size()) {
      metric = metrics[primary].name;
      unit = metrics[primary].unit;
    }
    python_view = filter == strata::core::FrameFilter::kPython;
    by_function = grouped;
  }
  void Set(Napi::Env env, Napi::Object out) const {
    out.Set("metric", metric);
    out.Set("unit", unit);
    out.Set("strings", StringArray(env, frames->strings));
    out.Set("frames", frames->Columns(env));
    out.Set("frameFilter", python_view ? "python" : "all");
    out.Set("byFunction", Napi::Boolean::New(env, by_function));
  }
};

// ---- the rest of a view sent in parts, built on the thread pool once its first part is sent

class FillWorker : public Napi::AsyncWorker {
 public:
  FillWorker(Napi::Env env, std::shared_ptr<ProfileState> state, std::shared_ptr<strata::core::TopDownParts> parts)
      : Napi::AsyncWorker(env, "strata.fill"), state_(std::move(state)), parts_(std::move(parts)) {}

 protected:
  void Execute() override {
    try {
      state_->Fill(parts_);
    } catch (...) {
      // Asked for again by the next call that needs the whole view, which reports the error.
    }
  }
  void OnOK() override {}
  void OnError(const Napi::Error&) override {}

 private:
  std::shared_ptr<ProfileState> state_;
  std::shared_ptr<strata::core::TopDownParts> parts_;
};

// ---- view(kind, metric, options[, first])

class ViewWorker : public PromiseWorker {
 public:
  ViewWorker(Napi::Env env, std::shared_ptr<ProfileState> state, ViewKind kind, size_t metric,
             std::optional<ProfileState::Shape> shape, std::optional<FirstPart> first)
      : PromiseWorker(env, "strata.view"), state_(std::move(state)), kind_(kind), metric_(metric), shape_(shape), first_(first) {}

 protected:
  void Run() override {
    const auto& metrics = state_->profile->metrics();
    if (metric_ != 0 && metric_ >= metrics.size()) {
      throw strata::core::Error("metric index " + std::to_string(metric_) + " is out of range (the profile has " +
                                std::to_string(metrics.size()) + " metrics)");
    }
    ProfileState::Shape shape = shape_ ? *shape_ : ProfileState::Shape{};  // the Python view for a Python program, lines apart
    shape.metric = metric_;
    if (kind_ == ViewKind::kTopDown && first_) {
      // Its first part before the whole view: the rest is filled in the background after this
      // answer (FillWorker), and a part asked for meanwhile comes from the parts.
      std::shared_ptr<const ViewFrames> frames;
      parts_ = state_->GetParts(shape, &frames);
      if (parts_) {
        header_.Fill(*state_, parts_->primary_metric(), parts_->filter(), parts_->by_function());
        header_.frames = frames;
        nodes_ = parts_->size();
        if (nodes_) {
          const strata::core::ViewPart root = parts_->Part(0, strata::core::SliceBound{0, SIZE_MAX, 0, 0});  // the root alone
          total_ = root.values[0].inclusive;
          const strata::core::SliceBound bound{first_->min_share * total_, first_->max_nodes, first_->max_depth, first_->whole_up_to};
          columns_ = PartColumns::Of(parts_->Part(0, bound), *frames, nodes_);
        }
        return;
      }
    }
    auto view = state_->GetView(kind_, metric_, shape);
    header_.Fill(*state_, *view);
    header_.frames = state_->FramesOf(view);
    partial_ = view->partial;
    nodes_ = view->size();
    total_ = nodes_ ? view->values[0].inclusive : 0.0;
    if (first_ && nodes_) {
      const strata::core::SliceBound bound{first_->min_share * total_, first_->max_nodes, first_->max_depth, first_->whole_up_to};
      columns_ = PartColumns::Of(*view, *header_.frames, strata::core::SliceView(*view, 0, bound));
    } else {
      columns_ = PartColumns::Of(*view, *header_.frames);
    }
  }

  Napi::Value Result(Napi::Env env) override {
    if (parts_ && !parts_->has_whole()) (new FillWorker(env, state_, parts_))->Queue();
    Napi::Object out = Napi::Object::New(env);
    out.Set("view", strata::core::ViewKindName(kind_));
    out.Set("metricIndex", Napi::Number::New(env, static_cast<double>(metric_)));
    out.Set("total", Napi::Number::New(env, total_));
    out.Set("nodes", Napi::Number::New(env, static_cast<double>(nodes_)));
    if (!partial_.empty()) out.Set("partial", partial_);
    header_.Set(env, out);
    columns_.Set(env, out);
    return out;
  }

 private:
  std::shared_ptr<ProfileState> state_;
  ViewKind kind_;
  size_t metric_;
  std::optional<ProfileState::Shape> shape_;
  std::optional<FirstPart> first_;
  std::shared_ptr<strata::core::TopDownParts> parts_;
  ViewHeader header_;
  std::string partial_;
  size_t nodes_ = 0;
  double total_ = 0;
  PartColumns columns_;
};

// ---- viewPart(kind, node, bound)

class ViewPartWorker : public PromiseWorker {
 public:
  ViewPartWorker(Napi::Env env, std::shared_ptr<ProfileState> state, ViewKind kind, size_t node, strata::core::SliceBound bound)
      : PromiseWorker(env, "strata.viewPart"), state_(std::move(state)), kind_(kind), node_(node), bound_(bound) {}

 protected:
  void Run() override {
    // The view shown in parts, until it is whole: its parts without waiting for the fill.
    if (kind_ == ViewKind::kTopDown) {
      std::shared_ptr<const ViewFrames> frames;
      auto parts = state_->ShownParts(&frames);
      if (parts) {
        if (node_ >= parts->size()) return;
        found_ = true;
        columns_ = PartColumns::Of(parts->Part(node_, bound_), *frames, parts->size(), /*with_ids=*/true);
        return;
      }
    }
    auto view = state_->GetView(kind_, std::nullopt);
    if (node_ >= view->size()) return;  // not in the view shown (it was rebuilt): null
    found_ = true;
    auto frames = state_->FramesOf(view);
    columns_ = PartColumns::Of(*view, *frames, strata::core::SliceView(*view, node_, bound_), /*with_ids=*/true);
  }
  Napi::Value Result(Napi::Env env) override {
    if (!found_) return env.Null();
    Napi::Object out = Napi::Object::New(env);
    out.Set("view", strata::core::ViewKindName(kind_));
    out.Set("root", Napi::Number::New(env, static_cast<double>(node_)));
    columns_.Set(env, out);
    return out;
  }

 private:
  std::shared_ptr<ProfileState> state_;
  ViewKind kind_;
  size_t node_;
  strata::core::SliceBound bound_;
  bool found_ = false;
  PartColumns columns_;
};

// ---- sandwich(kind, node)

class SandwichWorker : public PromiseWorker {
 public:
  SandwichWorker(Napi::Env env, std::shared_ptr<ProfileState> state, ViewKind kind, size_t node)
      : PromiseWorker(env, "strata.sandwich"), state_(std::move(state)), kind_(kind), node_(node) {}

 protected:
  void Run() override {
    auto shown = state_->GetView(kind_, std::nullopt);
    if (node_ == 0 || node_ >= shown->size()) return;  // unknown node: null
    const uint32_t function = (*shown->frame_function)[shown->frame_id[node_]];
    // A function picked in another view: its sandwich from the top-down view of the same metric
    // and frames, built on the side (the top-down view on screen, if any, stays what it was).
    std::shared_ptr<const View> td = shown;
    if (kind_ != ViewKind::kTopDown) {
      ProfileState::Shape shape = state_->LastShape(kind_);
      shape.by_function = false;
      td = state_->GetView(ViewKind::kTopDown, shape.metric, shape, /*shown=*/false);
    }
    const strata::core::Sandwich sw = strata::core::BuildSandwich(*td, function);
    if (sw.calls == 0) return;
    found_ = true;
    header_.Fill(*state_, *td);
    header_.frames = state_->FramesOf(td);
    header_.by_function = true;
    calls_ = sw.calls;
    partial_ = sw.partial;
    total_ = td->size() ? td->values[0].inclusive : 0.0;
    callers_ = PartColumns::Of(sw.callers, *header_.frames);
    callees_ = PartColumns::Of(sw.callees, *header_.frames);
  }
  Napi::Value Result(Napi::Env env) override {
    if (!found_) return env.Null();
    Napi::Object out = Napi::Object::New(env);
    out.Set("calls", Napi::Number::New(env, static_cast<double>(calls_)));
    if (!partial_.empty()) out.Set("partial", partial_);
    out.Set("total", Napi::Number::New(env, total_));
    header_.Set(env, out);
    Napi::Object callers = Napi::Object::New(env), callees = Napi::Object::New(env);
    callers_.Set(env, callers);
    callees_.Set(env, callees);
    out.Set("callers", callers);
    out.Set("callees", callees);
    return out;
  }

 private:
  std::shared_ptr<ProfileState> state_;
  ViewKind kind_;
  size_t node_;
  bool found_ = false;
  ViewHeader header_;
  size_t calls_ = 0;
  std::string partial_;
  double total_ = 0;
  PartColumns callers_, callees_;
};

// ---- nodeMetrics(kind, node): every metric's statistics at a node of the view last built for
// `kind` (what the details pane shows) and, in a view by function, the lines merged into it
// (heaviest first, at most 50); null for an unknown node.

class NodeMetricsWorker : public PromiseWorker {
 public:
  NodeMetricsWorker(Napi::Env env, std::shared_ptr<ProfileState> state, ViewKind kind, size_t node)
      : PromiseWorker(env, "strata.nodeMetrics"), state_(std::move(state)), kind_(kind), node_(node) {}

 protected:
  void Run() override {
    auto view = state_->GetView(kind_, std::nullopt);
    if (node_ >= view->size()) return;
    found_ = true;
    values_ = state_->profile->NodeMetrics(*view, node_);
    if (view->line_offset.size() == view->size() + 1) {
      constexpr uint32_t kMaxLines = 50;  // the heaviest; the pane is not a report
      const uint32_t b = view->line_offset[node_], e = std::min(view->line_offset[node_ + 1], b + kMaxLines);
      for (uint32_t j = b; j < e; ++j) {
        const auto& f = (*view->frame_table)[view->line_frame[j]];
        lines_.push_back({f.file, f.line, view->line_value[j]});
      }
    }
  }
  Napi::Value Result(Napi::Env env) override {
    if (!found_) return env.Null();
    const auto& metrics = state_->profile->metrics();
    Napi::Object result = Napi::Object::New(env);
    Napi::Array lines = Napi::Array::New(env, lines_.size());
    for (size_t j = 0; j < lines_.size(); ++j) {
      Napi::Object l = Napi::Object::New(env);
      l.Set("file", lines_[j].file);
      l.Set("line", Napi::Number::New(env, lines_[j].line));
      l.Set("value", lines_[j].value);
      lines.Set(static_cast<uint32_t>(j), l);
    }
    result.Set("lines", lines);
    Napi::Array out = Napi::Array::New(env, values_.size());
    for (size_t k = 0; k < values_.size(); ++k) {
      const auto& v = values_[k];
      Napi::Object o = Napi::Object::New(env);
      o.Set("name", metrics[k].name);
      o.Set("unit", metrics[k].unit);
      o.Set("nature", strata::core::MetricNatureName(metrics[k].nature));
      o.Set("inclusive", v.inclusive);
      o.Set("exclusive", v.exclusive);
      o.Set("count", static_cast<double>(v.count));
      o.Set("min", v.min);
      o.Set("max", v.max);
      o.Set("mean", v.mean);
      o.Set("std", v.std);
      out.Set(static_cast<uint32_t>(k), o);
    }
    result.Set("metrics", out);
    return result;
  }

 private:
  struct Line { std::string file; uint32_t line; double value; };
  std::shared_ptr<ProfileState> state_;
  ViewKind kind_;
  size_t node_;
  bool found_ = false;
  std::vector<strata::core::NodeMetric> values_;
  std::vector<Line> lines_;
};

}  // namespace

Napi::Value QueueView(Napi::Env env, std::shared_ptr<ProfileState> state, ViewKind kind, size_t metric,
                      std::optional<ProfileState::Shape> shape, std::optional<FirstPart> first) {
  return Queue(new ViewWorker(env, std::move(state), kind, metric, shape, first));
}

Napi::Value QueueViewPart(Napi::Env env, std::shared_ptr<ProfileState> state, ViewKind kind, size_t node,
                          strata::core::SliceBound bound) {
  return Queue(new ViewPartWorker(env, std::move(state), kind, node, bound));
}

Napi::Value QueueSandwich(Napi::Env env, std::shared_ptr<ProfileState> state, ViewKind kind, size_t node) {
  return Queue(new SandwichWorker(env, std::move(state), kind, node));
}

Napi::Value QueueNodeMetrics(Napi::Env env, std::shared_ptr<ProfileState> state, ViewKind kind, size_t node) {
  return Queue(new NodeMetricsWorker(env, std::move(state), kind, node));
}

}  // namespace strata::addon
