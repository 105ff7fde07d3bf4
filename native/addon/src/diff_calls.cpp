// The diff worker: the core compares on the thread pool; the result is B's view as columns (the
// frame table and whole node columns a view() answer has) plus the per-node baseline.
#include "diff_calls.h"

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

Napi::Object FrameObject(Napi::Env env, const core::FrameInfo& f) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("kind", f.kind);
  o.Set("name", f.name);
  o.Set("file", f.file);
  o.Set("line", Napi::Number::New(env, f.line));
  return o;
}

class DiffWorker : public PromiseWorker {
 public:
  DiffWorker(Napi::Env env, std::shared_ptr<ProfileState> a, std::shared_ptr<ProfileState> b, std::string metric)
      : PromiseWorker(env, "strata.diff"), a_(std::move(a)), b_(std::move(b)), metric_(std::move(metric)) {}

 protected:
  void Run() override {
    diff_ = core::DiffProfilesView(*a_->profile, *b_->profile, metric_);
    frames_ = ViewFrames::Of(diff_.view);
    columns_ = PartColumns::Of(diff_.view, frames_);
  }

  Napi::Value Result(Napi::Env env) override {
    const core::ProfileDiff& d = diff_.diff;
    Napi::Object out = Napi::Object::New(env);
    out.Set("metric", d.metric.name);
    out.Set("unit", d.metric.unit);
    out.Set("totalA", Napi::Number::New(env, d.total_a));
    out.Set("totalB", Napi::Number::New(env, d.total_b));
    out.Set("commonPaths", Napi::Number::New(env, double(d.common_paths)));
    out.Set("fuzzyPaths", Napi::Number::New(env, double(d.fuzzy_paths)));
    out.Set("frameFilter", diff_.view.filter == core::FrameFilter::kPython ? "python" : "all");
    out.Set("strings", StringArray(env, frames_.strings));
    out.Set("frames", frames_.Columns(env));
    columns_.Set(env, out);
    out.Set("baseline", F64Column(env, diff_.a_inclusive));
    std::vector<uint8_t> match;
    match.reserve(diff_.match.size());
    for (core::DiffMatch m : diff_.match) match.push_back(uint8_t(m));
    out.Set("match", U8Column(env, match));

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
    return out;
  }

 private:
  std::shared_ptr<ProfileState> a_, b_;
  std::string metric_;
  core::DiffView diff_;
  ViewFrames frames_;
  PartColumns columns_;
};

}  // namespace

Napi::Value QueueDiff(Napi::Env env, std::shared_ptr<ProfileState> a, std::shared_ptr<ProfileState> b,
                      std::string metric) {
  return Queue(new DiffWorker(env, std::move(a), std::move(b), std::move(metric)));
}

}  // namespace strata::addon
