// stall: a hot kernel that spends most of its PC samples in latency stalls, its dominant latency
// stall reason and the source lines where warps stall for it (metrics stall_<reason> on the
// kernel's pc frames, issue 4/5). Throughput reasons (issuing, or a busy math pipe) are no problem
// to fix at a line, so a throughput-bound kernel gives no finding. Silent without PC sampling.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "../../value_format.h"
#include "builtin_rules.h"
#include "stall_reasons.h"
#include "strata/core/sass_deps.h"

namespace strata::core::detail {

namespace {

// "stall_kernels.cu:14" (base name: the message stays short; the finding's location has the path).
std::string FileLine(const std::string& file, uint32_t line) {
  size_t slash = file.rfind('/');
  return (slash == std::string::npos ? file : file.substr(slash + 1)) + ":" + std::to_string(line);
}

// The call site an inlined instruction was inlined at, from the pc frame's name
// ("+0x140 FFMA R5, R5, R2, 0.5 (inlined at stall_kernels.cu:26)"), or "".
std::string InlinedAt(const std::string& name) {
  static const std::string kTag = "(inlined at ";
  size_t at = name.rfind(kTag);
  if (at == std::string::npos) return "";
  size_t end = name.find(')', at);
  return end == std::string::npos ? "" : name.substr(at + kTag.size(), end - at - kTag.size());
}

// A share for the message: Percent(), except that 99.7% does not print as 100%.
std::string Share(double share) {
  if (share < 0.995 || share >= 1) return Percent(share);
  char b[16];
  std::snprintf(b, sizeof b, "%.1f%%", std::floor(share * 1000.0) / 10.0);  // truncated: 99.96% is "99.9%"
  return b;
}

// "a.cu:9" before "a.cu:10": call sites in file order, then line order.
bool SiteBefore(const std::string& a, const std::string& b) {
  size_t ca = a.rfind(':'), cb = b.rfind(':');
  if (ca == std::string::npos || cb == std::string::npos || a.compare(0, ca, b, 0, cb) != 0) return a < b;
  return std::atol(a.c_str() + ca + 1) < std::atol(b.c_str() + cb + 1);
}

// The asynchronous-copy wait right before the pc frame's instruction, "" when none (or the
// profile's GPU code cannot be read: read once per analysis, only when a stall is reported).
std::string AsyncWaitBeforePc(const AnalysisContext& cx, size_t pc, std::map<std::string, ProfileGpuCode>& code, bool& code_read) {
  if (cx.profile_path().empty() || cx.kind(pc) != Kind::kPc || cx.parent(pc) < 0) return "";
  if (!code_read) {
    code_read = true;
    try { code = ReadProfileGpuCode(cx.profile_path()); } catch (...) { return ""; }
  }
  const FrameInfo& f = cx.frame(pc);
  auto it = code.find(f.module);
  if (it == code.end() || it->second.listing.empty()) return "";
  const std::string& listing = it->second.listing;
  if (listing.find("DEPBAR") == std::string::npos && listing.find("TRYWAIT") == std::string::npos) return "";
  try {
    const std::string fn = ListingFunctionOf(listing, cx.frame(size_t(cx.parent(pc))).name);
    return fn.empty() ? "" : AsyncWaitBefore(listing, fn, f.address);
  } catch (const Error&) {
    return "";
  }
}

struct LineStalls {
  double samples = 0;          // of the dominant reason
  double top_pc_samples = 0;
  size_t top_pc = 0;
  std::vector<std::string> inlined_at;  // distinct call sites, first seen first
};

}  // namespace

void Stall(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  auto gpu = cx.metric_index(kGpuTime);
  std::vector<size_t> reasons;  // metric indices of real stall reasons
  for (size_t k = 0; k < cx.metrics().size(); ++k) {
    const std::string& name = cx.metrics()[k].name;
    if (name.rfind("stall_", 0) == 0 && StallReason(name.substr(6)).kind != StallClass::kNotAReason)
      reasons.push_back(k);
  }
  if (!gpu || reasons.empty() || cx.Total(*gpu) <= 0) return;
  std::map<std::string, ProfileGpuCode> code;  // read on first need
  bool code_read = false;
  // The kernels heavy enough to judge, and their samples per reason: read reason by reason (a
  // metric at every node is computed once, not once per kernel).
  std::vector<size_t> kernels;
  for (size_t v = 1; v < cx.size(); ++v)
    if (cx.kind(v) == Kind::kKernel && !(cx.Incl(v, *gpu) / cx.Total(*gpu) < p["min_share"])) kernels.push_back(v);
  std::vector<double> samples(kernels.size() * reasons.size());
  for (size_t r = 0; r < reasons.size(); ++r)
    for (size_t i = 0; i < kernels.size(); ++i) samples[i * reasons.size() + r] = cx.metric(kernels[i], reasons[r]).inclusive;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const size_t v = kernels[i];
    double share = cx.Incl(v, *gpu) / cx.Total(*gpu);
    double all = 0, latency = 0, best = 0;
    size_t reason = reasons[0];
    for (size_t r = 0; r < reasons.size(); ++r) {
      const size_t k = reasons[r];
      double s = samples[i * reasons.size() + r];
      all += s;
      if (StallReason(cx.metrics()[k].name.substr(6)).kind != StallClass::kLatency) continue;
      latency += s;
      if (s > best) { best = s; reason = k; }
    }
    if (all <= 0 || best <= 0 || latency / all < p["min_latency_share"] || best / latency < p["min_reason_share"])
      continue;

    // That reason's samples by source line (an inlined helper's line gathers all its call sites).
    std::map<std::pair<std::string, uint32_t>, LineStalls> by_line;
    for (size_t c = v + 1; c < cx.subtree_end(v); ++c) {
      double s = cx.kind(c) == Kind::kPc ? cx.metric(c, reason).exclusive : 0;
      if (s <= 0) continue;
      const FrameInfo& f = cx.frame(c);
      LineStalls& l = by_line[{f.line ? f.file : "", f.line}];
      l.samples += s;
      if (s > l.top_pc_samples) { l.top_pc_samples = s; l.top_pc = c; }
      std::string site = InlinedAt(f.name);
      if (!site.empty() && std::find(l.inlined_at.begin(), l.inlined_at.end(), site) == l.inlined_at.end())
        l.inlined_at.push_back(site);
    }
    std::vector<std::pair<std::pair<std::string, uint32_t>, LineStalls>> lines(by_line.begin(), by_line.end());
    std::stable_sort(lines.begin(), lines.end(), [](auto& a, auto& b) { return a.second.samples > b.second.samples; });

    std::string listed;
    for (size_t i = 0; i < lines.size() && i < size_t(p["lines"]); ++i) {
      auto& [key, l] = lines[i];
      if (i > 0 && l.samples < 0.01 * best) break;  // a line with a stray sample is noise here
      std::sort(l.inlined_at.begin(), l.inlined_at.end(), SiteBefore);
      listed += i ? ", " : "";
      listed += key.second ? FileLine(key.first, key.second) : "instructions without a source line";
      for (size_t s = 0; s < l.inlined_at.size(); ++s) listed += (s ? ", " : " (inlined at ") + l.inlined_at[s];
      listed += (l.inlined_at.empty() ? " " : ") ") + Share(l.samples / best);
    }
    std::string why = cx.metrics()[reason].name.substr(6);
    StallReasonInfo info = StallReason(why);
    const FrameInfo& kf = cx.frame(v);
    std::string msg = "Kernel `" + kf.name + "` (" + Percent(share) + " of GPU time) stalls mostly on " + why + " (" +
                      Share(best / all) + " of its PC samples; latency stalls " + Share(latency / all) + ")" +
                      (listed.empty() ? "" : ", at " + listed) + ". " + info.advice + ".";
    // The sample lands on the instruction that cannot issue, not on the one that caused the wait;
    // after an asynchronous-copy wait, that wait is the cause (the async-wait rule pairs it).
    const std::string async_wait = lines.empty() ? "" : AsyncWaitBeforePc(cx, lines.front().second.top_pc, code, code_read);
    if (!async_wait.empty())
      msg += " The sampled instruction follows the asynchronous-copy wait `" + async_wait +
             "`: the warps wait there for their copies (see the async-wait finding).";
    else if (*info.producer)
      msg += std::string(" The sampled instruction is the consumer that waits; the cause is the producer of the register "
                         "it waits for (") + info.producer + "), usually just before it.";
    Finding fd = cx.Make("stall", "warning", lines.empty() ? v : lines.front().second.top_pc, std::move(msg));
    fd.cause = why;
    fd.evidence = {{"gpu_time_share", share, "share"},
                   {"stall_reason_share", best / all, "share"},
                   {"latency_stall_share", latency / all, "share"},
                   {cx.metrics()[reason].name, best, cx.metrics()[reason].unit}};
    if (!lines.empty()) fd.evidence.push_back({"top_line_share", lines.front().second.samples / best, "share"});
    out.push_back(std::move(fd));
  }
}

}  // namespace strata::core::detail
