// The analysis as text and as JSON (docs/async-copies.md "Output").
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>

#include "source_text.h"
#include "strata/core/sass_deps.h"

namespace strata::core {
namespace {

std::string Hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%04llx", static_cast<unsigned long long>(v));
  return b;
}

std::string Control(const SassControl& c) {
  std::string wait;
  for (int i = 0; i < 6; ++i) wait += (c.wait_mask >> i & 1) ? char('0' + i) : '-';
  char b[64];
  std::snprintf(b, sizeof b, "[B%s:R%c:W%c:%c:S%02d]", wait.c_str(), c.read_scoreboard < 0 ? '-' : char('0' + c.read_scoreboard),
                c.write_scoreboard < 0 ? '-' : char('0' + c.write_scoreboard), c.yield ? 'Y' : '-', c.stall);
  return b;
}

nlohmann::json ControlJson(const SassControl& c) {
  return {{"stall", c.stall}, {"yield", c.yield}, {"write_scoreboard", c.write_scoreboard}, {"read_scoreboard", c.read_scoreboard},
          {"wait_mask", c.wait_mask}, {"reuse", c.reuse}};
}

nlohmann::json Line(const SassInstr& i) {
  nlohmann::json j = {{"file", i.line.file}, {"line", i.line.line}};
  nlohmann::json callers = nlohmann::json::array();
  for (const auto& s : i.inlined_at) callers.push_back({{"file", s.file}, {"line", s.line}});
  j["inlined_at"] = callers;
  return j;
}

}  // namespace

std::string AsyncCopyReportText(const AsyncCopyAnalysis& a, bool with_graph) {
  const SassDependencyGraph& g = a.graph;
  std::string o = "kernel  " + g.function + ": " + std::to_string(g.instructions.size()) + " instructions, " +
                  std::to_string(g.blocks.size()) + " blocks, " + std::to_string(g.edges.size()) + " dependency edges; static shared " +
                  std::to_string(g.static_shared_bytes) + " bytes" +
                  (g.max_threads ? ", " + std::to_string(g.max_threads) + " threads (launch bounds)" : "") + "\n";
  for (size_t k = 0; k < a.waits.size(); ++k) {
    const AsyncCopyWait& w = a.waits[k];
    const SassInstr& wi = g.instructions[w.wait];
    o += "wait    " + Hex(wi.offset) + " " + wi.text + "  at " + sass::SourceText(wi) + "\n";
    if (w.copies.empty()) {
      o += "          " + w.note + "\n";
    } else {
      const SassInstr& c = g.instructions[w.copies.front()];
      o += "          completes " + std::to_string(w.copies.size()) + " " + AsyncCopyKindName(w.kind) + " cop" +
           (w.copies.size() == 1 ? "y" : "ies") + " (" + std::to_string(w.bytes_per_thread) + " bytes a thread), the last at " +
           Hex(c.offset) + " " + sass::SourceText(c) + ": " + std::to_string(w.distance) + " instructions before the wait" +
           (w.iterations_at_least ? " at least" : "") +
           (w.iterations ? ", " + std::string(w.iterations_at_least ? "at least " : "") + std::to_string(w.iterations) +
                               (w.iterations == 1 ? " iteration back" : " iterations back")
                         : ", same iteration") +
           "\n";
    }
    for (const WaitClassification& v : a.verdicts) {
      if (v.wait != k) continue;
      char b[256];
      if (v.evidence == "pc samples")
        std::snprintf(b, sizeof b, "          %s: %.0f of %.0f samples (%.1f%%)%s%s; the barrier after it %.0f\n", WaitVerdictName(v.verdict),
                      v.samples, v.kernel_samples, 100 * v.share, v.top_reason.empty() ? "" : ", mostly ", v.top_reason.c_str(),
                      v.barrier_samples);
      else
        std::snprintf(b, sizeof b, "          %s (%s): %.0f cycles stalled per pass (%.1f%% of the modeled time)\n",
                      WaitVerdictName(v.verdict), v.evidence.c_str(), v.model_stall_cycles, 100 * v.share);
      o += b;
    }
  }
  for (const CopySuggestion& s : a.suggestions) o += "suggest " + s.message + "\n";
  for (const std::string& n : a.notes) o += "note    " + n + "\n";
  if (!a.timeline.empty()) {
    double end = a.timeline.back().issue, stalled = 0;
    for (const TimedStep& t : a.timeline) stalled += t.stall;
    char b[160];
    std::snprintf(b, sizeof b, "model   %zu traced instructions issue over %.0f cycles, %.0f of them stalled\n", a.timeline.size(), end, stalled);
    o += b;
  }
  if (with_graph) {
    for (size_t i = 0; i < g.instructions.size(); ++i) {
      const SassInstr& in = g.instructions[i];
      o += "  " + Hex(in.offset) + " " + (in.control ? Control(*in.control) : std::string("[no control bits]")) + " " + in.text;
      std::string deps;
      for (const SassEdge& e : g.edges)
        if (e.to == i) deps += (deps.empty() ? "" : ", ") + std::string(e.what) + "<-" + Hex(g.instructions[e.from].offset) + (e.loop_carried ? "'" : "");
      if (!deps.empty()) o += "   ; " + deps;
      o += "\n";
    }
  }
  return o;
}

