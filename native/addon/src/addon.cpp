// Strata N-API addon: a thin, asynchronous layer over the analysis core (strata_core).
//
// Everything that touches the file or builds a view runs in a Napi::AsyncWorker on the libuv
// thread pool, so the VS Code extension host never blocks. The only work done here beyond
// calling the core is marshalling: a core::View becomes a frame table and per-node typed-array
// columns (strings are interned into one table) that the extension posts to the webview unchanged.
#include <napi.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "profile_state.h"
#include "promise_worker.h"
#include "region_calls.h"
#include "run_calls.h"
#include "strata/core/analyze.h"
#include "strata/core/api.h"

namespace strata::addon {
namespace {

// ------------------------------------------------------------------------------------------
// Profile (JS class)

class ProfileWrap : public Napi::ObjectWrap<ProfileWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Profile",
                       {
                           InstanceMethod<&ProfileWrap::Meta>("meta"),
                           InstanceMethod<&ProfileWrap::Metrics>("metrics"),
                           InstanceMethod<&ProfileWrap::ViewMethod>("view"),
                           InstanceMethod<&ProfileWrap::SourceLocation>("sourceLocation"),
                           InstanceMethod<&ProfileWrap::NodeMetricsMethod>("nodeMetrics"),
                           InstanceMethod<&ProfileWrap::AnalyzeMethod>("analyze"),
                           InstanceMethod<&ProfileWrap::RegionLaunchesOf>("regionLaunchesOf"),
                           InstanceMethod<&ProfileWrap::LineTotalsMethod>("lineTotals"),
                           InstanceMethod<&ProfileWrap::Close>("close"),
                           InstanceAccessor<&ProfileWrap::Closed>("closed"),
                       });
  }

  ProfileWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ProfileWrap>(info) {
    if (info.Length() != 1 || !info[0].IsExternal()) {
      throw Napi::TypeError::New(info.Env(), "Profile cannot be constructed directly; use open(path)");
    }
    auto* state = info[0].As<Napi::External<std::shared_ptr<ProfileState>>>().Data();
    state_ = *state;
  }

 private:
  std::shared_ptr<ProfileState> Require(Napi::Env env) {
    if (!state_) throw Napi::Error::New(env, "the profile is closed");
    return state_;
  }

  Napi::Value Meta(const Napi::CallbackInfo& info) {
    auto state = Require(info.Env());
    Napi::Object out = Napi::Object::New(info.Env());
    for (const auto& [k, v] : state->profile->meta()) out.Set(k, v);
    return out;
  }

  Napi::Value Metrics(const Napi::CallbackInfo& info) {
    auto state = Require(info.Env());
    const auto& metrics = state->profile->metrics();
    Napi::Array out = Napi::Array::New(info.Env(), metrics.size());
    for (size_t i = 0; i < metrics.size(); ++i) {
      Napi::Object m = Napi::Object::New(info.Env());
      m.Set("name", metrics[i].name);
      m.Set("unit", metrics[i].unit);
      m.Set("nature", strata::core::MetricNatureName(metrics[i].nature));
      // Events recorded (0: the profile has the metric's descriptor but no values).
      m.Set("count", Napi::Number::New(info.Env(), static_cast<double>(state->profile->total_count(i))));
      if (auto stall = strata::core::StallMetricClass(metrics[i].name)) m.Set("stall", strata::core::StallClassName(*stall));
      out.Set(static_cast<uint32_t>(i), m);
    }
    return out;
  }

  static ViewKind KindArg(const Napi::CallbackInfo& info, size_t i) {
    if (info.Length() <= i || !info[i].IsString()) {
      throw Napi::TypeError::New(info.Env(), "view kind must be 'top-down', 'bottom-up' or 'flat'");
    }
    try {
      return strata::core::ParseViewKind(info[i].As<Napi::String>().Utf8Value());
    } catch (...) {
      throw Napi::TypeError::New(info.Env(), CurrentExceptionMessage());
    }
  }

  static std::optional<size_t> IndexArg(const Napi::CallbackInfo& info, size_t i, const char* what) {
    if (info.Length() <= i || info[i].IsUndefined() || info[i].IsNull()) return std::nullopt;
    if (!info[i].IsNumber()) throw Napi::TypeError::New(info.Env(), std::string(what) + " must be a number");
    double d = info[i].As<Napi::Number>().DoubleValue();
    if (!(d >= 0) || d != static_cast<double>(static_cast<int64_t>(d)) || d > 4294967295.0) {
      throw Napi::RangeError::New(info.Env(), std::string(what) + " must be a non-negative integer");
    }
    return static_cast<size_t>(d);
  }

  // {frames?: 'auto' | 'python' | 'all', byFunction?: boolean}; absent: nullopt (the kind's last).
  static std::optional<ProfileState::Shape> ShapeArg(const Napi::CallbackInfo& info, size_t i) {
    if (info.Length() <= i || info[i].IsUndefined() || info[i].IsNull()) return std::nullopt;
    if (!info[i].IsObject()) throw Napi::TypeError::New(info.Env(), "view options must be an object");
    Napi::Object o = info[i].As<Napi::Object>();
    ProfileState::Shape s;
    Napi::Value frames = o.Get("frames");
    if (!frames.IsUndefined()) {
      const std::string f = frames.IsString() ? frames.As<Napi::String>().Utf8Value() : "";
      if (f == "auto") s.filter = strata::core::FrameFilter::kAuto;
      else if (f == "python") s.filter = strata::core::FrameFilter::kPython;
      else if (f == "all") s.filter = strata::core::FrameFilter::kAll;
      else throw Napi::TypeError::New(info.Env(), "view option frames must be 'auto', 'python' or 'all'");
    }
    Napi::Value by = o.Get("byFunction");
    if (!by.IsUndefined()) {
      if (!by.IsBoolean()) throw Napi::TypeError::New(info.Env(), "view option byFunction must be a boolean");
      s.by_function = by.As<Napi::Boolean>().Value();
    }
    return s;
  }

  Napi::Value ViewMethod(const Napi::CallbackInfo& info);
  Napi::Value NodeMetricsMethod(const Napi::CallbackInfo& info);
  Napi::Value SourceLocation(const Napi::CallbackInfo& info);
  Napi::Value AnalyzeMethod(const Napi::CallbackInfo& info);
  Napi::Value LineTotalsMethod(const Napi::CallbackInfo& info);

  // regionLaunchesOf(kind, nodeId[, metricIndex]): the captured launches of the kernel at a node
  // of the view built for that metric (default: the one last built for `kind`).
  Napi::Value RegionLaunchesOf(const Napi::CallbackInfo& info) {
    auto state = Require(info.Env());
    ViewKind kind = KindArg(info, 0);
    auto node = IndexArg(info, 1, "node id");
    if (!node) throw Napi::TypeError::New(info.Env(), "node id must be a number");
    return RegionLaunchesOfNode(info.Env(), std::move(state), kind, *node, IndexArg(info, 2, "metric index"));
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    state_.reset();
    return info.Env().Undefined();
  }
  Napi::Value Closed(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), !state_); }

  std::shared_ptr<ProfileState> state_;
};

