// hotspot: where the time goes, decided at the line the user can change. Each node's own time is
// charged to the deepest frame of the user's code on its call path (its "owner" line); per owner
// line (over all its call paths) and cause the time is summed, and a cause with at least `share`
// of the judged total is a finding:
// - CPU time, the line's own code: its Python (the interpreter's internals that run it, e.g.
//   _PyObject_Free, count here: the line is what causes them) or its own C++;
// - CPU time in libraries the line calls (torch, libc, the CUDA driver): call them less often or
//   with more work per call, the library itself is not the user's to change;
// - GPU time of one kernel: its kind says what to change at the call site (kernel_kinds.h).
// A node with no user frame above it is charged to its own function (over all call paths).
#include <algorithm>
#include <cctype>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "../../value_format.h"
#include "../../views/child_map.h"
#include "../kernel_kinds.h"
#include "builtin_rules.h"

namespace strata::core::detail {

namespace {

bool IsInterpreter(const FrameInfo& f) {
  size_t slash = f.module.rfind('/');
  std::string_view base(f.module);
  if (slash != std::string::npos) base.remove_prefix(slash + 1);
  return base.substr(0, 6) == "python" || base.substr(0, 9) == "libpython";
}

// A library's short name for messages: the package under site-packages, else the module's file.
std::string LibraryOf(const FrameInfo& f) {
  for (const char* marker : {"/site-packages/", "/dist-packages/"}) {
    size_t at = f.file.find(marker);
    if (at != std::string::npos) {
      std::string rest = f.file.substr(at + std::string(marker).size());
      return rest.substr(0, rest.find('/'));
    }
  }
  if (f.file.find("/lib/python") != std::string::npos || (!f.file.empty() && f.file[0] == '<')) return "Python's standard library";
  const std::string& m = f.module.empty() ? f.file : f.module;
  size_t slash = m.rfind('/');
  std::string base = slash == std::string::npos ? m : m.substr(slash + 1);
  if (base.rfind("libtorch", 0) == 0 || base.rfind("libc10", 0) == 0) return "torch";
  if (base.rfind("libcuda", 0) == 0) return "the CUDA driver";
  if (base.rfind("libc.so", 0) == 0 || base.rfind("libm.so", 0) == 0) return "libc";
  if (f.kind == "operator") return "torch";
  return base.empty() ? std::string("native code") : base;
}

std::string TopList(const std::map<std::string, double>& parts, double total, size_t n) {
  std::vector<std::pair<std::string, double>> v(parts.begin(), parts.end());
  std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.second > b.second; });
  std::string out;
  for (size_t i = 0; i < v.size() && i < n; ++i) out += (i ? ", " : "") + v[i].first + " " + Percent(v[i].second / total);
  return out;
}

struct Group {
  double excl = 0;
  uint64_t count = 0;
  size_t heaviest = 0;
  double heaviest_excl = -1;
  std::map<int32_t, double> owners;              // owner node -> time (the call paths)
  std::unordered_map<uint32_t, std::pair<double, size_t>> functions;  // function -> (time, a node)
};

}  // namespace

