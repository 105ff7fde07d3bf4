#include "rank_calls.h"

#include <string>
#include <utility>
#include <vector>

#include "promise_worker.h"
#include "strata/core/rank_run.h"
#include "strata/core/rank_timeline.h"

namespace strata::addon {
namespace {

class OpenRankRunWorker : public PromiseWorker {
 public:
  OpenRankRunWorker(Napi::Env env, std::string path, Napi::FunctionReference* ctor)
      : PromiseWorker(env, "strata.openRankRun"), path_(std::move(path)), ctor_(ctor) {}

 protected:
  void Run() override {
    state_ = std::make_shared<ProfileState>();
    state_->path = path_;
    std::shared_ptr<const strata::core::RankRun> run(strata::core::RankRun::Open(path_));
    state_->ranks = run;
    state_->profile = run->shared_profile();
  }
  Napi::Value Result(Napi::Env env) override {
    std::shared_ptr<ProfileState> state = state_;
    auto ext = Napi::External<std::shared_ptr<ProfileState>>::New(env, &state);
    return ctor_->New({ext});
  }

 private:
  std::string path_;
  Napi::FunctionReference* ctor_;
  std::shared_ptr<ProfileState> state_;
};

class RankPhasesWorker : public PromiseWorker {
 public:
  RankPhasesWorker(Napi::Env env, std::shared_ptr<ProfileState> state)
      : PromiseWorker(env, "strata.rankPhases"), state_(std::move(state)) {}

 protected:
  void Run() override {
    if (state_->ranks) phases_ = state_->ranks->Phases();
  }
  Napi::Value Result(Napi::Env env) override {
    Napi::Array out = Napi::Array::New(env, phases_.size());
    for (size_t k = 0; k < phases_.size(); ++k) {
      const auto& p = phases_[k];
      Napi::Object o = Napi::Object::New(env);
      o.Set("rank", p.rank);
      o.Set("metric", p.metric);
      o.Set("windowNs", p.window_ns);
      o.Set("computeNs", p.compute_ns);
      o.Set("communicationNs", p.communication_ns);
      o.Set("communicationFromCalls", p.communication_from_calls);
      o.Set("startupNs", p.startup_ns);
      o.Set("idleNs", p.idle_ns);
      o.Set("overlapShare", p.overlap_share ? Napi::Value(Napi::Number::New(env, *p.overlap_share)) : env.Null());
      out.Set(uint32_t(k), o);
    }
    return out;
  }

 private:
  std::shared_ptr<ProfileState> state_;
  std::vector<strata::core::RankPhases> phases_;
};

class RankStepsWorker : public PromiseWorker {
 public:
  RankStepsWorker(Napi::Env env, std::shared_ptr<ProfileState> state)
      : PromiseWorker(env, "strata.rankSteps"), state_(std::move(state)) {}

 protected:
  void Run() override {
    if (state_->ranks) steps_ = state_->ranks->Steps();
  }
  Napi::Value Result(Napi::Env env) override {
    auto column = [&](const auto& v) {
      auto a = Napi::Float64Array::New(env, v.size());
      for (size_t i = 0; i < v.size(); ++i) a[i] = double(v[i]);
      return a;
    };
    Napi::Object o = Napi::Object::New(env);
    o.Set("collective", steps_.collective);
    o.Set("file", steps_.file);
    o.Set("line", steps_.line);
    Napi::Array steps = Napi::Array::New(env, steps_.steps.size());
    for (size_t i = 0; i < steps_.steps.size(); ++i) {
      const auto& st = steps_.steps[i];
      Napi::Object s = Napi::Object::New(env);
      s.Set("arriveUnixNs", column(st.arrive_unix_ns));
      s.Set("computeNs", column(st.compute_ns));
      s.Set("communicationNs", column(st.communication_ns));
      s.Set("lastRank", st.last_rank);
      s.Set("arrivalSpreadNs", st.arrival_spread_ns);
      steps.Set(uint32_t(i), s);
    }
    o.Set("steps", steps);
    return o;
  }

 private:
  std::shared_ptr<ProfileState> state_;
  strata::core::RankSteps steps_;
};

class RankTimelineWorker : public PromiseWorker {
 public:
  RankTimelineWorker(Napi::Env env, std::shared_ptr<ProfileState> state, std::optional<size_t> max_slices)
      : PromiseWorker(env, "strata.rankTimeline"), state_(std::move(state)), max_slices_(max_slices) {}