// ------------------------------------------------------------------------------------------
// open(path)

class OpenWorker : public PromiseWorker {
 public:
  OpenWorker(Napi::Env env, std::string path, Napi::FunctionReference* ctor)
      : PromiseWorker(env, "strata.open"), path_(std::move(path)), ctor_(ctor) {}

 protected:
  void Run() override {
    state_ = std::make_shared<ProfileState>();
    state_->path = path_;
    state_->profile = std::shared_ptr<const Profile>(Profile::Open(path_));
  }
  Napi::Value Result(Napi::Env env) override {
    std::shared_ptr<ProfileState> state = state_;
    Napi::External<std::shared_ptr<ProfileState>> ext = Napi::External<std::shared_ptr<ProfileState>>::New(env, &state);
    // The constructor copies the shared_ptr out of the External synchronously.
    return ctor_->New({ext});
  }

 private:
  std::string path_;
  Napi::FunctionReference* ctor_;
  std::shared_ptr<ProfileState> state_;
};

// ------------------------------------------------------------------------------------------
// view(kind, metricIndex)

class ViewWorker : public PromiseWorker {
 public:
  ViewWorker(Napi::Env env, std::shared_ptr<ProfileState> state, ViewKind kind, size_t metric,
             std::optional<ProfileState::Shape> shape)
      : PromiseWorker(env, "strata.view"), state_(std::move(state)), kind_(kind), metric_(metric), shape_(shape) {}