void Hotspot(const AnalysisContext& cx, const RuleParams& p, std::vector<Finding>& out) {
  const double threshold = p["share"];
  const Frameworks fw{cx.uses_torch(), cx.uses_jax()};
  for (const char* metric : {"cpu_time", "wall_time", kGpuTime}) {
    auto k = cx.metric_index(metric);
    if (!k || cx.Total(*k) <= 0) continue;
    const double total = cx.Total(*k);
    const bool gpu = std::string(metric) == kGpuTime;
    // A kernel is not where the time goes while the GPU idles most of the steady state (the
    // program is CPU-bound: cpu-latency says so).
    if (gpu && cx.judged_wall_ns() > 0 && cx.gpu_busy() < p["min_gpu_busy"]) continue;
    if (gpu && total < p["min_gpu_ms"] * 1e6) continue;  // too little GPU work to matter
    // CPU time inside a synchronization is waiting for the GPU, not work to make cheaper.
    // Per function (kind, name and module decide it), computed once: 1 = a synchronization, 2 =
    // the interpreter's code.
    std::vector<int8_t> function_class(cx.function_count(), -1);
    auto frame_class_of = [&](size_t n) {
      int8_t& c = function_class[cx.function(n)];
      if (c < 0) {
        const FrameInfo& f = cx.frame(n);
        c = (cx.kind(n) == Kind::kGpuApi || cx.kind(n) == Kind::kNative) && f.name.find("Synchronize") != std::string::npos
                ? 1
                : cx.kind(n) == Kind::kNative && IsInterpreter(f) ? 2 : 0;
      }
      return c;
    };
    std::vector<char> waiting(gpu ? 0 : cx.size(), 0);
    for (size_t n = 1; n < waiting.size(); ++n) waiting[n] = waiting[size_t(cx.parent(n))] || frame_class_of(n) == 1;
    // (owner frame or -function-1, cause) -> group. Owner frames are frame-table entries: one
    // line over all its call paths. Causes: CPU 0 = the line's own code, 1 = library code; GPU
    // 2 + kind for a library's kernels of one kind (every layout conversion, every batch-norm
    // kernel), 100 + function for the user's own, Triton's and XLA's kernels (each its own).
    // Two passes over a million nodes: the groups' totals (a flat table: a group index per
    // node, sums per group), then the detail (call paths, functions) only for the groups that
    // are reported.
    std::vector<int8_t> kinds(gpu ? cx.function_count() : 0, -1);  // KernelKind per kernel function
    constexpr uint32_t kNotCounted = ~0u;
    std::vector<uint32_t> node_group(cx.size(), kNotCounted);
    std::vector<std::pair<int64_t, int64_t>> group_key;
    std::vector<double> sums;
    ChildMap group_of(1024);
    uint64_t last_packed = ~0ull;
    uint32_t last_group = 0;
    for (size_t n = 1; n < cx.size(); ++n) {
      if (gpu && cx.kind(n) != Kind::kKernel) continue;  // pc / region frames: the stall rules
      if (!gpu && waiting[n]) continue;
      double excl = cx.Excl(n, *k);
      if (excl <= 0) continue;
      int32_t owner = cx.UserAncestor(n);
      // A group of this owner holds at most the owner's inclusive time: under the threshold
      // (less a margin for rounding), none of its groups can be reported, so its nodes need no
      // group. Over a million nodes most owners are such small lines.
      if (owner > 0 && cx.Incl(size_t(owner), *k) < threshold * total * (1 - 1e-9)) continue;
      int64_t cause;
      if (gpu) {
        int8_t& kind = kinds[cx.function(n)];
        if (kind < 0) kind = int8_t(ClassifyKernel(cx.frame(n).name));
        KernelKind kk = KernelKind(kind);
        cause = kk == KernelKind::kUser || kk == KernelKind::kCompiled || kk == KernelKind::kXla
                    ? 100 + int64_t(cx.function(n))
                    : 2 + int64_t(kk);
      } else if (owner > 0 && size_t(owner) == n) {
        cause = 0;
      } else if (owner > 0 && cx.PythonAncestor(n) == owner && frame_class_of(n) == 2) {
        cause = 0;  // the interpreter running the user's line
      } else {
        cause = 1;
      }
      int64_t key = owner > 0 ? int64_t(cx.view().frame_id[size_t(owner)]) : -int64_t(cx.function(n)) - 1;
      // Both parts fit 32 bits (frame and function ids); the owner's sign is kept by the offset.
      // Nodes of one line's subtree come one after the other (preorder): the previous node's
      // group is most often this one's too.
      const uint64_t packed = (uint64_t(uint32_t(key + (int64_t(1) << 31))) << 32) | uint64_t(cause);
      if (packed != last_packed) {
        bool inserted;
        uint32_t* g = group_of.FindOrInsert(packed, &inserted);
        if (inserted) {
          *g = uint32_t(sums.size());
          sums.push_back(0.0);
          group_key.push_back({key, cause});
        }
        last_packed = packed;
        last_group = *g;
      }
      node_group[n] = last_group;
      sums[last_group] += excl;
    }
    std::map<std::pair<int64_t, int64_t>, Group> groups;
    std::vector<Group*> reported(sums.size(), nullptr);
    for (size_t g = 0; g < sums.size(); ++g)
      if (sums[g] >= threshold * total) reported[g] = &groups[group_key[g]];
    for (size_t n = 1; n < cx.size() && !groups.empty(); ++n) {
      if (node_group[n] == kNotCounted || !reported[node_group[n]]) continue;
      Group& g = *reported[node_group[n]];
      const double excl = cx.Excl(n, *k);
      int32_t owner = cx.UserAncestor(n);
      g.excl += excl;
      g.count += cx.Count(n, *k);
      g.owners[owner > 0 ? owner : int32_t(n)] += excl;
      if (excl > g.heaviest_excl) { g.heaviest_excl = excl; g.heaviest = n; }
      auto& fn = g.functions[cx.function(n)];
      fn.first += excl;
      fn.second = n;
    }
    for (auto& [key, g] : groups) {
      const double share = g.excl / total;
      if (share < threshold || (!gpu && g.excl < cx.min_cpu_ns())) continue;
      const int64_t cause_id = key.second;
      const bool has_owner = key.first >= 0;
      const std::string cause = cause_id == 0 ? "own-code" : cause_id == 1 ? "library"
                                : cause_id < 100 ? KernelKindName(KernelKind(cause_id - 2))
                                                 : cx.frame(g.heaviest).name;
      // Names of the functions (and, on the CPU, their libraries) that make up the group.
      std::map<std::string, double> functions, libraries;
      for (const auto& [fid, tn] : g.functions) {
        const FrameInfo& ff = cx.frame(tn.second);
        functions[ff.name] += tn.first;
        if (!gpu) libraries[cause_id == 0 ? std::string("the line itself") : LibraryOf(ff)] += tn.first;
      }
      const FrameInfo& hot = cx.frame(g.heaviest);
      // Nothing of the user's code is on the path: not the user's to change, except the user's
      // own kernel (a program without line information).
      if (!has_owner && !(gpu && ClassifyKernel(hot.name) == KernelKind::kUser)) continue;
      // A library kernel is flagged when it dominates (twice the share): below that its time is the
      // ordinary cost of the operation it runs.
      // Layout conversions and tensor copies are pure overhead: flagged at the share itself.
      const KernelKind hot_kind = ClassifyKernel(hot.name);
      if (gpu && IsLibraryKernel(hot_kind) && hot_kind != KernelKind::kLayout && hot_kind != KernelKind::kTensorCopy &&
          share < 2 * threshold)
        continue;
      // CPU time of a line that drives GPU work is hidden behind the GPU unless the GPU waits for it,
      // which cpu-latency judges.
      auto gpu_metric = cx.metric_index(kGpuTime);
      int32_t owner = cx.UserAncestor(g.heaviest);
      if (!gpu && has_owner && gpu_metric && cx.Incl(size_t(owner), *gpu_metric) > 0) continue;
      std::string line = has_owner ? "`" + Where(cx.frame(size_t(owner)).name, cx.frame(size_t(owner)).file,
                                                 cx.frame(size_t(owner)).line) + "`"
                                   : std::string();
      std::string msg;
      if (gpu) {
        KernelKind kk = hot_kind;
        const bool by_kind = cause_id < 100;
        std::string what = by_kind ? std::string(KernelKindPlural(kk)) + " (" + Count(double(functions.size())) +
                                         " kernel" + (functions.size() > 1 ? "s" : "") + ", heaviest `" +
                                         ShortKernelName(hot.name) + "`)"
                                   : std::string(kk == KernelKind::kCopy ? "`" : "Kernel `") + ShortKernelName(hot.name) + "`";
        if (by_kind && what[0] != 'c') what[0] = char(std::toupper(static_cast<unsigned char>(what[0])));
        msg = what + " take" + (by_kind ? "" : "s") + " " + Percent(share) + " of GPU time (" + Duration(g.excl) + " over " +
              Count(double(g.count)) + (kk == KernelKind::kCopy ? " copies" : " launches") +
              (has_owner ? ", launched from " + line : "") + "). " + KernelAdvice(kk, hot.name, fw);
      } else if (cause == "own-code") {
        const bool python = cx.kind(size_t(owner)) == Kind::kPython;
        std::map<std::string, double> internals = functions;
        internals.erase(cx.frame(size_t(owner)).name);
        msg = line + " spends " + Percent(share) + " of " + metric + " (" + Duration(g.excl) + ") in its own " +
              (python ? "Python" : "code") +
              (python && !internals.empty() ? " (the interpreter's work for it: " + TopList(internals, g.excl, 3) + ")"
                                            : std::string()) +
              (python ? ". Do less per call in Python here: replace loops over elements with array operations, "
                        "hoist work that does not change out of the loop, or cache results."
                      : ". Make this code cheaper or run it less often.");
      } else {
        std::map<std::string, double> libs = libraries;
        const bool driver = libs.size() == 1 && libs.begin()->first == "the CUDA driver";
        msg = (has_owner ? line + " spends " : "`" + hot.name + "` spends ") + Percent(share) + " of " + metric + " (" +
              Duration(g.excl) + ") in " + (has_owner ? "library code it calls" : "library code") + " (" +
              TopList(libs, g.excl, 3) + "; heaviest: `" + ShortKernelName(TopList(functions, g.excl, 1)) + "`)" +
              (driver ? ". That is the CUDA driver: synchronizations, allocations or many small launches and copies "
                        "from here; synchronize less often, allocate once, batch the work."
                      : has_owner ? ". The library is not yours to change: call it less often from this line, with "
                                    "more work per call, or reuse its results."
                                  : ". No line of your code is on its call paths.");
      }
      Finding fd = cx.Make("hotspot", share >= 2 * threshold ? "warning" : "note", g.heaviest, std::move(msg));
      fd.cause = std::string(metric) + ":" + cause;
      fd.evidence = {{std::string(metric) + "_share", share, "share"}, {metric, g.excl, "ns"},
                     {gpu ? "launches" : "samples", double(g.count), "count"}};
      if (g.owners.size() > 1) {
        std::vector<std::pair<double, int32_t>> others;
        int32_t heaviest_owner = owner > 0 ? owner : int32_t(g.heaviest);
        for (auto& [o, t] : g.owners)
          if (o != heaviest_owner) others.push_back({t, o});
        std::sort(others.rbegin(), others.rend());
        for (size_t i = 0; i < others.size() && i < 8; ++i) fd.other_paths.push_back(cx.Path(size_t(others[i].second)));
        fd.evidence.push_back({"call_paths", double(g.owners.size()), "count"});
      }
      out.push_back(std::move(fd));
    }
  }
}

}  // namespace strata::core::detail
