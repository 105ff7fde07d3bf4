// strata report RUN_DIR --by-rank: a distributed job's ranks (core::RankRun) side by side — who
// they are and how they ended, each rank's compute / communication / startup / idle time over the
// run's window, and the frames whose time differs most between ranks (per-rank values, min /
// median / max, the rank with the max), the steady state's and startup's apart. Text or JSON.
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "strata/core/api.h"
#include "strata/core/rank_run.h"
#include "symbol_paths.h"

namespace strata::cli {
namespace {

namespace fs = std::filesystem;

std::string Ms(double ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", ns / 1e6);
  return b;
}

std::string Pad(std::string s, size_t w) {
  if (s.size() < w) s.insert(0, w - s.size(), ' ');
  return s;
}

struct RankedFrame {
  size_t node = 0;
  core::RankSpread spread;
};

// The frames any rank spent time in, widest spread (max - min) first, at most `limit`.
std::vector<RankedFrame> WidestFrames(const std::vector<core::RankRun::FrameSpread>& frames, size_t limit) {
  std::vector<RankedFrame> out;
  for (const auto& f : frames)
    if (f.spread.max > 0) out.push_back({f.node, f.spread});
  std::stable_sort(out.begin(), out.end(), [](const RankedFrame& a, const RankedFrame& b) {
    return a.spread.max - a.spread.min > b.spread.max - b.spread.min;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace

int RunRankReport(const ReportOptions& options) {
  try {
    core::OpenOptions open;
    open.symbol_paths = SymbolPaths(options.symbol_paths);
    auto run = core::RankRun::Open(options.file, open);
    const core::Profile& profile = run->profile();
    size_t metric = 0;
    if (!options.metric.empty()) {
      auto m = core::FindMetric(profile, options.metric);
      if (!m) {
        std::fprintf(stderr, "strata: %s: no metric named '%s'\n", options.file.c_str(), options.metric.c_str());
        return kExitUsage;
      }
      metric = *m;
    } else if (auto m = core::FindMetric(profile, "wall_time")) {
      metric = *m;
    }
    const auto& ranks = run->ranks();
    const auto phases = run->Phases();
    const core::RankSteps steps = run->Steps();
    // Per rank over the steps: median compute and communication, and how often it came last.
    struct PerRank { double compute = 0, communication = 0; size_t last = 0; };
    std::vector<PerRank> per_rank(ranks.size());
    for (size_t k = 0; k < ranks.size() && !steps.steps.empty(); ++k) {
      std::vector<double> c, m;
      for (const auto& st : steps.steps) {
        c.push_back(st.compute_ns[k]);
        m.push_back(st.communication_ns[k]);
        per_rank[k].last += st.last_rank == ranks[k].rank;
      }
      per_rank[k].compute = core::SpreadOf(c, {}).median;
      per_rank[k].communication = core::SpreadOf(m, {}).median;
    }
    core::ViewOptions vo;
    vo.primary_metric = metric;
    vo.expand = false;
    vo.all_metrics = false;  // keeps `landing`: where each stored node's values are
    vo.filter = core::FrameFilter::kAll;
    const core::View view = profile.BuildView(core::ViewKind::kTopDown, vo);
    // Frames that name code (Python lines, operators, kernels), each over every path that reaches
    // it (one line reached by different paths on different ranks is one row), ordered by how far
    // apart the ranks are on them: the steady state's, then startup's apart (ranks that import or
    // compile at different speeds would otherwise fill the table with import frames).
    std::vector<size_t> nodes;
    for (size_t n = 1; n < view.size(); ++n) {
      const std::string& kind = view.frame(n).kind;
      if (kind == "python" || kind == "operator" || kind == "kernel") nodes.push_back(n);
    }
    const std::vector<char> steady = run->StoredIn(core::RunPart::kSteady);
    const std::vector<char> startup = run->StoredIn(core::RunPart::kStartup);
    const bool json = options.format == "json";
    const size_t limit = options.limit > 0 ? size_t(options.limit) : options.limit == 0 ? SIZE_MAX : size_t(json ? 100 : 25);
    const std::vector<RankedFrame> steady_frames = WidestFrames(run->FrameSpreads(view, nodes, metric, &steady), limit);
    const std::vector<RankedFrame> startup_frames =
        WidestFrames(run->FrameSpreads(view, nodes, metric, &startup), json ? limit : std::min<size_t>(limit, 5));
    const std::string metric_name = profile.metrics().empty() ? "" : profile.metrics()[metric].name;
    std::string out;
    if (json) {
      nlohmann::json j;
      j["run"] = options.file;
      j["metric"] = metric_name;
      j["ranks"] = nlohmann::json::array();
      for (const auto& r : ranks) {
        nlohmann::json files = nlohmann::json::array();
        for (const auto& p : r.profiles) files.push_back(fs::path(p).filename().string());
        j["ranks"].push_back({{"rank", r.rank}, {"local_rank", r.local_rank}, {"node_rank", r.node_rank},
                              {"host", r.host}, {"profiles", files}, {"pids", r.pids}, {"ended", r.ended},
                              {"start_unix_ns", r.start_unix_ns}, {"end_unix_ns", r.end_unix_ns}});
      }
      j["missing_ranks"] = run->missing_ranks();
      nlohmann::json left = nlohmann::json::array();
      for (const auto& p : run->left_out()) left.push_back(fs::path(p).filename().string());
      j["left_out"] = left;
      j["phases"] = nlohmann::json::array();
      for (const auto& p : phases)
        j["phases"].push_back({{"rank", p.rank}, {"metric", p.metric}, {"window_ns", p.window_ns},
                               {"compute_ns", p.compute_ns}, {"communication_ns", p.communication_ns},
                               {"startup_ns", p.startup_ns}, {"idle_ns", p.idle_ns},
                               {"overlap_share", p.overlap_share ? nlohmann::json(*p.overlap_share) : nlohmann::json()}});
      nlohmann::json js = {{"collective", steps.collective}, {"file", steps.file}, {"line", steps.line},
                           {"count", steps.steps.size()}, {"per_rank", nlohmann::json::array()}, {"steps", nlohmann::json::array()}};
      for (size_t k = 0; k < ranks.size() && !steps.steps.empty(); ++k)
        js["per_rank"].push_back({{"rank", ranks[k].rank}, {"median_compute_ns", per_rank[k].compute},
                                  {"median_communication_ns", per_rank[k].communication}, {"issued_last", per_rank[k].last}});
      for (const auto& st : steps.steps)
        js["steps"].push_back({{"arrive_unix_ns", st.arrive_unix_ns}, {"compute_ns", st.compute_ns},
                               {"communication_ns", st.communication_ns}, {"last_rank", st.last_rank},
                               {"arrival_spread_ns", st.arrival_spread_ns}});
      j["steps"] = js;
      auto frames_json = [&](const std::vector<RankedFrame>& frames) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& fr : frames) {
          const auto& f = view.frame(fr.node);
          const auto& s = fr.spread;
          a.push_back({{"node", fr.node}, {"kind", f.kind}, {"name", f.name}, {"file", f.file}, {"line", f.line},
                       {"values", s.values}, {"min", s.min}, {"median", s.median}, {"max", s.max},
                       {"min_rank", s.min_rank}, {"max_rank", s.max_rank}});
        }
        return a;
      };
      j["frames"] = frames_json(steady_frames);
      j["startup_frames"] = frames_json(startup_frames);
      out = j.dump(1) + "\n";
    } else {
      out += "Distributed run " + options.file + ": " + std::to_string(ranks.size()) + " ranks";
      if (auto w = profile.meta("world_size")) out += " (world size " + *w + ")";
      out += ", metric " + metric_name + "\n";
      for (const auto& r : ranks) {
        out += "  rank " + std::to_string(r.rank);
        if (!r.host.empty()) out += " on " + r.host;
        if (r.local_rank >= 0) out += " (local rank " + std::to_string(r.local_rank) + ")";
        out += ":";
        for (size_t k = 0; k < r.profiles.size(); ++k)
          out += " " + fs::path(r.profiles[k]).filename().string() + (k == 0 ? "" : " (worker)");
        out += r.ended.empty() ? "\n" : "; ended: " + r.ended + "\n";
      }
      for (int r : run->missing_ranks()) out += "  rank " + std::to_string(r) + ": no profile\n";
      for (const auto& p : run->left_out()) out += "  not a rank (left out): " + fs::path(p).filename().string() + "\n";
      out += "\nTime per rank (ms, " + (phases.empty() ? std::string() : phases[0].metric) + ") over the run's window of " +
             (phases.empty() ? std::string("?") : Ms(phases[0].window_ns)) + " ms:\n";
      out += "  rank   compute  communication   startup      idle  overlap\n";
      for (const auto& p : phases)
        out += "  " + Pad(std::to_string(p.rank), 4) + Pad(Ms(p.compute_ns), 10) + Pad(Ms(p.communication_ns), 15) +
               Pad(Ms(p.startup_ns), 10) + Pad(Ms(p.idle_ns), 10) +
               Pad(p.overlap_share ? std::to_string(int(*p.overlap_share * 100 + 0.5)) + "%" : "-", 9) + "\n";
      if (!steps.steps.empty()) {
        out += "\nSteps: " + std::to_string(steps.steps.size()) + ", each from one " + steps.collective +
               (steps.file.empty() ? std::string() : " at " + fs::path(steps.file).filename().string() + ":" + std::to_string(steps.line)) +
               " to the next (the ranks' recorded collectives, on one realtime clock); per rank, median per step (ms):\n";
        out += "  rank   compute  communication  issued last\n";
        for (size_t k = 0; k < ranks.size(); ++k)
          out += "  " + Pad(std::to_string(ranks[k].rank), 4) + Pad(Ms(per_rank[k].compute), 10) +
                 Pad(Ms(per_rank[k].communication), 15) + Pad(std::to_string(per_rank[k].last), 13) + "\n";
      }
      const bool each = ranks.size() <= 8;
      auto frames_text = [&](const std::string& title, const std::vector<RankedFrame>& frames) {
        out += "\n" + title + "inclusive " + metric_name + ", ms):\n";
        if (frames.empty()) {
          out += "  none\n";
          return;
        }
        out += "  " + Pad("min", 9) + Pad("median", 9) + Pad("max", 9) + Pad("max@", 6);
        if (each)
          for (const auto& r : ranks) out += Pad("r" + std::to_string(r.rank), 9);
        out += "  frame\n";
        for (const auto& fr : frames) {
          const auto& f = view.frame(fr.node);
          const auto& s = fr.spread;
          out += "  " + Pad(Ms(s.min), 9) + Pad(Ms(s.median), 9) + Pad(Ms(s.max), 9) + Pad(std::to_string(s.max_rank), 6);
          if (each)
            for (double v : s.values) out += Pad(Ms(v), 9);
          out += "  " + f.name;
          if (!f.file.empty()) out += "  " + fs::path(f.file).filename().string() + ":" + std::to_string(f.line);
          out += "\n";
        }
      };
      frames_text("Frames by spread over ranks, steady state (", steady_frames);
      frames_text("Frames by spread over ranks, startup (imports, construction, compilation, warm-up, shutdown; ",
                  startup_frames);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return std::fflush(stdout) == 0 ? 0 : kExitError;
  } catch (const core::Error& e) {
    std::fprintf(stderr, "strata: %s: %s\n", options.file.c_str(), e.what());
    return kExitError;
  }
}

}  // namespace strata::cli