 protected:
  void Run() override {
    const auto& metrics = state_->profile->metrics();
    if (metric_ != 0 && metric_ >= metrics.size()) {
      throw strata::core::Error("metric index " + std::to_string(metric_) + " is out of range (the profile has " +
                                std::to_string(metrics.size()) + " metrics)");
    }
    if (metric_ < metrics.size()) {
      metric_name_ = metrics[metric_].name;
      unit_ = metrics[metric_].unit;
    }
    // Without options: the Python view for a Python program, lines apart.
    auto view = state_->GetView(kind_, metric_, shape_ ? shape_ : std::optional<ProfileState::Shape>(ProfileState::Shape{}));
    python_view_ = view->filter == strata::core::FrameFilter::kPython;
    by_function_ = view->by_function;
    partial_ = view->partial;
    const size_t n = view->size();
    parent_ = view->parent;
    frame_.resize(n);
    inclusive_.resize(n);
    exclusive_.resize(n);
    count_.resize(n);
    // One frame table entry per distinct frame of the view (in order of first use; profile
    // frames that show the same are one entry); nodes name theirs by index. Each profile frame is
    // marshalled once.
    // Indexed by profile frame (a look-up per node: a flat array, not a hash map).
    constexpr uint32_t kNoEntry = ~0u;
    std::vector<uint32_t> entry_of_id(view->frame_table ? view->frame_table->size() : 0, kNoEntry);
    std::map<std::tuple<uint8_t, uint32_t, uint32_t, uint32_t, uint32_t, uint8_t, uint8_t>, uint32_t> entry_of_frame;
    StringTable strings;
    for (size_t i = 0; i < n; ++i) {
      uint32_t& entry_slot = entry_of_id[view->frame_id[i]];
      if (entry_slot == kNoEntry) {
        const auto& f = view->frame(i);
        const int code = strata::core::FrameKindCode(f.kind);
        const uint8_t flags = f.truncated ? kFrameTruncated : 0;
        const auto key = std::make_tuple(static_cast<uint8_t>(code < 0 ? 2 : code), strings.Intern(f.name),
                                         strings.Intern(f.file), f.line, strings.Intern(f.module),
                                         static_cast<uint8_t>(f.origin), flags);
        auto [entry, added] = entry_of_frame.try_emplace(key, static_cast<uint32_t>(frame_kind_.size()));
        if (added) {
          frame_origin_.push_back(static_cast<uint8_t>(f.origin));
          frame_flags_.push_back(flags);
          frame_kind_.push_back(std::get<0>(key));
          frame_name_.push_back(std::get<1>(key));
          frame_file_.push_back(std::get<2>(key));
          frame_line_.push_back(std::get<3>(key));
          frame_module_.push_back(std::get<4>(key));
        }
        entry_slot = entry->second;
      }
      frame_[i] = entry_slot;
      if (metric_ < view->metric_count) {
        const auto& v = view->metric(i, metric_);
        inclusive_[i] = v.inclusive;
        exclusive_[i] = v.exclusive;
        count_[i] = static_cast<double>(v.count);
      }
    }
    strings_ = strings.strings();
    total_ = n ? inclusive_[0] : 0.0;
  }

