#include "kineto_events.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "strata/core/api.h"

namespace strata::core::detail {
namespace {

std::optional<KinetoEventKind> KindOf(const std::string& cat) {
  if (cat == "python_function") return KinetoEventKind::kPythonFunction;
  if (cat == "cpu_op" || cat == "user_annotation" || cat == "Operator") return KinetoEventKind::kOperator;
  if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime") return KinetoEventKind::kRuntime;
  if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "Kernel" || cat == "Memcpy" ||
      cat == "Memset")
    return KinetoEventKind::kGpu;
  return std::nullopt;
}

// pid and tid are numbers or strings depending on the torch version and the device.
std::string IdText(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

std::vector<KinetoEvent> ReadKinetoEvents(const std::string& text, std::vector<KinetoFlowEnd>* links) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw Error("not a Kineto trace: not JSON");
  // torch built without Kineto (Debian's 1.13) exports its legacy profiler's events as a bare
  // array: no correlation ids, no GPU activity, no Python stacks to place anything under.
  if (doc.is_array())
    throw Error(
        "not a Kineto trace: a bare event array, as torch's legacy profiler writes it (torch built without "
        "Kineto); record with a torch that has Kineto (torch.autograd.kineto_available())");
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
    throw Error("not a Kineto trace: no traceEvents array (a PyTorch-profiler trace is an object with one)");
  std::vector<KinetoEvent> out;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    if (!e.is_object()) continue;
    const std::string ph = e.value("ph", "");
    if (links && (ph == "s" || ph == "f") && e.value("cat", "") == "fwdbwd") {
      const auto id = e.find("id"), ts = e.find("ts");
      if (id != e.end() && id->is_number_integer() && ts != e.end() && ts->is_number())
        links->push_back({id->get<int64_t>(), {IdText(e.value("pid", nlohmann::json())), IdText(e.value("tid", nlohmann::json()))},
                          ts->get<double>(), ph == "s"});
      continue;
    }
    if (ph != "X") continue;
    const auto cat = e.find("cat");
    if (cat == e.end() || !cat->is_string()) continue;
    const auto kind = KindOf(cat->get<std::string>());
    if (!kind) continue;
    const auto ts = e.find("ts"), dur = e.find("dur"), name = e.find("name");
    if (ts == e.end() || !ts->is_number() || dur == e.end() || !dur->is_number() || name == e.end() ||
        !name->is_string())
      continue;
    KinetoEvent ev{*kind, name->get<std::string>(), {IdText(e.value("pid", nlohmann::json())),
                                                     IdText(e.value("tid", nlohmann::json()))},
                   ts->get<double>(), std::max(0.0, dur->get<double>()), std::nullopt};
    const auto args = e.find("args");
    if (args != e.end() && args->is_object()) {
      const auto corr = args->find("correlation");
      if (corr != args->end() && corr->is_number_integer()) ev.correlation = corr->get<int64_t>();
    }
    out.push_back(std::move(ev));
  }
  if (out.empty())
    throw Error("not a Kineto trace: no cpu_op, python_function, cuda_runtime or kernel events");
  return out;
}

}  // namespace strata::core::detail
