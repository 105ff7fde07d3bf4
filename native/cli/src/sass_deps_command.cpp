// strata sass-deps: a kernel's SASS as a dependency graph, its asynchronous copies paired with
// their waits, each wait stalled or with slack, suggestions (docs/async-copies.md). The code
// comes from a profile's cubin and listing blobs, or from --cubin and --sass files; PC samples
// from the profile; a trace from `strata trace`.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "commands.h"
#include "strata/core/api.h"
#include "strata/core/sass_deps.h"

namespace strata::cli {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::Error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool Matches(const std::string& want, const core::ProfileKernelCode& k) {
  return want.empty() || k.kernel.find(want) != std::string::npos || k.function.find(want) != std::string::npos;
}

}  // namespace

int RunSassDeps(const SassDepsOptions& o) {
  try {
    core::SuggestionLimits limits;
    limits.threads_per_block = o.threads;
    limits.dynamic_shared_bytes = o.dynamic_shared;
    core::WaitThresholds thresholds;
    thresholds.stalled_share = o.stalled_share;
    std::optional<core::SassTrace> trace;
    if (!o.trace.empty()) trace = core::ReadSassTrace(ReadFile(o.trace));
    std::vector<core::AsyncCopyAnalysis> out;
    if (!o.sass.empty()) {
      const std::string cubin = o.cubin.empty() ? "" : ReadFile(o.cubin);
      const std::string listing = ReadFile(o.sass);
      core::SassPcSamples samples;
      if (!o.profile.empty())  // samples from a profile of the same code
        for (const auto& k : core::ReadProfileKernelCode(o.profile))
          if (Matches(o.kernel, k)) samples = k.samples;
      std::string fn = o.kernel;
      if (!fn.empty()) {
        for (const std::string& f : core::SassListingFunctions(listing))
          if (f.find(o.kernel) != std::string::npos) fn = f;
      }
      out.push_back(core::AnalyzeAsyncCopies(cubin, listing, fn, samples.empty() ? nullptr : &samples, trace ? &*trace : nullptr, limits, thresholds));
    } else if (!o.profile.empty()) {
      std::vector<core::ProfileKernelCode> kernels = core::ReadProfileKernelCode(o.profile);
      for (const auto& k : kernels) {
        if (!Matches(o.kernel, k)) continue;
        core::SuggestionLimits kl = limits;  // the profile's launch configuration unless given
        if (!kl.threads_per_block) kl.threads_per_block = k.threads;
        if (!kl.dynamic_shared_bytes) kl.dynamic_shared_bytes = k.dynamic_shared_bytes;
        core::AsyncCopyAnalysis a = core::AnalyzeAsyncCopies(k.cubin, k.listing, k.function, &k.samples,
                                                             trace && trace->kernel == k.function ? &*trace : nullptr, kl, thresholds);
        if (!a.waits.empty() || !o.kernel.empty()) out.push_back(std::move(a));
      }
      if (out.empty()) {
        std::fprintf(stderr, "strata sass-deps: %s: no kernel%s with GPU code and an asynchronous-copy wait (%zu kernels with code)\n",
                     o.profile.c_str(), o.kernel.empty() ? "" : (" matching '" + o.kernel + "'").c_str(), kernels.size());
        return kExitError;
      }
    } else {
      std::fprintf(stderr, "strata sass-deps: give a profile, or --sass LISTING [--cubin CUBIN]\n");
      return kExitUsage;
    }
    if (o.format == "chrome") {
      if (out.size() != 1 || out[0].timeline.empty()) {
        std::fprintf(stderr, "strata sass-deps: --format chrome draws one kernel's trace: give --trace and one kernel\n");
        return kExitUsage;
      }
      std::printf("%s", core::AsyncCopyTimelineChrome(out[0]).c_str());
      return 0;
    }
    if (o.format == "json") {
      std::printf("[");
      for (size_t i = 0; i < out.size(); ++i) std::printf("%s%s", i ? "," : "", core::AsyncCopyReportJson(out[i], o.graph).c_str());
      std::printf("]\n");
    } else {
      for (size_t i = 0; i < out.size(); ++i) std::printf("%s%s", i ? "\n" : "", core::AsyncCopyReportText(out[i], o.graph).c_str());
    }
    return 0;
  } catch (const core::Error& e) {
    std::fprintf(stderr, "strata sass-deps: %s\n", e.what());
    return kExitError;
  }
}

}  // namespace strata::cli