  Napi::Value Result(Napi::Env env) override {
    Napi::Object out = Napi::Object::New(env);
    out.Set("view", strata::core::ViewKindName(kind_));
    out.Set("metric", metric_name_);
    out.Set("unit", unit_);
    out.Set("metricIndex", Napi::Number::New(env, static_cast<double>(metric_)));
    out.Set("total", Napi::Number::New(env, total_));
    if (!partial_.empty()) out.Set("partial", partial_);
    out.Set("strings", StringArray(env, strings_));
    out.Set("frames", Columns(env, {
        {"kind", U8Column(env, frame_kind_)},
        {"name", U32Column(env, frame_name_)},
        {"file", U32Column(env, frame_file_)},
        {"line", U32Column(env, frame_line_)},
        {"module", U32Column(env, frame_module_)},
        {"origin", U8Column(env, frame_origin_)},
        {"flags", U8Column(env, frame_flags_)},
    }));
    out.Set("frameFilter", python_view_ ? "python" : "all");
    out.Set("byFunction", Napi::Boolean::New(env, by_function_));
    out.Set("parent", I32Column(env, parent_));
    out.Set("frame", U32Column(env, frame_));
    out.Set("inclusive", F64Column(env, inclusive_));
    out.Set("exclusive", F64Column(env, exclusive_));
    out.Set("count", F64Column(env, count_));
    return out;
  }

 private:
  std::shared_ptr<ProfileState> state_;
  // FrameTable.flags bits (webview/src/protocol.ts FrameFlag).
  static constexpr uint8_t kFrameTruncated = 1;
  ViewKind kind_;
  size_t metric_;
  std::optional<ProfileState::Shape> shape_;
  bool python_view_ = false, by_function_ = false;
  std::string metric_name_, unit_, partial_;
  double total_ = 0;
  std::vector<std::string> strings_;
  std::vector<uint8_t> frame_kind_, frame_origin_, frame_flags_;
  std::vector<uint32_t> frame_name_, frame_file_, frame_line_, frame_module_;
  std::vector<int32_t> parent_;
  std::vector<uint32_t> frame_;
  std::vector<double> inclusive_, exclusive_, count_;
};

Napi::Value ProfileWrap::ViewMethod(const Napi::CallbackInfo& info) {
  auto state = Require(info.Env());
  ViewKind kind = KindArg(info, 0);
  size_t metric = IndexArg(info, 1, "metric index").value_or(0);
  return Queue(new ViewWorker(info.Env(), std::move(state), kind, metric, ShapeArg(info, 2)));
}

// ------------------------------------------------------------------------------------------
// nodeMetrics(kind, nodeId): every metric's statistics at a node of the view last built for
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
    for (size_t k = 0; k < view->metric_count; ++k) values_.push_back(view->metric(node_, k));
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

Napi::Value ProfileWrap::NodeMetricsMethod(const Napi::CallbackInfo& info) {
  auto state = Require(info.Env());
  ViewKind kind = KindArg(info, 0);
  auto node = IndexArg(info, 1, "node id");
  if (!node) throw Napi::TypeError::New(info.Env(), "node id must be a number");
  return Queue(new NodeMetricsWorker(info.Env(), std::move(state), kind, *node));
}

// ------------------------------------------------------------------------------------------
// sourceLocation(kind, nodeId[, metricIndex])

class SourceWorker : public PromiseWorker {
 public:
  SourceWorker(Napi::Env env, std::shared_ptr<ProfileState> state, ViewKind kind, size_t node,
               std::optional<size_t> metric)
      : PromiseWorker(env, "strata.sourceLocation"), state_(std::move(state)), kind_(kind), node_(node), metric_(metric) {}

 protected:
  void Run() override {
    auto view = state_->GetView(kind_, metric_);
    if (node_ >= view->size()) return;  // unknown node: null
    const auto& f = view->frame(node_);
    if (f.file.empty()) return;  // nothing to open: null
    frame_ = f;
  }
  Napi::Value Result(Napi::Env env) override {
    if (!frame_) return env.Null();
    Napi::Object out = Napi::Object::New(env);
    out.Set("file", frame_->file);
    out.Set("line", Napi::Number::New(env, frame_->line));
    out.Set("name", frame_->name);
    out.Set("kind", frame_->kind);
    out.Set("module", frame_->module);
    return out;
  }

 private:
  std::shared_ptr<ProfileState> state_;
  ViewKind kind_;
  size_t node_;
  std::optional<size_t> metric_;
  std::optional<strata::core::FrameInfo> frame_;
};

