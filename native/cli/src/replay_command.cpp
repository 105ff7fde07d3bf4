// strata replay: a snapshot's kernel launched alone, its outputs compared with the snapped ones,
// its time measured (the engine is native/replay).
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "commands.h"
#include "strata/replay/replay.h"
#include "strata/snapshot/reader.h"

namespace strata::cli {
namespace {

std::string Hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

std::string Us(double ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f us", ns / 1000);
  return b;
}

const char* KindName(snapshot::WordKind k) {
  return k == snapshot::WordKind::kDevice ? "device" : k == snapshot::WordKind::kHost ? "pinned host" : "unresolved";
}

// What the snapshot holds, read without a GPU.
int PrintInfo(const std::string& file) {
  snapshot::Snapshot s;
  try {
    s = snapshot::Read(file);
  } catch (const snapshot::Error& e) {
    std::fprintf(stderr, "strata replay: %s\n", e.what());
    return kExitError;
  }
  const auto& l = s.launch;
  std::printf("kernel    %s (launch %llu of the matching kernels)\n", s.kernel.c_str(), static_cast<unsigned long long>(s.launch_index));
  std::printf("device    %s sm_%d%d, driver %d\n", s.device.name.c_str(), s.device.cc_major, s.device.cc_minor, s.device.driver_version);
  std::printf("process   %d: %s\n", s.pid, s.command.c_str());
  std::printf("launch    grid (%u,%u,%u) block (%u,%u,%u) cluster (%u,%u,%u) dynamic shared %u bytes, %s, %zu launch attributes\n",
              l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2], l.cluster[0], l.cluster[1], l.cluster[2],
              l.shared_bytes, l.ex ? "cuLaunchKernelEx" : "cuLaunchKernel", s.launch_attributes.size());
  std::printf("image     %llu bytes (%u kept images define the kernel)\n", static_cast<unsigned long long>(s.image.size), s.image_candidates);
  for (const auto& a : s.function_attributes) std::printf("attribute %d = %d\n", a.id, a.value);
  std::printf("params    %zu, %zu bytes\n", s.params.size(), s.param_buffer.size());
  for (size_t i = 0; i < s.params.size(); ++i) std::printf("  param %zu: offset %u size %u\n", i, s.params[i].offset, s.params[i].size);
  for (const auto& w : s.pointers)
    std::printf("  pointer %s at %s%u = %s -> %s region %d\n", KindName(w.kind), w.in_region < 0 ? "param byte " : "region byte ",
                w.offset, Hex(w.value).c_str(), KindName(w.kind), w.region);
  uint64_t saved = 0;
  for (size_t i = 0; i < s.regions.size(); ++i) {
    const auto& g = s.regions[i];
    if (g.saved) saved += g.size;
    std::printf("  region %zu: %s %llu bytes %s%s\n", i, Hex(g.base).c_str(), static_cast<unsigned long long>(g.size),
                g.kind == snapshot::MemoryKind::kManaged ? "managed" : "device", g.saved ? "" : " (contents not saved)");
  }
  std::printf("regions   %zu, %llu bytes saved (bound %llu)\n", s.regions.size(), static_cast<unsigned long long>(saved),
              static_cast<unsigned long long>(s.bytes_bound));
  if (s.in_run_ns) std::printf("in run    %s\n", Us(double(s.in_run_ns)).c_str());
  for (const auto& q : s.preludes)
    std::printf("prelude   %s: grid (%u,%u,%u) block (%u,%u,%u), %zu params, %zu pointers, %s\n", q.kernel.c_str(),
                q.launch.grid[0], q.launch.grid[1], q.launch.grid[2], q.launch.block[0], q.launch.block[1], q.launch.block[2],
                q.params.size(), q.pointers.size(),
                q.image < 0 ? "in the snapped kernel's image" : ("image " + std::to_string(q.image) + " of its own").c_str());
  if (!s.preludes.empty())
    std::printf("preludes  %zu launches before it on its stream, oldest first (--l2 prelude runs them before each timed launch)\n",
                s.preludes.size());
  if (!s.preludes_why_not.empty()) std::printf("prelude   %s: %s\n", s.preludes.empty() ? "none" : "no earlier one", s.preludes_why_not.c_str());
  return 0;
}

}  // namespace

namespace {

// The replay again, as a child of `strata record` with the instruments asked for: the runtime
// sees the replay's module load and launch as it sees a program's.
int ReplayUnderRecord(const ReplayCliOptions& options) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    std::fprintf(stderr, "strata replay: cannot find this program's own path to run the replay under record\n");
    return kExitError;
  }
  self[n] = 0;
  RecordOptions rec;
  rec.output = options.output;
  rec.pc_sampling = options.pc_sampling;
  rec.regions = options.regions;
  rec.command = {self, "replay", options.file, "--repeat", std::to_string(options.repeat), "--dtype", options.dtype,
                 "--l2", options.l2, "--alone"};
  char tol[64];
  std::snprintf(tol, sizeof tol, "%.17g", options.rtol);
  rec.command.insert(rec.command.end(), {"--rtol", tol});
  std::snprintf(tol, sizeof tol, "%.17g", options.atol);
  rec.command.insert(rec.command.end(), {"--atol", tol});
  if (options.any_driver) rec.command.push_back("--any-driver");
  if (options.relocate) rec.command.push_back("--relocate");
  return RunRecord(rec);
}

}  // namespace

