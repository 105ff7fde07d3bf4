#include "gpu/placement/xla_placement.h"

#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "common/clock.h"
#include "common/log.h"
#include "runtime_state.h"
#include "sampler/sample.h"

namespace strata::rt::gpu {
namespace {

constexpr uint64_t kXlaScanEveryNs = 100000000ull;  // dump dir looked at <= every 100 ms
constexpr int64_t kXlaFileMinAgeNs = 20000000ll;    // files younger may still be being written
constexpr uint64_t kXlaHoldNs = 1000000000ull;      // library kernels wait for the next launch
constexpr size_t kMaxHeld = 65536;

int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) { return remove(path) == 0 ? 0 : 0; }

}  // namespace

void XlaPlacement::OnLibraryLoaded(const char* file) {
  if (!file || state_.load(std::memory_order_relaxed) != 0) return;
  if (!strstr(file, "jaxlib") && !strstr(file, "jax_plugins") && !strstr(file, "xla_extension")) return;
  int zero = 0;
  if (!state_.compare_exchange_strong(zero, 2)) return;  // once; 2 = off unless armed below
  if (!state::Active()) return;
  if (const char* v = getenv("STRATA_XLA_HLO"); v && strcmp(v, "0") == 0) return;
  const char* cur = getenv("XLA_FLAGS");
  std::string dir;
  if (!cur || !strstr(cur, "--xla_dump_to=")) {
    const char* tmp = getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/strata-xla-XXXXXX";
    if (!mkdtemp(tmpl.data())) { Log("XLA: cannot create a dump dir: HLO mapping off"); return; }
    dir = tmpl;
  }
  std::string user_dir;
  bool user_text = false;
  std::string flags = xla::XlaFlagsWithDump(cur, dir, &user_dir, &user_text);
  private_dir_ = user_dir.empty();
  dir_ = private_dir_ ? dir : user_dir;
  setenv("XLA_FLAGS", flags.c_str(), 1);
  state_.store(1, std::memory_order_release);
}  // nothing drains the queues in a fork

void XlaPlacement::Arm() {
  if (!hlo_ && state_.load(std::memory_order_acquire) == 1) hlo_ = new xla::HloMap();
}

// For each launch-like call: remember the node's path (once) and chain the thread's launches
// (library kernels are placed by the launch that follows them).
void XlaPlacement::OnApiCallNode(const ApiCallNode& call, PlacementContext& c) {
  auto [it, fresh] = api_paths_.try_emplace(call.node);
  if (fresh) {
    it->second.ids.assign(call.frames, call.frames + call.depth + 1);
    for (int q = 0; q < call.depth && !it->second.python; ++q) it->second.python = IsPyFrameWord(call.words[q]);
  }
  if (call.role != ApiRole::kLaunch || call.slot == kNoSlot) return;
  if (last_launch_.size() <= call.slot) last_launch_.resize(size_t(call.slot) + 1, 0);
  if (uint32_t prev = last_launch_[call.slot]) {
    if (Correlation* p = c.correlations.Find(prev)) p->next_launch = call.correlation_id;
  }
  last_launch_[call.slot] = call.correlation_id;
}

const std::vector<uint32_t>& XlaPlacement::HloIds(Cct::Unlocked& u, uint32_t index) {
  if (hlo_ids_.size() <= index) hlo_ids_.resize(size_t(index) + 1);
  std::vector<uint32_t>& ids = hlo_ids_[index];
  if (!ids.empty()) return ids;
  const xla::HloKernel& k = hlo_->Kernels()[index];
  for (const xla::PyFrame& f : k.stack)
    ids.push_back(u.Frame(Cct::FrameKind::kPython, strata::format::kNone, 0,
                          f.function.empty() ? "<?>" : f.function, f.file, f.line));
  const std::string& op = k.op_name.empty() ? k.instruction : k.op_name;
  if (k.fused.size() > 1) {  // a fusion of several lines: the op frame carries them all, typed
    std::vector<strata::format::SourceLine> lines;
    for (const xla::PyFrame& f : k.fused) lines.push_back({f.file, f.function, f.line});
    ids.push_back(u.Frame(Cct::FrameKind::kOperator, op, strata::format::SourceLinesRole::kFused, lines));
  } else {
    ids.push_back(u.Frame(Cct::FrameKind::kOperator, strata::format::kNone, 0, op, "", 0));
  }
  return ids;
}

namespace {

// How many of the HLO's Python frames the launch path already has (deepest first matters).
int HloMatch(const std::vector<uint32_t>& hlo, const std::vector<uint32_t>& path) {
  int score = 0;
  for (size_t i = 0; i + 1 < hlo.size(); ++i)
    if (std::find(path.begin(), path.end() - 1, hlo[i]) != path.end() - 1) ++score;
  return score;
}

}  // namespace

// The node to hang a kernel of HLO kernel `index` under, for a launch at `api_node`.
uint32_t XlaPlacement::NodeFor(Cct::Unlocked& u, uint32_t api_node, uint32_t index) {
  uint64_t key = (uint64_t(api_node) << 32) | index;
  auto it = nodes_.find(key);
  if (it != nodes_.end()) return it->second;
  auto p = api_paths_.find(api_node);
  if (p == api_paths_.end() || p->second.ids.empty()) return api_node;
  const std::vector<uint32_t>& h = HloIds(u, index);
  const std::vector<uint32_t>& path = p->second.ids;
  size_t npy = h.size() - 1, n = path.size() - 1;
  std::vector<uint32_t> ids;
  if (p->second.python) {
    // Launched from Python (JAX's dispatch on the calling thread): keep the real call path and
    // add the frames inside the jitted function (those below the deepest frame both share; the
    // HLO leaf alone when the executable was traced from another call site).
    ids.assign(path.begin(), path.begin() + n);
    size_t from = npy ? npy - 1 : 0;
    for (size_t i = npy; i-- > 0;)
      if (std::find(path.begin(), path.begin() + n, h[i]) != path.begin() + n) { from = i + 1; break; }
    ids.insert(ids.end(), h.begin() + from, h.begin() + npy);
  } else {
    ids.assign(h.begin(), h.begin() + npy);  // XLA's executor thread: only native frames
  }
  ids.push_back(h[npy]);
  ids.push_back(path[n]);
  uint32_t node = u.Node(ids.data(), ids.size());
  nodes_.emplace(key, node);
  return node;
}