std::string AsyncCopyReportJson(const AsyncCopyAnalysis& a, bool with_graph) {
  const SassDependencyGraph& g = a.graph;
  nlohmann::json waits = nlohmann::json::array();
  for (size_t k = 0; k < a.waits.size(); ++k) {
    const AsyncCopyWait& w = a.waits[k];
    nlohmann::json copies = nlohmann::json::array();
    for (size_t c : w.copies) copies.push_back({{"offset", g.instructions[c].offset}, {"text", g.instructions[c].text}, {"source", Line(g.instructions[c])}});
    nlohmann::json j = {{"kind", AsyncCopyKindName(w.kind)}, {"offset", g.instructions[w.wait].offset}, {"text", g.instructions[w.wait].text},
                        {"source", Line(g.instructions[w.wait])}, {"allowed_pending", w.allowed_pending}, {"copies", copies},
                        {"distance", w.distance}, {"iterations", w.iterations}, {"iterations_at_least", w.iterations_at_least}, {"bytes_per_thread", w.bytes_per_thread}, {"note", w.note}};
    if (w.commit) j["commit_offset"] = g.instructions[*w.commit].offset;
    if (w.barrier) j["barrier_offset"] = g.instructions[*w.barrier].offset;
    for (const WaitClassification& v : a.verdicts)
      if (v.wait == k)
        j["verdict"] = {{"verdict", WaitVerdictName(v.verdict)}, {"evidence", v.evidence}, {"samples", v.samples},
                        {"barrier_samples", v.barrier_samples}, {"kernel_samples", v.kernel_samples}, {"share", v.share},
                        {"top_reason", v.top_reason}, {"model_stall_cycles", v.model_stall_cycles}};
    waits.push_back(std::move(j));
  }
  nlohmann::json suggestions = nlohmann::json::array();
  for (const CopySuggestion& s : a.suggestions)
    suggestions.push_back({{"wait_offset", g.instructions[a.waits[s.wait].wait].offset}, {"iterations_earlier", s.iterations_earlier},
                           {"instructions_earlier", s.instructions_earlier}, {"loop_instructions", s.loop_instructions},
                           {"ring_groups", s.ring_groups}, {"group_bytes", s.group_bytes}, {"new_allowed_pending", s.new_allowed_pending},
                           {"addresses_from_counters", s.addresses_from_counters}, {"message", s.message}});
  nlohmann::json j = {{"format", "strata-async-copies"}, {"version", 1}, {"function", g.function},
                      {"instructions", g.instructions.size()}, {"blocks", g.blocks.size()}, {"static_shared_bytes", g.static_shared_bytes},
                      {"max_threads", g.max_threads}, {"control_bits", g.has_control_bits}, {"waits", waits},
                      {"suggestions", suggestions}, {"notes", a.notes}};
  if (!a.timeline.empty()) {
    nlohmann::json t = nlohmann::json::array();
    for (const TimedStep& s : a.timeline)
      t.push_back({{"step", s.step}, {"offset", s.offset}, {"issue", s.issue}, {"stall", s.stall}, {"waited_for", s.waited_for}});
    j["timeline"] = t;
  }
  if (with_graph) {
    nlohmann::json ins = nlohmann::json::array(), edges = nlohmann::json::array();
    for (const SassInstr& i : g.instructions) {
      nlohmann::json x = {{"offset", i.offset}, {"text", i.text}, {"opcode", i.opcode}, {"source", Line(i)}};
      if (i.control) x["control"] = ControlJson(*i.control);
      ins.push_back(std::move(x));
    }
    for (const SassEdge& e : g.edges)
      edges.push_back({{"from", g.instructions[e.from].offset}, {"to", g.instructions[e.to].offset}, {"kind", SassEdgeKindName(e.kind)},
                       {"what", e.what}, {"loop_carried", e.loop_carried}});
    j["graph"] = {{"instructions", ins}, {"edges", edges}};
  }
  return j.dump(1) + "\n";
}

std::string AsyncCopyTimelineChrome(const AsyncCopyAnalysis& a) {
  std::map<uint64_t, const SassInstr*> at;
  for (const SassInstr& i : a.graph.instructions) at[i.offset] = &i;
  nlohmann::json events = nlohmann::json::array();
  const std::string process = "timing model: " + a.graph.function + " (1 cycle = 1 ns)";
  events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 1}, {"args", {{"name", process}}}});
  events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", 1}, {"tid", 1}, {"args", {{"name", "issue"}}}});
  events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", 1}, {"tid", 2}, {"args", {{"name", "stall"}}}});
  for (size_t k = 0; k < a.timeline.size(); ++k) {
    const TimedStep& t = a.timeline[k];
    const double end = k + 1 < a.timeline.size() ? a.timeline[k + 1].issue : t.issue + 1;
    auto it = at.find(t.offset);
    const SassInstr* i = it == at.end() ? nullptr : it->second;
    nlohmann::json args = {{"offset", Hex(t.offset)}, {"step", t.step}, {"stall_cycles", t.stall}};
    if (i) {
      args["sass"] = i->text;
      if (i->line.line) args["line"] = sass::SourceText(*i);
    }
    events.push_back({{"ph", "X"}, {"name", i ? i->opcode : Hex(t.offset)}, {"pid", 1}, {"tid", 1}, {"ts", t.issue / 1000.0},
                      {"dur", std::max(end - t.issue, 0.0) / 1000.0}, {"args", args}});
    if (t.stall > 0)
      events.push_back({{"ph", "X"}, {"name", "wait " + (t.waited_for.empty() ? std::string("issue") : t.waited_for)}, {"pid", 1},
                        {"tid", 2}, {"ts", (t.issue - t.stall) / 1000.0}, {"dur", t.stall / 1000.0}, {"args", args}});
  }
  return nlohmann::json({{"traceEvents", events}, {"displayTimeUnit", "ns"}}).dump() + "\n";
}

}  // namespace strata::core
