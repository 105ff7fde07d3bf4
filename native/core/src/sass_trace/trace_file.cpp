// The trace file: JSON with a format name and version (docs/async-copies.md "Trace file").
#include <nlohmann/json.hpp>

#include "strata/core/api.h"
#include "strata/core/sass_trace.h"

namespace strata::core {

std::string WriteSassTrace(const SassTrace& t) {
  nlohmann::json steps = nlohmann::json::array();
  for (const SassTraceStep& s : t.steps) {
    nlohmann::json j = {{"offset", s.offset}, {"text", s.text}};
    if (s.guard >= 0) j["guard"] = s.guard == 1;
    if (!s.reads.empty()) {
      nlohmann::json r = nlohmann::json::array();
      for (const auto& rd : s.reads) r.push_back({rd.reg, rd.value ? nlohmann::json(*rd.value) : nlohmann::json()});
      j["reads"] = r;
    }
    if (s.memory)
      j["memory"] = {{"space", s.memory->space}, {"address", s.memory->address}, {"words", s.memory->words}, {"error", s.memory->error}};
    steps.push_back(std::move(j));
  }
  nlohmann::json loops = nlohmann::json::array(), branches = nlohmann::json::array();
  for (const SassLoop& l : TraceLoops(t)) loops.push_back({{"head", l.head}, {"back_edge", l.back_edge}, {"iterations", l.iterations}});
  for (const SassBranchOutcome& b : BranchOutcomes(t))
    branches.push_back({{"offset", b.offset}, {"taken", b.taken}, {"fallthrough", b.fallthrough}});
  nlohmann::json j = {{"format", "strata-sass-trace"}, {"version", SassTrace::kVersion}, {"kernel", t.kernel},
                      {"debugger", t.debugger}, {"block", t.block}, {"thread", t.thread},
                      {"max_instructions", t.max_instructions}, {"stop_reason", t.stop_reason}, {"seconds", t.seconds},
                      {"notes", t.notes}, {"steps", steps}, {"loops", loops}, {"branches", branches}};
  return j.dump() + "\n";  // compact: a trace has thousands of steps
}

SassTrace ReadSassTrace(std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "strata-sass-trace")
    throw Error("not a SASS trace file (strata trace -o)");
  if (j.value("version", 0) != SassTrace::kVersion)
    throw Error("SASS trace version " + std::to_string(j.value("version", 0)) + ", this strata reads " + std::to_string(SassTrace::kVersion));
  try {
    SassTrace t;
    t.kernel = j.at("kernel").get<std::string>();
    t.debugger = j.value("debugger", "");
    t.block = j.value("block", "");
    t.thread = j.value("thread", "");
    t.max_instructions = j.value("max_instructions", uint64_t(0));
    t.stop_reason = j.value("stop_reason", "");
    t.seconds = j.value("seconds", 0.0);
    t.notes = j.value("notes", std::vector<std::string>{});
    for (const auto& s : j.at("steps")) {
      SassTraceStep st;
      st.offset = s.at("offset").get<uint64_t>();
      st.text = s.at("text").get<std::string>();
      st.guard = s.contains("guard") ? (s["guard"].get<bool>() ? 1 : 0) : -1;
      if (s.contains("reads"))
        for (const auto& r : s["reads"]) st.reads.push_back({r.at(0).get<std::string>(), r.at(1).is_null() ? std::nullopt : std::optional<uint32_t>(r.at(1).get<uint32_t>())});
      if (s.contains("memory")) {
        const auto& m = s["memory"];
        st.memory = SassTraceMemory{m.value("space", ""), m.value("address", uint64_t(0)), m.value("words", std::vector<uint32_t>{}), m.value("error", "")};
      }
      t.steps.push_back(std::move(st));
    }
    return t;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("SASS trace file: ") + e.what());
  }
}

}  // namespace strata::core
