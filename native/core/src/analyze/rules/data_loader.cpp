// data-loader: the main thread of a PyTorch training loop spends a large share of the steady
// state getting batches from its DataLoader. Without workers (num_workers=0) it loads each batch
// itself (the dataset's __getitem__, default_collate) while the step waits; with workers it waits
// for them when they are slower than the step. The finding sits on the user's line that iterates
// the loader (the deepest user frame above the loader's next-batch call), with the measured share.
// The wait for workers is off the CPU: a wall-time profile (`strata record --wall`) measures it
// under the loader's frames; a CPU-time profile only shows the main thread idle, so there the
// share is estimated from the run's duration and said to be an estimate.
#include <algorithm>
#include <map>

#include "../../value_format.h"
#include "builtin_rules.h"

namespace strata::core::detail {

namespace {

// One user line that iterates a DataLoader (over its next-batch calls on one call path).
struct LoaderUse {
  size_t heaviest = 0;         // its heaviest next-batch node
  double heaviest_t = -1;
  double next_t = 0;           // time under the next-batch calls
  double start_t = 0;          // time creating iterators (starting workers)
  bool single = false, workers = false;
  double collate_t = 0;
  std::map<std::pair<std::string, std::string>, double> items;  // (function, file) of the user's code under the loader
};

std::string FileName(const std::string& file) {
  size_t slash = file.rfind('/');
  return slash == std::string::npos ? file : file.substr(slash + 1);
}

}  // namespace

void DataLoaderBound(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  if (!cx.uses_torch_dataloader()) return;  // also: never on a program without PyTorch
  std::optional<size_t> k;
  for (const char* m : kCpuMetrics)
    if (!k) k = cx.metric_index(m);
  const size_t main = cx.main_thread();
  if (!k || !main) return;
  const bool wall = cx.metrics()[*k].name == "wall_time";
  const double main_t = cx.Incl(main, *k);
  if (main_t <= 0 || main_t < cx.min_cpu_ns()) return;
  // The steady state's wall time: measured in a wall-time profile, estimated otherwise.
  const double steady = std::max(cx.judged_wall_ns(), main_t);
  std::map<int32_t, LoaderUse> uses;  // the iterating user line (node) -> its use
  const size_t end = cx.subtree_end(main);
  for (size_t v = main; v < end;) {
    const LoaderFrame lf = cx.loader_frame(v);
    const int32_t at = cx.UserAncestor(v);
    if ((lf != LoaderFrame::kNext && lf != LoaderFrame::kIterStart) || at <= 0) {
      ++v;
      continue;
    }
    LoaderUse& u = uses[at];
    const double t = cx.Incl(v, *k);
    if (lf == LoaderFrame::kIterStart) {
      u.start_t += t;
    } else {
      u.next_t += t;
      if (t > u.heaviest_t) { u.heaviest_t = t; u.heaviest = v; }
      for (size_t d = v + 1; d < cx.subtree_end(v);) {
        const LoaderFrame c = cx.loader_frame(d);
        if (c == LoaderFrame::kSingleProcess) u.single = true;
        if (c == LoaderFrame::kWorkerWait) u.workers = true;
        if (c == LoaderFrame::kCollate) {
          u.collate_t += cx.Incl(d, *k);
          d = cx.subtree_end(d);
          continue;
        }
        if (cx.IsUserFrame(d)) {  // the user's dataset code, outermost frame
          u.items[{cx.frame(d).name, cx.frame(d).file}] += cx.Incl(d, *k);
          d = cx.subtree_end(d);
          continue;
        }
        ++d;
      }
    }
    v = cx.subtree_end(v);
  }
  std::string cores_text = cx.meta("cpu_cores").value_or("");
  int cores = 0;
  try { cores = cores_text.empty() ? 0 : std::stoi(cores_text); } catch (...) { cores = 0; }
  auto gpu = cx.metric_index(kGpuTime);
  const bool uses_gpu = gpu && cx.Total(*gpu) > 0;
  // What to write, and why those numbers: about one worker per core (DeepContext measured x1.15
  // with workers = cores); pinned memory only helps copies to a GPU.
  auto settings = [&](bool deeper_queue) {
    return "DataLoader(..., num_workers=" + (cores > 0 ? std::to_string(cores) : std::string("N")) +
           (uses_gpu ? ", pin_memory=True" : "") + ", persistent_workers=True" + (deeper_queue ? ", prefetch_factor=4" : "") +
           ") (" + (cores > 0 ? std::to_string(cores) + " is the number of cores this process had" : "N about the number of cores") +
           (uses_gpu ? "; with pinned batches, copy them with .to(device, non_blocking=True)" : "") + ")";
  };
  const double min_share = p["min_share"];
  // In a CPU-time profile the wait for workers shows only as the main thread's idle time: one
  // estimate, charged to the line with the most loader work, and only a note (the main thread is
  // also off the CPU when the cores are oversubscribed or it sleeps).
  int32_t estimated_at = -1;
  if (!wall) {
    double best = 0;
    for (const auto& [at, u] : uses)
      if (u.workers && u.next_t > best) { best = u.next_t; estimated_at = at; }
  }
  for (const auto& [at, u] : uses) {
    if (u.heaviest_t < 0 || (!u.single && !u.workers)) continue;
    const FrameInfo& line = cx.frame(size_t(at));
    const std::string where = "`" + Where(line.name, line.file, line.line) + "`";
    const double start_share = u.start_t / steady;
    std::string msg;
    Finding fd;
    if (u.single && !u.workers) {
      // The share of the main thread's own steady-state time: it does nothing else meanwhile.
      const double share = u.next_t / main_t;
      if (share < min_share || u.next_t < cx.min_cpu_ns()) continue;
      std::string parts;
      if (!u.items.empty()) {
        auto heavy = std::max_element(u.items.begin(), u.items.end(), [](auto& a, auto& b) { return a.second < b.second; });
        parts += "`" + heavy->first.first + "` in " + FileName(heavy->first.second) + " " + Percent(heavy->second / u.next_t);
      }
      if (u.collate_t > 0) parts += std::string(parts.empty() ? "" : ", ") + "collating " + Percent(u.collate_t / u.next_t);
      msg = where + " iterates a DataLoader without workers (num_workers=0): the main thread spends " + Percent(share) +
            " of its steady-state time (" + Duration(u.next_t) + ") loading the batches itself" +
            (parts.empty() ? std::string() : " (" + parts + ")") +
            ", and the step waits for every batch. Load them in worker processes, in parallel with the step: " +
            settings(false) + ".";
      fd = cx.Make("data-loader", share >= 2 * min_share ? "warning" : "note", u.heaviest, std::move(msg));
      fd.cause = "single-process";
      fd.evidence = {{"loader_share", share, "share"}, {cx.metrics()[*k].name, u.next_t, "ns"}};
      if (u.collate_t > 0) fd.evidence.push_back({"collate_share", u.collate_t / u.next_t, "share"});
    } else {
      double share = 0;
      if (wall) {
        share = u.next_t / steady;
        if (share < min_share) continue;
      } else {
        if (at != estimated_at || u.next_t <= 0 || cx.judged_wall_ns() <= 0) continue;
        share = std::max(0.0, cx.judged_wall_ns() - main_t) / cx.judged_wall_ns();
        if (share < 2 * min_share) continue;
      }
      const std::string how = wall ? "waits " + Percent(share) + " of the steady state (" + Duration(u.next_t) +
                                         ") for the next batch from its worker processes: the workers load batches "
                                         "more slowly than the step uses them"
                                   : "is off the CPU about " + Percent(share) +
                                         " of the steady state, waiting for the next batch from its worker processes "
                                         "or for a core (an estimate from the run's duration; `strata record --wall` "
                                         "measures the wait under the loader's frames)";
      msg = where + " iterates a DataLoader with worker processes; the main thread " + how +
            ". With fewer workers than cores, give it more and a deeper queue: " + settings(true) +
            "; persistent_workers keeps the workers between epochs" +
            (start_share >= 0.01 ? " (starting them took " + Percent(start_share) + " here)" : std::string()) +
            ". If the workers already use every core (this profile does not hold num_workers), make each item "
            "cheaper (the dataset's __getitem__, its transforms) or move the augmentation to the GPU.";
      fd = cx.Make("data-loader", wall && share >= 2 * min_share ? "warning" : "note", u.heaviest, std::move(msg));
      fd.cause = "worker-wait";
      fd.evidence = {{wall ? "loader_wait_share" : "off_cpu_share", share, "share"},
                     {cx.metrics()[*k].name, u.next_t, "ns"}};
      if (u.start_t > 0) fd.evidence.push_back({"iterator_start_share", start_share, "share"});
    }
    if (cores > 0) fd.evidence.push_back({"cpu_cores", double(cores), "cores"});
    out.push_back(std::move(fd));
  }
}

}  // namespace strata::core::detail
