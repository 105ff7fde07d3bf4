// Strata N-API addon: a thin, asynchronous layer over the analysis core (strata_core).
//
// Everything that touches the file or builds a view runs in a Napi::AsyncWorker on the libuv
// thread pool, so the VS Code extension host never blocks. The only work done here beyond
// calling the core is marshalling: a core::View becomes a frame table and per-node typed-array
// columns (strings are interned into one table) that the extension posts to the webview unchanged.
#include <napi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
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
#include "diff_calls.h"
#include "region_calls.h"
#include "rank_calls.h"
#include "run_calls.h"
#include "view_calls.h"
#include "strata/core/analyze.h"
#include "strata/core/api.h"
#include "strata/core/gpu_sampling.h"

namespace strata::addon {
namespace {

// ------------------------------------------------------------------------------------------
// Profile (JS class)

bool IsProfile(Napi::Env env, const Napi::Value& value);  // an object made by open() or openRun()

class ProfileWrap : public Napi::ObjectWrap<ProfileWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Profile",
                       {
                           InstanceMethod<&ProfileWrap::Meta>("meta"),
                           InstanceMethod<&ProfileWrap::Metrics>("metrics"),
                           InstanceMethod<&ProfileWrap::GpuSamplingMethod>("gpuSampling"),
                           InstanceMethod<&ProfileWrap::ViewMethod>("view"),
                           InstanceMethod<&ProfileWrap::ViewPartMethod>("viewPart"),
                           InstanceMethod<&ProfileWrap::SandwichMethod>("sandwich"),
                           InstanceMethod<&ProfileWrap::SourceLocation>("sourceLocation"),
                           InstanceMethod<&ProfileWrap::NodeMetricsMethod>("nodeMetrics"),
                           InstanceMethod<&ProfileWrap::AnalyzeMethod>("analyze"),
                           InstanceMethod<&ProfileWrap::RegionLaunchesOf>("regionLaunchesOf"),
                           InstanceMethod<&ProfileWrap::LineTotalsMethod>("lineTotals"),
                           InstanceMethod<&ProfileWrap::DiffAgainst>("diffAgainst"),
                           InstanceMethod<&ProfileWrap::RanksMethod>("ranks"),
                           InstanceMethod<&ProfileWrap::RankPhasesMethod>("rankPhases"),
                           InstanceMethod<&ProfileWrap::RankSpreadMethod>("rankSpread"),
                           InstanceMethod<&ProfileWrap::RankStepsMethod>("rankSteps"),
                           InstanceMethod<&ProfileWrap::RankTimelineMethod>("rankTimeline"),
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

