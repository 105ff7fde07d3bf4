#include "run_calls.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "profile_state.h"
#include "promise_worker.h"
#include "strata/core/run_family.h"
#include "strata/core/run_merge.h"

namespace strata::addon {
namespace {

// runProcesses(path) -> [{path, pid, parentPid, parentProfile, command, ended, depth, totals}]
class RunProcessesWorker : public PromiseWorker {
 public:
  RunProcessesWorker(Napi::Env env, std::string path) : PromiseWorker(env, "strata.runProcesses"), path_(std::move(path)) {}

 protected:
  void Run() override { members_ = strata::core::RunFamily(path_); }
  Napi::Value Result(Napi::Env env) override {
    Napi::Array out = Napi::Array::New(env, members_.size());
    for (size_t i = 0; i < members_.size(); ++i) {
      const auto& m = members_[i];
      Napi::Object o = Napi::Object::New(env);
      o.Set("path", m.path);
      o.Set("pid", Napi::Number::New(env, double(m.pid)));
      o.Set("parentPid", Napi::Number::New(env, double(m.parent_pid)));
      o.Set("parentProfile", m.parent_profile);
      o.Set("command", m.command);
      o.Set("ended", m.ended);
      o.Set("depth", Napi::Number::New(env, m.depth));
      Napi::Array totals = Napi::Array::New(env, m.totals.size());
      for (size_t k = 0; k < m.totals.size(); ++k) {
        Napi::Object t = Napi::Object::New(env);
        t.Set("name", m.totals[k].name);
        t.Set("unit", m.totals[k].unit);
        t.Set("total", Napi::Number::New(env, m.totals[k].total));
        t.Set("count", Napi::Number::New(env, double(m.totals[k].count)));
        totals.Set(uint32_t(k), t);
      }
      o.Set("totals", totals);
      out.Set(uint32_t(i), o);
    }
    return out;
  }

 private:
  std::string path_;
  std::vector<strata::core::RunMember> members_;
};

// openRun(path) -> Profile: every process of the run at `path` (a folder, or a profile and the
// processes it started) under one root, a process frame each.
class OpenRunWorker : public PromiseWorker {
 public:
  OpenRunWorker(Napi::Env env, std::string path, Napi::FunctionReference* ctor)
      : PromiseWorker(env, "strata.openRun"), path_(std::move(path)), ctor_(ctor) {}

 protected:
  void Run() override {
    state_ = std::make_shared<ProfileState>();
    state_->path = path_;
    state_->profile = std::shared_ptr<const Profile>(strata::core::MergeRun(strata::core::RunFamily(path_)));
  }
  Napi::Value Result(Napi::Env env) override {
    std::shared_ptr<ProfileState> state = state_;
    auto ext = Napi::External<std::shared_ptr<ProfileState>>::New(env, &state);
    return ctor_->New({ext});  // the constructor copies the shared_ptr synchronously
  }

 private:
  std::string path_;
  Napi::FunctionReference* ctor_;
  std::shared_ptr<ProfileState> state_;
};

std::string PathArg(const Napi::CallbackInfo& info, const char* call) {
  if (info.Length() < 1 || !info[0].IsString())
    throw Napi::TypeError::New(info.Env(), std::string(call) + "(path): path must be a string");
  return info[0].As<Napi::String>().Utf8Value();
}

}  // namespace

void ExportRunCalls(Napi::Env env, Napi::Object exports, Napi::FunctionReference* profile_ctor) {
  exports.Set("runProcesses", Napi::Function::New(env, [](const Napi::CallbackInfo& info) -> Napi::Value {
    return Queue(new RunProcessesWorker(info.Env(), PathArg(info, "runProcesses")));
  }, "runProcesses"));
  exports.Set("openRun", Napi::Function::New(env, [profile_ctor](const Napi::CallbackInfo& info) -> Napi::Value {
    return Queue(new OpenRunWorker(info.Env(), PathArg(info, "openRun"), profile_ctor));
  }, "openRun"));
}

}  // namespace strata::addon