std::vector<uint32_t> XlaPlacement::Find(const GpuActivity& a) {
  std::vector<uint32_t> c = hlo_->Find(a.name, a.grid_blocks, a.block_threads);
  if (!c.empty()) return c;
  // Unknown name: look at the dump dir again (at most every 100 ms, and only when it changed).
  uint64_t now = NowNs(CLOCK_MONOTONIC);
  if (now - last_scan_ < kXlaScanEveryNs) return c;
  last_scan_ = now;
  struct stat st{};
  int64_t mtime = stat(dir_.c_str(), &st) == 0 ? int64_t(st.st_mtim.tv_sec) * 1000000000ll + st.st_mtim.tv_nsec : -1;
  if (mtime == dir_mtime_ && !more_files_) return c;
  dir_mtime_ = mtime;
  hlo_->ScanDir(dir_, 64, kXlaFileMinAgeNs, &more_files_);
  return hlo_->Find(a.name, a.grid_blocks, a.block_threads);
}

// Kernels only: placed under its HLO op, as is, or held (an unknown kernel on an XLA thread: a
// library kernel (cuBLAS) is placed by the launch after it).
Placement::Verdict XlaPlacement::Place(const GpuActivity& a, uint32_t* api_node, PlacementContext& c) {
  if (a.kind != GpuActivityKind::kKernel) return Verdict::kAsIs;
  Correlation* ce = c.correlations.Find(c.correlations.Outer(a.correlation_id));
  std::vector<uint32_t> cands = Find(a);
  if (cands.empty()) {
    if (ce) ce->placed = -1;
    bool xla_launch = ce && ce->role == ApiRole::kLaunch && ce->node == *api_node;
    if (xla_launch && held_.size() < kMaxHeld && !hlo_->Kernels().empty()) {
      held_.push_back({a, NowNs(CLOCK_MONOTONIC)});
      return Verdict::kHeld;
    }
    return Verdict::kAsIs;
  }
  uint32_t best = cands.back();  // same name in several modules: the one the launch path fits
  if (cands.size() > 1) {
    auto p = api_paths_.find(*api_node);
    int best_score = -1;
    for (size_t i = cands.size(); i-- > 0;) {
      int sc = p == api_paths_.end() ? 0 : HloMatch(HloIds(c.u, cands[i]), p->second.ids);
      if (sc > best_score) { best_score = sc; best = cands[i]; }
    }
  }
  if (ce) ce->placed = int32_t(best);
  *api_node = NodeFor(c.u, *api_node, best);
  ++kernels_by_name_;
  return Verdict::kPlaced;
}

// Held kernels: follow the thread's next launches (through other unknown kernels, e.g. a second
// kernel of the same GEMM) to the first one with an HLO kernel; if the library call scheduled
// right before that one exists, the held kernel is that call's.
void XlaPlacement::ReleaseHeld(PlacementContext& c, uint64_t now, bool final) {
  if (held_.empty()) return;
  std::vector<Held> still;
  for (Held& h : held_) {
    const GpuActivity& ev = h.activity;
    int decided = 0;  // 0 wait, 1 as is, 2 under library call `lib`
    int32_t lib = -1;
    uint32_t corr = c.correlations.Outer(ev.correlation_id);
    int hop = 0;
    for (; hop < 4; ++hop) {
      Correlation* it = c.correlations.Find(corr);
      if (!it) { decided = 1; break; }
      uint32_t nx = it->next_launch;
      if (!nx) break;
      Correlation* nt = c.correlations.Find(nx);
      if (!nt) { decided = 1; break; }
      if (nt->placed == -2) break;
      if (nt->placed >= 0) {
        lib = hlo_->LibraryBefore(uint32_t(nt->placed));
        decided = lib >= 0 ? 2 : 1;
        break;
      }
      corr = nx;
    }
    if (hop == 4) decided = 1;
    if (!decided && (final || now - h.since > kXlaHoldNs)) decided = 1;
    if (!decided) { still.push_back(std::move(h)); continue; }
    uint32_t node = c.correlations.NodeOf(ev.correlation_id, now);
    if (!node) { node = c.attribution.UnattributedNode(c.u); ++c.attribution.counts.unattributed; }
    else if (decided == 2) { node = NodeFor(c.u, node, uint32_t(lib)); ++library_kernels_; }
    c.attribution.Emit(c.u, ev, node);
  }
  held_.swap(still);
}

void XlaPlacement::EndDrain(PlacementContext& c, uint64_t now, bool final) {
  Arm();
  if (!hlo_) return;
  ReleaseHeld(c, now, final);
  if (final && private_dir_ && !dir_.empty()) nftw(dir_.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
}

std::string XlaPlacement::StatusPart() const {
  if (!hlo_) return "";
  return "XLA HLO: " + std::to_string(hlo_->FilesRead()) + " modules read, " + std::to_string(kernels_by_name_) +
         " kernels placed by name, " + std::to_string(library_kernels_) + " library kernels by launch order";
}

}  // namespace strata::rt::gpu