Napi::Value ProfileWrap::SourceLocation(const Napi::CallbackInfo& info) {
  auto state = Require(info.Env());
  ViewKind kind = KindArg(info, 0);
  auto node = IndexArg(info, 1, "node id");
  if (!node) throw Napi::TypeError::New(info.Env(), "node id must be a number");
  auto metric = IndexArg(info, 2, "metric index");
  return Queue(new SourceWorker(info.Env(), std::move(state), kind, *node, metric));
}

// ------------------------------------------------------------------------------------------
// lineTotals(metricIndexes) -> per source line, each metric's inclusive value (core SumLines)

class LineTotalsWorker : public PromiseWorker {
 public:
  LineTotalsWorker(Napi::Env env, std::shared_ptr<ProfileState> state, std::vector<size_t> metrics)
      : PromiseWorker(env, "strata.lineTotals"), state_(std::move(state)), metrics_(std::move(metrics)) {}

 protected:
  void Run() override {
    totals_ = strata::core::SumLines(*state_->profile, metrics_);
    for (const auto& l : totals_.lines) {
      file_.push_back(strings_.Intern(l.file));
      line_.push_back(l.line);
    }
    values_.assign(metrics_.size(), std::vector<double>(totals_.lines.size()));
    backward_.assign(metrics_.size(), std::vector<double>(totals_.lines.size()));
    for (size_t i = 0; i < totals_.lines.size(); ++i)
      for (size_t k = 0; k < metrics_.size(); ++k) {
        values_[k][i] = totals_.lines[i].values[k];
        backward_[k][i] = totals_.lines[i].backward[k];
      }
  }
  Napi::Value Result(Napi::Env env) override {
    Napi::Object out = Napi::Object::New(env);
    out.Set("strings", StringArray(env, strings_.strings()));
    out.Set("file", U32Column(env, file_));
    out.Set("line", U32Column(env, line_));
    Napi::Array values = Napi::Array::New(env, metrics_.size());
    Napi::Array backward = Napi::Array::New(env, metrics_.size());
    Napi::Array totals = Napi::Array::New(env, metrics_.size());
    for (size_t k = 0; k < metrics_.size(); ++k) {
      values.Set(uint32_t(k), F64Column(env, values_[k]));
      backward.Set(uint32_t(k), F64Column(env, backward_[k]));
      totals.Set(uint32_t(k), Napi::Number::New(env, totals_.totals[k]));
    }
    out.Set("values", values);
    out.Set("backward", backward);
    out.Set("totals", totals);
    return out;
  }

 private:
  std::shared_ptr<ProfileState> state_;
  std::vector<size_t> metrics_;
  strata::core::LineTotals totals_;
  StringTable strings_;
  std::vector<uint32_t> file_, line_;
  std::vector<std::vector<double>> values_, backward_;
};

Napi::Value ProfileWrap::LineTotalsMethod(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto state = Require(env);
  if (info.Length() < 1 || !info[0].IsArray()) throw Napi::TypeError::New(env, "lineTotals(metricIndexes): an array of metric indexes");
  Napi::Array a = info[0].As<Napi::Array>();
  std::vector<size_t> metrics;
  for (uint32_t i = 0; i < a.Length(); ++i) {
    Napi::Value v = a.Get(i);
    const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
    if (!(d >= 0) || d != double(int64_t(d))) throw Napi::RangeError::New(env, "lineTotals: metric indexes must be non-negative integers");
    metrics.push_back(size_t(d));
  }
  return Queue(new LineTotalsWorker(env, std::move(state), std::move(metrics)));
}

// ------------------------------------------------------------------------------------------
// analyze([{rules, thresholds, disabled}]) -> the findings JSON (docs/analyzers.md), parsed

class AnalyzeWorker : public PromiseWorker {
 public:
  AnalyzeWorker(Napi::Env env, std::shared_ptr<ProfileState> state, strata::core::AnalyzeOptions options)
      : PromiseWorker(env, "strata.analyze"), state_(std::move(state)), options_(std::move(options)) {}

