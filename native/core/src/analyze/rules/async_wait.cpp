// async-wait: an asynchronous copy's wait (cp.async DEPBAR, TMA mbarrier try-wait) that holds a
// large share of its kernel's PC samples, at the wait's source line, with the copy it waits for
// and, where the dependency graph and the shared memory allow, how much earlier to issue it
// (docs/async-copies.md). Silent without PC samples or without the kernel's GPU code (cubin and
// listing) in the profile.
#include <map>

#include "../../value_format.h"
#include "builtin_rules.h"
#include "strata/core/sass_deps.h"

namespace strata::core::detail {

void AsyncWait(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  auto pcs = cx.metric_index("pc_samples");
  auto gpu = cx.metric_index(kGpuTime);
  if (!pcs || !gpu || cx.profile_path().empty() || cx.Total(*gpu) <= 0) return;
  std::vector<std::pair<size_t, std::string>> reasons;
  for (size_t k = 0; k < cx.metrics().size(); ++k) {
    const std::string& n = cx.metrics()[k].name;
    if (n.rfind("stall_", 0) == 0 && n != "stall_sample_count" && n != "stall_samples_data_dropped") reasons.push_back({k, n.substr(6)});
  }
  std::map<std::string, ProfileGpuCode> code;
  bool code_read = false;
  auto block = cx.metric_index("block_size"), dynamic = cx.metric_index("dynamic_shared_bytes");
  for (size_t v = 1; v < cx.size(); ++v) {
    if (cx.kind(v) != Kind::kKernel || cx.Incl(v, *gpu) / cx.Total(*gpu) < p["min_share"] || cx.metric(v, *pcs).inclusive <= 0) continue;
    SassPcSamples samples;
    std::map<uint64_t, size_t> pc_node;
    std::string module;
    for (size_t c = v + 1; c < cx.subtree_end(v); ++c) {
      if (cx.kind(c) != Kind::kPc) continue;
      const FrameInfo& f = cx.frame(c);
      module = f.module;
      pc_node.emplace(f.address, c);
      auto& at = samples[f.address];
      bool any = false;
      for (const auto& [k, reason] : reasons) {
        const double s = cx.metric(c, k).exclusive;
        if (s > 0) at[reason] += s, any = true;
      }
      if (!any && cx.metric(c, *pcs).exclusive > 0) at[""] += cx.metric(c, *pcs).exclusive;
    }
    if (module.empty()) continue;
    if (!code_read) {
      code_read = true;
      try { code = ReadProfileGpuCode(cx.profile_path()); } catch (...) { return; }
    }
    auto mc = code.find(module);
    if (mc == code.end() || mc->second.listing.empty()) continue;
    const std::string& listing = mc->second.listing;
    if (listing.find("DEPBAR") == std::string::npos && listing.find("SYNCS") == std::string::npos) continue;
    AsyncCopyAnalysis a;
    try {
      const std::string fn = ListingFunctionOf(listing, cx.frame(v).name);
      if (fn.empty()) continue;
      SuggestionLimits limits;
      if (block) limits.threads_per_block = uint32_t(cx.metric(v, *block).max);
      if (dynamic) limits.dynamic_shared_bytes = uint64_t(cx.metric(v, *dynamic).max);
      WaitThresholds t;
      t.stalled_share = p["stalled_share"];
      a = AnalyzeAsyncCopies(mc->second.cubin, listing, fn, &samples, nullptr, limits, t);
    } catch (const Error&) {
      continue;
    }
    for (const WaitClassification& w : a.verdicts) {
      if (w.verdict != WaitVerdict::kStalled) continue;
      const AsyncCopyWait& pair = a.waits[w.wait];
      const SassInstr& wi = a.graph.instructions[pair.wait];
      std::string msg;
      for (const CopySuggestion& s : a.suggestions)
        if (s.wait == w.wait) msg = s.message;
      std::string severity = "warning";
      if (msg.empty() && pair.iterations > 0) {
        // Already issued iterations ahead and still waited for: moving it earlier is not the fix.
        severity = "note";
        msg = "The " + std::string(AsyncCopyKindName(pair.kind)) + " wait `" + wi.text + "` holds " + Percent(w.share) +
              " of kernel `" + cx.frame(v).name + "`'s PC samples although the copy it completes was issued " +
              (pair.iterations_at_least ? "at least " : "") + std::to_string(pair.iterations) +
              (pair.iterations == 1 ? " iteration" : " iterations") +
              " earlier: the copies arrive late for the pipeline's depth (bandwidth- or latency-bound). Move fewer "
              "bytes per stage, or add stages if shared memory allows.";
      } else if (msg.empty()) {
        msg = "The " + std::string(AsyncCopyKindName(pair.kind)) + " wait `" + wi.text + "` holds " + Percent(w.share) +
              " of kernel `" + cx.frame(v).name + "`'s PC samples";
        if (!pair.copies.empty()) msg += ", waiting for the copy issued " + std::to_string(pair.distance) + " instructions before it";
        msg += ": issue the copy earlier or give the wait more independent work.";
      } else {
        msg = "Kernel `" + cx.frame(v).name + "`: " + msg + " (" + Percent(w.share) + " of its PC samples wait there.)";
      }
      auto node = pc_node.find(wi.offset);
      Finding fd = cx.Make("async-wait", severity, node == pc_node.end() ? v : node->second, std::move(msg));
      fd.cause = cx.frame(v).name;
      fd.evidence = {{"wait_sample_share", w.share, "share"},
                     {"wait_samples", w.samples, "count"},
                     {"copy_to_wait_instructions", double(pair.distance), "count"},
                     {"gpu_time_share", cx.Incl(v, *gpu) / cx.Total(*gpu), "share"}};
      for (const CopySuggestion& s : a.suggestions)
        if (s.wait == w.wait) {
          fd.evidence.push_back({"issue_earlier_instructions", double(s.instructions_earlier), "count"});
          fd.evidence.push_back({"ring_groups", double(s.ring_groups), "count"});
        }
      out.push_back(std::move(fd));
    }
  }
}

}  // namespace strata::core::detail