  // Sampled GPU tracing (its additive GPU metrics are estimates), or null.
  Napi::Value GpuSamplingMethod(const Napi::CallbackInfo& info) {
    auto state = Require(info.Env());
    const auto s = strata::core::ReadGpuSampling(*state->profile);
    if (!s) return info.Env().Null();
    Napi::Object out = Napi::Object::New(info.Env());
    out.Set("windowMs", Napi::Number::New(info.Env(), s->window_ms));
    out.Set("periodMs", Napi::Number::New(info.Env(), s->period_ms));
    out.Set("scale", Napi::Number::New(info.Env(), s->scale));
    out.Set("windowsOpened", Napi::Number::New(info.Env(), static_cast<double>(s->windows_opened)));
    out.Set("timeScale", Napi::Number::New(info.Env(), s->time_scale));
    out.Set("byOperatorCalls", Napi::Boolean::New(info.Env(), s->by_operator_calls));
    out.Set("fewWindows", Napi::Boolean::New(info.Env(), s->few_windows));
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

  // A node id (required).
  static size_t NodeArg(const Napi::CallbackInfo& info, size_t i) {
    auto node = IndexArg(info, i, "node id");
    if (!node) throw Napi::TypeError::New(info.Env(), "node id must be a number");
    return *node;
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

  // A count argument: a non-negative integer (an absent field: `dflt`).
  static size_t CountField(Napi::Env env, Napi::Object o, const char* key, size_t dflt, const char* what) {
    Napi::Value v = o.Get(key);
    if (v.IsUndefined()) return dflt;
    const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
    if (!(d >= 0) || d != static_cast<double>(static_cast<int64_t>(d)))
      throw Napi::RangeError::New(env, std::string(what) + ": " + key + " must be a non-negative integer");
    return static_cast<size_t>(std::min(d, 1e15));
  }
  // A bound value: a finite non-negative number.
  static double ValueField(Napi::Env env, Napi::Object o, const char* key, const char* what) {
    Napi::Value v = o.Get(key);
    const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
    if (!(d >= 0) || !std::isfinite(d)) throw Napi::RangeError::New(env, std::string(what) + ": " + key + " must be a non-negative number");
    return d;
  }

  // {minShare, maxNodes?, maxDepth?, wholeUpTo?}; absent: nullopt (the whole view).
  static std::optional<FirstPart> FirstPartArg(const Napi::CallbackInfo& info, size_t i) {
    if (info.Length() <= i || info[i].IsUndefined() || info[i].IsNull()) return std::nullopt;
    if (!info[i].IsObject()) throw Napi::TypeError::New(info.Env(), "view: the first part must be an object {minShare, maxNodes?, maxDepth?, wholeUpTo?}");
    Napi::Object o = info[i].As<Napi::Object>();
    FirstPart p;
    p.min_share = ValueField(info.Env(), o, "minShare", "view");
    p.max_nodes = CountField(info.Env(), o, "maxNodes", SIZE_MAX, "view");
    p.max_depth = CountField(info.Env(), o, "maxDepth", SIZE_MAX, "view");
    p.whole_up_to = CountField(info.Env(), o, "wholeUpTo", 0, "view");
    return p;
  }

  // {minValue, maxNodes?, maxDepth?}.
  static strata::core::SliceBound PartBoundArg(const Napi::CallbackInfo& info, size_t i) {
    if (info.Length() <= i || !info[i].IsObject()) throw Napi::TypeError::New(info.Env(), "viewPart: the bound must be an object {minValue, maxNodes?, maxDepth?}");
    Napi::Object o = info[i].As<Napi::Object>();
    strata::core::SliceBound b;
    b.min_value = ValueField(info.Env(), o, "minValue", "viewPart");
    b.max_nodes = CountField(info.Env(), o, "maxNodes", SIZE_MAX, "viewPart");
    b.max_depth = CountField(info.Env(), o, "maxDepth", SIZE_MAX, "viewPart");
    return b;
  }

  Napi::Value ViewMethod(const Napi::CallbackInfo& info);
  Napi::Value ViewPartMethod(const Napi::CallbackInfo& info);
  Napi::Value SandwichMethod(const Napi::CallbackInfo& info);
  Napi::Value NodeMetricsMethod(const Napi::CallbackInfo& info);
  Napi::Value SourceLocation(const Napi::CallbackInfo& info);
  Napi::Value AnalyzeMethod(const Napi::CallbackInfo& info);
  Napi::Value LineTotalsMethod(const Napi::CallbackInfo& info);

  // A distributed job's ranks (rank_calls.cpp): ranks(), rankPhases(), rankSteps(),
  // rankSpread(kind, node[, metric]), rankTimeline([maxSlices]).
  Napi::Value RanksMethod(const Napi::CallbackInfo& info) { return RanksOf(info.Env(), Require(info.Env())); }
  Napi::Value RankPhasesMethod(const Napi::CallbackInfo& info) { return QueueRankPhases(info.Env(), Require(info.Env())); }
  Napi::Value RankStepsMethod(const Napi::CallbackInfo& info) { return QueueRankSteps(info.Env(), Require(info.Env())); }
  Napi::Value RankTimelineMethod(const Napi::CallbackInfo& info) {
    auto state = Require(info.Env());
    return QueueRankTimeline(info.Env(), std::move(state), IndexArg(info, 0, "maxSlices"));
  }
  Napi::Value RankSpreadMethod(const Napi::CallbackInfo& info) {
    auto state = Require(info.Env());
    ViewKind kind = KindArg(info, 0);
    return QueueRankSpread(info.Env(), std::move(state), kind, NodeArg(info, 1), IndexArg(info, 2, "metric index"));
  }

  // regionLaunchesOf(kind, nodeId[, metricIndex]): the captured launches of the kernel at a node
  // of the view built for that metric (default: the one last built for `kind`).
  Napi::Value RegionLaunchesOf(const Napi::CallbackInfo& info) {
    auto state = Require(info.Env());
    ViewKind kind = KindArg(info, 0);
    return RegionLaunchesOfNode(info.Env(), std::move(state), kind, NodeArg(info, 1), IndexArg(info, 2, "metric index"));
  }

  // diffAgainst(baseline[, metric[, first]]): this profile (B) compared with `baseline` (A), for
  // the viewer's diff mode (diff_calls.h); `first` as view()'s: B's view sent in parts.
  Napi::Value DiffAgainst(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto state = Require(env);
    if (info.Length() < 1 || !IsProfile(env, info[0]))
      throw Napi::TypeError::New(env, "diffAgainst(baseline, metric?): baseline must be a Profile");
    auto baseline = Napi::ObjectWrap<ProfileWrap>::Unwrap(info[0].As<Napi::Object>())->Require(env);
    std::string metric;
    if (info.Length() > 1 && !info[1].IsUndefined()) {
      if (!info[1].IsString()) throw Napi::TypeError::New(env, "diffAgainst(baseline, metric?): metric must be a string");
      metric = info[1].As<Napi::String>().Utf8Value();
    }
    return QueueDiff(env, std::move(baseline), std::move(state), std::move(metric), FirstPartArg(info, 2));
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
// view, viewPart, sandwich, nodeMetrics (view_calls.cpp)

Napi::Value ProfileWrap::ViewMethod(const Napi::CallbackInfo& info) {
  auto state = Require(info.Env());
  ViewKind kind = KindArg(info, 0);
  size_t metric = IndexArg(info, 1, "metric index").value_or(0);
  return QueueView(info.Env(), std::move(state), kind, metric, ShapeArg(info, 2), FirstPartArg(info, 3));
}

Napi::Value ProfileWrap::ViewPartMethod(const Napi::CallbackInfo& info) {
  auto state = Require(info.Env());
  ViewKind kind = KindArg(info, 0);
  return QueueViewPart(info.Env(), std::move(state), kind, NodeArg(info, 1), PartBoundArg(info, 2));
}

Napi::Value ProfileWrap::SandwichMethod(const Napi::CallbackInfo& info) {
  auto state = Require(info.Env());
  ViewKind kind = KindArg(info, 0);
  return QueueSandwich(info.Env(), std::move(state), kind, NodeArg(info, 1));
}

Napi::Value ProfileWrap::NodeMetricsMethod(const Napi::CallbackInfo& info) {
  auto state = Require(info.Env());
  ViewKind kind = KindArg(info, 0);
  return QueueNodeMetrics(info.Env(), std::move(state), kind, NodeArg(info, 1));
}

// ------------------------------------------------------------------------------------------
// sourceLocation(kind, nodeId[, metricIndex])

class SourceWorker : public PromiseWorker {
 public:
  SourceWorker(Napi::Env env, std::shared_ptr<ProfileState> state, ViewKind kind, size_t node,
               std::optional<size_t> metric, std::optional<size_t> fused_line)
      : PromiseWorker(env, "strata.sourceLocation"), state_(std::move(state)), kind_(kind), node_(node), metric_(metric),
        fused_line_(fused_line) {}

 protected:
  void Run() override {
    auto view = state_->GetView(kind_, metric_);
    if (node_ >= view->size()) return;  // unknown node: null
    const auto& f = view->frame(node_);
    if (fused_line_) {  // one of the lines a fused kernel computes
      if (*fused_line_ >= f.fused_lines.size() || f.fused_lines[*fused_line_].file.empty()) return;
      const strata::core::SourceLine& l = f.fused_lines[*fused_line_];
      frame_ = strata::core::FrameInfo{};
      frame_->kind = "python";
      frame_->name = l.function;
      frame_->file = l.file;
      frame_->line = l.line;
      return;
    }
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
  std::optional<size_t> fused_line_;
  std::optional<strata::core::FrameInfo> frame_;
};

Napi::Value ProfileWrap::SourceLocation(const Napi::CallbackInfo& info) {
  auto state = Require(info.Env());
  ViewKind kind = KindArg(info, 0);
  return Queue(new SourceWorker(info.Env(), std::move(state), kind, NodeArg(info, 1), IndexArg(info, 2, "metric index"),
                                IndexArg(info, 3, "fused line index")));
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
    fused_.assign(metrics_.size(), std::vector<double>(totals_.lines.size()));
    for (size_t i = 0; i < totals_.lines.size(); ++i)
      for (size_t k = 0; k < metrics_.size(); ++k) {
        values_[k][i] = totals_.lines[i].values[k];
        backward_[k][i] = totals_.lines[i].backward[k];
        fused_[k][i] = totals_.lines[i].fused[k];
      }
  }
  Napi::Value Result(Napi::Env env) override {
    Napi::Object out = Napi::Object::New(env);
    out.Set("strings", StringArray(env, strings_.strings()));
    out.Set("file", U32Column(env, file_));
    out.Set("line", U32Column(env, line_));
    Napi::Array values = Napi::Array::New(env, metrics_.size());
    Napi::Array backward = Napi::Array::New(env, metrics_.size());
    Napi::Array fused = Napi::Array::New(env, metrics_.size());
    Napi::Array totals = Napi::Array::New(env, metrics_.size());
    for (size_t k = 0; k < metrics_.size(); ++k) {
      values.Set(uint32_t(k), F64Column(env, values_[k]));
      backward.Set(uint32_t(k), F64Column(env, backward_[k]));
      fused.Set(uint32_t(k), F64Column(env, fused_[k]));
      totals.Set(uint32_t(k), Napi::Number::New(env, totals_.totals[k]));
    }
    out.Set("values", values);
    out.Set("backward", backward);
    out.Set("fused", fused);
    out.Set("totals", totals);
    return out;
  }

 private:
  std::shared_ptr<ProfileState> state_;
  std::vector<size_t> metrics_;
  strata::core::LineTotals totals_;
  StringTable strings_;
  std::vector<uint32_t> file_, line_;
  std::vector<std::vector<double>> values_, backward_, fused_;
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
    // Builds its own view with every metric (the viewer's views keep only the drawn one).
    auto result = strata::core::Analyze(*state_->profile, options_);
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
  options.ranks = state->ranks.get();  // the rank rules compare a distributed job's ranks
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

bool IsProfile(Napi::Env env, const Napi::Value& value) {
  return value.IsObject() && value.As<Napi::Object>().InstanceOf(env.GetInstanceData<AddonData>()->profile_ctor.Value());
}

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
  ExportRankCalls(env, exports, &data->profile_ctor);
  exports.Set("frameKinds", StringArray(env, strata::core::FrameKindNames()));
  exports.Set("version", Napi::String::New(env, "0.1.0"));
  return exports;
}

}  // namespace
}  // namespace strata::addon

static Napi::Object InitModule(Napi::Env env, Napi::Object exports) { return strata::addon::Init(env, exports); }

NODE_API_MODULE(strata_addon, InitModule)