 protected:
  void Run() override {
    // The viewer's cached top-down view of metric 0 with every frame, lines apart (what the
    // analyzers read) when there is one: not built twice (and the view the user looks at stays).
    std::shared_ptr<const View> cached;
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      ProfileState::Shape all;
      all.filter = strata::core::FrameFilter::kAll;
      auto it = state_->views.find(ProfileState::Key(static_cast<int>(ViewKind::kTopDown), all));
      if (it != state_->views.end()) cached = it->second;
    }
    auto result = cached ? strata::core::Analyze(*state_->profile, *cached, options_)
                         : strata::core::Analyze(*state_->profile, options_);
    json_ = strata::core::FindingsJson(result, state_->path);
  }
  Napi::Value Result(Napi::Env env) override {
    Napi::Object json = env.Global().Get("JSON").As<Napi::Object>();
    return json.Get("parse").As<Napi::Function>().Call(json, {Napi::String::New(env, json_)});
  }

 private:
  std::shared_ptr<ProfileState> state_;
  strata::core::AnalyzeOptions options_;
  std::string json_;
};

Napi::Value ProfileWrap::AnalyzeMethod(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto state = Require(env);
  strata::core::AnalyzeOptions options;
  options.profile_path = state->path;  // region-imbalance reads the captured buffers again
  if (info.Length() > 0 && !info[0].IsUndefined()) {
    if (!info[0].IsObject()) throw Napi::TypeError::New(env, "analyze(options): options must be an object");
    Napi::Object o = info[0].As<Napi::Object>();
    auto strings = [&](const char* key, std::vector<std::string>* out) {
      Napi::Value v = o.Get(key);
      if (v.IsUndefined()) return;
      if (!v.IsArray()) throw Napi::TypeError::New(env, std::string("analyze: ") + key + " must be an array of strings");
      Napi::Array a = v.As<Napi::Array>();
      for (uint32_t i = 0; i < a.Length(); ++i) {
        if (!a.Get(i).IsString()) throw Napi::TypeError::New(env, std::string("analyze: ") + key + " must be an array of strings");
        out->push_back(a.Get(i).As<Napi::String>().Utf8Value());
      }
    };
    strings("rules", &options.rule_files);
    strings("disabled", &options.disabled);
    Napi::Value t = o.Get("thresholds");
    if (!t.IsUndefined()) {
      if (!t.IsObject()) throw Napi::TypeError::New(env, "analyze: thresholds must be an object of numbers");
      Napi::Object to = t.As<Napi::Object>();
      Napi::Array keys = to.GetPropertyNames();
      for (uint32_t i = 0; i < keys.Length(); ++i) {
        std::string k = keys.Get(i).As<Napi::String>().Utf8Value();
        if (!to.Get(k).IsNumber()) throw Napi::TypeError::New(env, "analyze: threshold " + k + " must be a number");
        options.thresholds[k] = to.Get(k).As<Napi::Number>().DoubleValue();
      }
    }
  }
  return Queue(new AnalyzeWorker(env, std::move(state), std::move(options)));
}

// ------------------------------------------------------------------------------------------
// module

struct AddonData {
  Napi::FunctionReference profile_ctor;
};

Napi::Value Open(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "open(path): path must be a string");
  auto* data = env.GetInstanceData<AddonData>();
  return Queue(new OpenWorker(env, info[0].As<Napi::String>().Utf8Value(), &data->profile_ctor));
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* data = new AddonData();
  data->profile_ctor = Napi::Persistent(ProfileWrap::Define(env));
  env.SetInstanceData<AddonData>(data);
  exports.Set("open", Napi::Function::New<Open>(env, "open"));
  exports.Set("Profile", data->profile_ctor.Value());
  ExportRegionCalls(env, exports);
  ExportRunCalls(env, exports, &data->profile_ctor);
  exports.Set("frameKinds", StringArray(env, strata::core::FrameKindNames()));
  exports.Set("version", Napi::String::New(env, "0.1.0"));
  return exports;
}

}  // namespace
}  // namespace strata::addon

static Napi::Object InitModule(Napi::Env env, Napi::Object exports) { return strata::addon::Init(env, exports); }

NODE_API_MODULE(strata_addon, InitModule)
