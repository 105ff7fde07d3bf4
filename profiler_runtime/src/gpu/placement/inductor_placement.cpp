#include "gpu/placement/inductor_placement.h"

#include <ftw.h>
#include <stdlib.h>
#include <sys/random.h>

#include <cstdio>
#include <cstring>

#include "common/clock.h"
#include "common/log.h"
#include "ops/op_registry.h"
#include "sampler/sample.h"

namespace strata::rt::gpu {
namespace {

constexpr uint64_t kScanEveryNs = 100000000ull;  // the trace dir is read at most every 100 ms
constexpr int kInnermostPython = 8;              // wrapper frames are this close to the launch

int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) { return remove(path) == 0 ? 0 : 0; }

std::string Base(const std::string& path) {
  size_t s = path.rfind('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

}  // namespace

void InductorPlacement::Arm() {
  if (const char* v = getenv("STRATA_INDUCTOR"); v && strcmp(v, "0") == 0) return;
  const char* user = getenv("TORCH_TRACE");
  const char* inherited = getenv("STRATA_PRIVATE_TORCH_TRACE");  // a profiled parent's own dir
  if (user && *user && !(inherited && strcmp(user, inherited) == 0)) {
    dir_ = user;
  } else {
    // Named, not created: torch creates the folder at its first log record, so a program that
    // never compiles (or execs, or is killed) leaves nothing behind. The name is unguessable.
    unsigned char bytes[9];
    if (getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
      Log("torch.compile: no random name for a trace dir: kernels stay under Inductor's wrapper");
      return;
    }
    static const char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    const char* tmp = getenv("TMPDIR");
    dir_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/strata-inductor-";
    for (unsigned char b : bytes) dir_ += kChars[b % 36];
    private_dir_ = true;
    setenv("TORCH_TRACE", dir_.c_str(), 1);
    setenv("STRATA_PRIVATE_TORCH_TRACE", dir_.c_str(), 1);
  }
  setenv("INDUCTOR_PROVENANCE", "1", 0);
  shim_.Install();
}

// Inductor's generated modules live in its cache as <2 chars>/c<hash>.py.
const std::string& InductorPlacement::WrapperFile(uint32_t code) {
  auto it = wrapper_files_.find(code);
  if (it != wrapper_files_.end()) return it->second;
  std::string file, name;
  bool gen = false;
  if (ops::CodeOf(code, &file, &name)) {
    std::string base = Base(file);
    size_t s = file.rfind('/');
    size_t p = s == std::string::npos || s < 3 ? std::string::npos : file.rfind('/', s - 1);
    gen = base.size() > 40 && base[0] == 'c' && base.compare(base.size() - 3, 3, ".py") == 0 &&
          p != std::string::npos && s - p == 3;
  }
  return wrapper_files_.emplace(code, gen ? file : std::string()).first->second;
}

void InductorPlacement::OnApiCallNode(const ApiCallNode& call, PlacementContext&) {
  if (call.role != ApiRole::kLaunch || call.depth <= 0) return;
  int seen = 0;
  for (int k = 0; k < call.depth && seen < kInnermostPython; ++k) {
    uint64_t w = call.words[k];
    if (!IsPyFrameWord(w)) continue;
    ++seen;
    if (!IsGlobalPyWord(w)) continue;
    const std::string& file = WrapperFile(GlobalPyCode(w));
    if (file.empty()) continue;
    Launch l;
    l.ids.assign(call.frames, call.frames + call.depth + 1);
    l.wrapper = call.depth - 1 - k;
    l.file = file;
    l.line = PyWordLine(w);
    launches_[call.node] = std::move(l);
    return;
  }
}

uint32_t InductorPlacement::NodeFor(Cct::Unlocked& u, const Launch& l,
                                    const std::vector<inductor::SourceTrace>& traces) {
  std::vector<uint32_t> ids(l.ids.begin(), l.ids.begin() + l.wrapper + 1);
  for (const inductor::SourceFrame& f : traces[0])
    ids.push_back(u.Frame(Cct::FrameKind::kPython, strata::format::kNone, 0, f.function, f.file, f.line));
  if (traces.size() > 1) {
    // A fused kernel: every line it computes, innermost frame of each trace, in Inductor's order.
    std::string fuses = "fuses";
    std::vector<std::string> seen;
    for (const inductor::SourceTrace& t : traces) {
      std::string at = Base(t.back().file) + ":" + std::to_string(t.back().line);
      bool dup = false;
      for (const std::string& s : seen) dup = dup || s == at;
      if (dup) continue;
      seen.push_back(at);
      fuses += (seen.size() == 1 ? " " : ", ") + at + " " + t.back().function;
    }
    if (seen.size() > 1) ids.push_back(u.Frame(Cct::FrameKind::kOperator, strata::format::kNone, 0, fuses, "", 0));
  }
  ids.insert(ids.end(), l.ids.begin() + l.wrapper + 1, l.ids.end());
  return u.Node(ids.data(), ids.size());
}

Placement::Verdict InductorPlacement::Place(const GpuActivity& a, uint32_t* parent, PlacementContext& c) {
  if (a.kind != GpuActivityKind::kKernel) return Verdict::kAsIs;
  auto done = placed_.find(*parent);
  if (done != placed_.end()) {
    *parent = done->second.node;
    ++(done->second.on_line ? kernels_on_lines_ : kernels_on_function_);
    return Verdict::kPlaced;
  }
  auto it = launches_.find(*parent);
  if (it == launches_.end()) return Verdict::kAsIs;
  const Launch& l = it->second;
  const std::vector<inductor::SourceTrace>* traces = provenance_.Find(l.file, l.line);
  const SourceFrame* function = traces ? nullptr : provenance_.CompiledFunction(l.file);
  if (!traces && !function) {
    uint64_t now = NowNs(CLOCK_MONOTONIC);
    if (now - last_scan_ >= kScanEveryNs) {
      last_scan_ = now;
      if (provenance_.ScanDir(dir_) > 0) {
        traces = provenance_.Find(l.file, l.line);
        function = traces ? nullptr : provenance_.CompiledFunction(l.file);
      }
    }
  }
  if (!traces && !function) {
    ++kernels_unplaced_;
    return Verdict::kAsIs;
  }
  // No trace for this call: the compiled function (its def line) is as close as Inductor tells.
  std::vector<inductor::SourceTrace> whole;
  if (!traces) whole.push_back({*function});
  ++(traces ? kernels_on_lines_ : kernels_on_function_);
  uint32_t node = NodeFor(c.u, l, traces ? *traces : whole);
  placed_[*parent] = {node, traces != nullptr};
  *parent = node;
  return Verdict::kPlaced;
}

void InductorPlacement::EndDrain(PlacementContext&, uint64_t, bool final) {
  if (!final) return;
  if (private_dir_ && !dir_.empty()) nftw(dir_.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
  dynamo_frames_ = shim_.DynamoFrames();
  shim_.Remove();
}

std::string InductorPlacement::StatusPart() const {
  if (dir_.empty() || (kernels_on_lines_ == 0 && kernels_on_function_ == 0 && kernels_unplaced_ == 0)) return "";
  std::string frames = dynamo_frames_.empty() ? shim_.DynamoFrames() : dynamo_frames_;
  std::string nn = frames == "recorded" ? "; lines inside torch/nn/modules recorded"
                   : frames.empty()     ? "; lines inside torch/nn/modules not recorded (Strata's Python shim did not run)"
                                        : "; lines inside torch/nn/modules not recorded (this torch's Dynamo: " + frames + ")";
  return "torch.compile: " + std::to_string(kernels_on_lines_) + " kernels placed on model lines, " +
         std::to_string(kernels_on_function_) + " on their compiled function only (no line recorded), " +
         std::to_string(kernels_unplaced_) + " without provenance" + nn;
}

}  // namespace strata::rt::gpu