 protected:
  void Run() override {
    if (!state_->ranks) return;
    strata::core::RankTimelineOptions options;
    if (max_slices_) options.max_slices = *max_slices_;
    timeline_ = strata::core::BuildRankTimeline(*state_->ranks, options);
  }
  Napi::Value Result(Napi::Env env) override {
    if (!state_->ranks) return env.Null();
    const auto& t = timeline_;
    Napi::Object o = Napi::Object::New(env);
    o.Set("originUnixNs", Napi::Number::New(env, double(t.origin_unix_ns)));
    o.Set("spanNs", Napi::Number::New(env, double(t.span_ns)));
    Napi::Array lanes = Napi::Array::New(env, t.lanes.size());
    for (size_t i = 0; i < t.lanes.size(); ++i) {
      const auto& l = t.lanes[i];
      Napi::Object lo = Napi::Object::New(env);
      lo.Set("rank", l.rank);
      lo.Set("kind", l.kind == strata::core::RankLaneKind::kSteps         ? "steps"
                     : l.kind == strata::core::RankLaneKind::kCollectives ? "collectives"
                                                                          : "gpu");
      lo.Set("device", l.device);
      lo.Set("stream", l.stream);
      lanes.Set(uint32_t(i), lo);
    }
    o.Set("lanes", lanes);
    Napi::Array names = Napi::Array::New(env, t.names.size());
    for (size_t i = 0; i < t.names.size(); ++i) names.Set(uint32_t(i), t.names[i]);
    o.Set("names", names);
    Napi::Array sources = Napi::Array::New(env, t.sources.size());
    for (size_t i = 0; i < t.sources.size(); ++i) {
      Napi::Object so = Napi::Object::New(env);
      so.Set("file", t.sources[i].file);
      so.Set("line", t.sources[i].line);
      sources.Set(uint32_t(i), so);
    }
    o.Set("sources", sources);
    const size_t n = t.slices.size();
    auto lane = Napi::Uint32Array::New(env, n);
    auto start = Napi::Float64Array::New(env, n);
    auto end = Napi::Float64Array::New(env, n);
    auto kind = Napi::Uint8Array::New(env, n);
    auto name = Napi::Uint32Array::New(env, n);
    auto node = Napi::Float64Array::New(env, n);
    auto source = Napi::Int32Array::New(env, n);
    auto bytes = Napi::Float64Array::New(env, n);
    for (size_t i = 0; i < n; ++i) {
      const auto& s = t.slices[i];
      lane[i] = s.lane;
      start[i] = double(s.start_ns);
      end[i] = double(s.end_ns);
      kind[i] = uint8_t(s.kind);
      name[i] = s.name;
      node[i] = double(s.node);
      source[i] = s.source;
      bytes[i] = double(s.bytes);
    }
    o.Set("lane", lane);
    o.Set("start", start);
    o.Set("end", end);
    o.Set("kind", kind);
    o.Set("name", name);
    o.Set("node", node);
    o.Set("source", source);
    o.Set("bytes", bytes);
    o.Set("truncated", Napi::Number::New(env, double(t.truncated)));
    o.Set("gpuDropped", Napi::Number::New(env, double(t.gpu_dropped)));
    Napi::Array without = Napi::Array::New(env, t.ranks_without_clock.size());
    for (size_t i = 0; i < t.ranks_without_clock.size(); ++i) without.Set(uint32_t(i), t.ranks_without_clock[i]);
    o.Set("ranksWithoutClock", without);
    return o;
  }

 private:
  std::shared_ptr<ProfileState> state_;
  std::optional<size_t> max_slices_;
  strata::core::RankTimeline timeline_;
};

class RankSpreadWorker : public PromiseWorker {
 public:
  RankSpreadWorker(Napi::Env env, std::shared_ptr<ProfileState> state, strata::core::ViewKind kind, size_t node,
                   std::optional<size_t> metric)
      : PromiseWorker(env, "strata.rankSpread"), state_(std::move(state)), kind_(kind), node_(node), metric_(metric) {}