int RunReplay(const ReplayCliOptions& options) {
  bool instruments = !options.pc_sampling.empty() || !options.regions.empty();
  if (options.info && instruments) {
    std::fprintf(stderr, "strata replay: --info reads the file only; --pc-sampling and --regions need a replay\n");
    return kExitUsage;
  }
  if (!options.output.empty() && !instruments) {
    std::fprintf(stderr, "strata replay: -o names the profile of --pc-sampling or --regions; give one of them\n");
    return kExitUsage;
  }
  if (options.info) return PrintInfo(options.file);
  if (instruments) return ReplayUnderRecord(options);
#if defined(STRATA_HAVE_REPLAY)
  replay::ReplayOptions o;
  o.file = options.file;
  o.repeat = options.repeat;
  o.rtol = options.rtol;
  o.atol = options.atol;
  o.dtype = options.dtype;
  o.any_driver = options.any_driver;
  o.relocate = options.relocate;
  o.timing_kernels = !options.alone;
  o.l2 = options.l2 == "clean" ? replay::L2State::kClean
         : options.l2 == "back-to-back" ? replay::L2State::kBackToBack
         : options.l2 == "prelude"      ? replay::L2State::kPrelude
                                        : replay::L2State::kAsRestored;
  replay::ReplayResult r;
  try {
    r = replay::Replay(o, [](const std::string& m) { std::fprintf(stderr, "strata replay: %s\n", m.c_str()); });
  } catch (const snapshot::Error& e) {
    std::fprintf(stderr, "strata replay: %s\n", e.what());
    return kExitError;
  } catch (const replay::ReplayError& e) {
    std::fprintf(stderr, "strata replay: %s\n", e.what());
    return kExitError;
  }
  for (const auto& w : r.warnings) std::fprintf(stderr, "strata replay: warning: %s\n", w.c_str());
  std::printf("kernel   %s\ndevice   %s\naddresses %s\n", r.kernel.c_str(), r.device.c_str(),
              r.same_addresses ? "as snapped" : "relocated");
  size_t differ = 0;
  for (const auto& g : r.regions) {
    if (!g.saved) {
      std::printf("region %u %s %llu bytes: not saved\n", g.index, Hex(g.base).c_str(), static_cast<unsigned long long>(g.size));
      continue;
    }
    if (!g.diff.bytes_differ) {
      std::printf("region %u %s %llu bytes: identical\n", g.index, Hex(g.base).c_str(), static_cast<unsigned long long>(g.size));
      continue;
    }
    ++differ;
    std::printf("region %u %s %llu bytes: %llu bytes differ (first at byte %llu); as %s: %llu elements, max abs %.3g, max rel %.3g, %llu beyond tolerance\n",
                g.index, Hex(g.base).c_str(), static_cast<unsigned long long>(g.size),
                static_cast<unsigned long long>(g.diff.bytes_differ), static_cast<unsigned long long>(g.diff.first_differ),
                o.dtype.c_str(), static_cast<unsigned long long>(g.diff.elements_differ), g.diff.max_abs, g.diff.max_rel,
                static_cast<unsigned long long>(g.diff.beyond_tolerance));
  }
  std::string how = o.rtol > 0 || o.atol > 0 ? "within rtol " + std::to_string(o.rtol) + " atol " + std::to_string(o.atol) + " (" + o.dtype + ")" : "bit-exact";
  std::printf("outputs  %s (%zu of %zu regions differ; %s asked)\n", r.matches ? "MATCH" : "DIFFER", differ, r.regions.size(), how.c_str());
  if (!r.times_ns.empty()) {
    std::printf("time     min %s, median %s over %zu launches (L2 %s)", Us(r.min_ns).c_str(), Us(r.median_ns).c_str(), r.times_ns.size(),
                r.l2_note.empty() ? options.l2.c_str() : "restored");
    if (r.in_run_ns) std::printf("; in the run %s (median/in-run %.3f)", Us(double(r.in_run_ns)).c_str(), r.median_ns / double(r.in_run_ns));
    std::printf("\n");
    if (!r.prelude_kernels.empty())
      std::printf("prelude  %zu launches before each timed launch, the last %s%s\n", r.prelude_kernels.size(), r.prelude_kernels.back().c_str(),
                  r.prelude_changed_regions ? " (they change the snapped state: see the warning)" : " (they leave the snapped state as it is)");
    if (r.floor_median_ns > 0) std::printf("floor    median %s: an empty kernel timed the same way (what the events add)\n", Us(r.floor_median_ns).c_str());
    // Under `strata replay --regions / --pc-sampling` (record's variables): each launch also
    // pays for the instrument (a region buffer handed over and read back, sampling).
    const char* regions = getenv("STRATA_REGIONS");
    const char* pcs = getenv("STRATA_PC_SAMPLING");
    if ((regions && *regions) || (pcs && *pcs))
      std::printf("note     timed with %s on: these times include its cost; a plain replay times the kernel\n",
                  regions && *regions ? "regions" : "PC sampling");
    else if (options.alone)
      std::printf("note     launched alone (no wait kernel): these times include the launch latency\n");
    if (!r.l2_note.empty()) std::printf("note     %s\n", r.l2_note.c_str());
  }
  return r.matches ? 0 : 3;
#else
  (void)options;
  std::fprintf(stderr, "strata replay: this strata was built without CUDA headers\n");
  return kExitError;
#endif
}

}  // namespace strata::cli
