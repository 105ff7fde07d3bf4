// The rank view's streaming merge at scale (docs/benchmarks.md "Rank view"):
//   strata_rank_bench make SRC_RUN_DIR N DST_DIR   copies the ranks of a real run N times over
//       into DST_DIR (rank r from source rank r % ranks), stamping rank, local_rank (r % 8),
//       node_rank (r / 8), host node-<r / 8>, world_size N: a synthetic N-rank job of 8 per node
//   strata_rank_bench open RUN_DIR                 opens it with RankRun and prints one line:
//       ranks, profile bytes on disk, open / phases / steps / spread / rank timeline times, peak RSS
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "strata/core/api.h"
#include "strata/core/rank_run.h"
#include "strata/core/rank_timeline.h"
#include "strata/core/run_family.h"

namespace fs = std::filesystem;
using namespace strata::core;

namespace {

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

int Make(const std::string& src, int n, const std::string& dst) {
  std::vector<std::string> ranks;
  for (const auto& m : RunFamily(src))
    if (m.rank >= 0) ranks.push_back(m.path);
  if (ranks.empty()) {
    std::fprintf(stderr, "no rank profile in %s\n", src.c_str());
    return 1;
  }
  fs::create_directories(dst);
  for (int r = 0; r < n; ++r) {
    const std::string out = dst + "/job." + std::to_string(100000 + r) + ".strata";
    fs::copy_file(ranks[size_t(r) % ranks.size()], out, fs::copy_options::overwrite_existing);
    RewriteProfileMeta(out, {{"rank", std::to_string(r)},
                             {"local_rank", std::to_string(r % 8)},
                             {"node_rank", std::to_string(r / 8)},
                             {"host", "node-" + std::to_string(r / 8)},
                             {"world_size", std::to_string(n)},
                             {"pid", std::to_string(100000 + r)},
                             {"parent_pid", "0"},
                             {"parent_profile", ""},
                             {"run_id", "synthetic"}});
  }
  return 0;
}

int OpenRun(const std::string& dir) {
  uintmax_t bytes = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".strata") bytes += e.file_size();
  auto t = std::chrono::steady_clock::now();
  auto members = RunFamily(dir);
  const double family_ms = Since(t);
  t = std::chrono::steady_clock::now();
  auto run = RankRun::Open(members);
  const double open_ms = Since(t);
  t = std::chrono::steady_clock::now();
  auto phases = run->Phases();
  const double phases_ms = Since(t);
  t = std::chrono::steady_clock::now();
  const RankSteps steps = run->Steps();
  const double steps_ms = Since(t);
  ViewOptions vo;
  vo.expand = false;
  vo.all_metrics = false;
  t = std::chrono::steady_clock::now();
  View v = run->profile().BuildView(ViewKind::kTopDown, vo);
  const double view_ms = Since(t);
  // A tooltip: the spread at the heaviest child of the root's heaviest path, 3 levels down.
  size_t node = v.size() > 3 ? 3 : 0;
  t = std::chrono::steady_clock::now();
  RankSpread s = run->Spread(v, node, 0);
  const double spread_ms = Since(t);
  t = std::chrono::steady_clock::now();
  const RankTimeline timeline = BuildRankTimeline(*run);
  const double timeline_ms = Since(t);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  std::printf("ranks %zu  profiles %.1f MB on disk  merged nodes %zu  family %.0f ms  open %.0f ms  phases %.0f ms  "
              "steps %zu in %.1f ms  top-down view %.0f ms  spread (one node) %.1f ms  timeline %zu slices in %.0f ms  "
              "peak RSS %.1f MB  (median %.3g, max rank %d)\n",
              run->ranks().size(), double(bytes) / 1e6, run->profile().node_count(), family_ms, open_ms, phases_ms, steps.steps.size(), steps_ms, view_ms,
              spread_ms, timeline.slices.size(), timeline_ms, double(ru.ru_maxrss) / 1024.0, s.median, s.max_rank);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "make" && argc == 5) return Make(argv[2], std::atoi(argv[3]), argv[4]);
    if (cmd == "open" && argc == 3) return OpenRun(argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "strata_rank_bench: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "usage: strata_rank_bench make SRC_RUN_DIR N DST_DIR | open RUN_DIR\n");
  return 2;
}