 protected:
  void Run() override {
    if (!state_->ranks) return;
    auto view = state_->GetView(kind_, metric_);
    if (node_ >= view->size()) return;
    found_ = true;
    spread_ = state_->ranks->Spread(*view, node_, metric_.value_or(view->primary_metric));
  }
  Napi::Value Result(Napi::Env env) override {
    if (!found_) return env.Null();
    const auto& ranks = state_->ranks->ranks();
    Napi::Object o = Napi::Object::New(env);
    auto numbers = Napi::Int32Array::New(env, ranks.size());
    for (size_t k = 0; k < ranks.size(); ++k) numbers[k] = ranks[k].rank;
    auto values = Napi::Float64Array::New(env, spread_.values.size());
    for (size_t k = 0; k < spread_.values.size(); ++k) values[k] = spread_.values[k];
    o.Set("ranks", numbers);
    o.Set("values", values);
    o.Set("min", spread_.min);
    o.Set("median", spread_.median);
    o.Set("max", spread_.max);
    o.Set("minRank", spread_.min_rank);
    o.Set("maxRank", spread_.max_rank);
    return o;
  }

 private:
  std::shared_ptr<ProfileState> state_;
  strata::core::ViewKind kind_;
  size_t node_;
  std::optional<size_t> metric_;
  bool found_ = false;
  strata::core::RankSpread spread_;
};

}  // namespace

void ExportRankCalls(Napi::Env env, Napi::Object exports, Napi::FunctionReference* profile_ctor) {
  exports.Set("openRankRun", Napi::Function::New(env, [profile_ctor](const Napi::CallbackInfo& info) -> Napi::Value {
    if (info.Length() < 1 || !info[0].IsString())
      throw Napi::TypeError::New(info.Env(), "openRankRun(path): path must be a string");
    return Queue(new OpenRankRunWorker(info.Env(), info[0].As<Napi::String>().Utf8Value(), profile_ctor));
  }, "openRankRun"));
}

Napi::Value RanksOf(Napi::Env env, const std::shared_ptr<ProfileState>& state) {
  if (!state->ranks) return env.Null();
  const auto& run = *state->ranks;
  Napi::Array ranks = Napi::Array::New(env, run.ranks().size());
  for (size_t k = 0; k < run.ranks().size(); ++k) {
    const auto& r = run.ranks()[k];
    Napi::Object o = Napi::Object::New(env);
    o.Set("rank", r.rank);
    o.Set("localRank", r.local_rank);
    o.Set("nodeRank", r.node_rank);
    o.Set("host", r.host);
    Napi::Array profiles = Napi::Array::New(env, r.profiles.size());
    Napi::Array pids = Napi::Array::New(env, r.pids.size());
    for (size_t i = 0; i < r.profiles.size(); ++i) {
      profiles.Set(uint32_t(i), r.profiles[i]);
      pids.Set(uint32_t(i), Napi::Number::New(env, double(r.pids[i])));
    }
    o.Set("profiles", profiles);
    o.Set("pids", pids);
    o.Set("ended", r.ended);
    o.Set("startUnixNs", Napi::Number::New(env, double(r.start_unix_ns)));
    o.Set("endUnixNs", Napi::Number::New(env, double(r.end_unix_ns)));
    ranks.Set(uint32_t(k), o);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("ranks", ranks);
  Napi::Array missing = Napi::Array::New(env, run.missing_ranks().size());
  for (size_t i = 0; i < run.missing_ranks().size(); ++i) missing.Set(uint32_t(i), run.missing_ranks()[i]);
  out.Set("missingRanks", missing);
  Napi::Array left = Napi::Array::New(env, run.left_out().size());
  for (size_t i = 0; i < run.left_out().size(); ++i) left.Set(uint32_t(i), run.left_out()[i]);
  out.Set("leftOut", left);
  return out;
}

Napi::Value QueueRankPhases(Napi::Env env, std::shared_ptr<ProfileState> state) {
  return Queue(new RankPhasesWorker(env, std::move(state)));
}

Napi::Value QueueRankSteps(Napi::Env env, std::shared_ptr<ProfileState> state) {
  return Queue(new RankStepsWorker(env, std::move(state)));
}

Napi::Value QueueRankTimeline(Napi::Env env, std::shared_ptr<ProfileState> state, std::optional<size_t> max_slices) {
  return Queue(new RankTimelineWorker(env, std::move(state), max_slices));
}

Napi::Value QueueRankSpread(Napi::Env env, std::shared_ptr<ProfileState> state, strata::core::ViewKind kind, size_t node,
                            std::optional<size_t> metric) {
  return Queue(new RankSpreadWorker(env, std::move(state), kind, node, metric));
}

}  // namespace strata::addon
