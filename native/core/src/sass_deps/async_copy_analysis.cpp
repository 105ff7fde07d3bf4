// One kernel's analysis: graph, pairs, verdicts (PC samples first; a trace through the timing
// model where there are none), suggestions.
#include "strata/core/sass_deps.h"

namespace strata::core {

AsyncCopyAnalysis AnalyzeAsyncCopies(std::string_view cubin, std::string_view listing, const std::string& function,
                                     const SassPcSamples* samples, const SassTrace* trace, const SuggestionLimits& limits,
                                     const WaitThresholds& thresholds) {
  AsyncCopyAnalysis a;
  a.graph = BuildSassDependencyGraph(cubin, listing, function);
  if (!a.graph.has_control_bits) a.notes.push_back("no cubin code for " + a.graph.function + ": no control bits, no scoreboard edges");
  a.waits = PairAsyncCopies(a.graph);
  if (a.waits.empty()) a.notes.push_back("no asynchronous-copy wait in " + a.graph.function);
  if (trace) a.timeline = ModelTraceTiming(a.graph, *trace);
  if (samples && !samples->empty()) {
    a.verdicts = ClassifyWaitsFromSamples(a.graph, a.waits, *samples, thresholds);
  } else if (!a.timeline.empty()) {
    a.verdicts = ClassifyWaitsFromTrace(a.graph, a.waits, a.timeline, thresholds);
  } else {
    for (size_t k = 0; k < a.waits.size(); ++k) a.verdicts.push_back(WaitClassification{k, WaitVerdict::kUnknown, "none"});
    if (!a.waits.empty()) a.notes.push_back("no PC samples and no trace: the waits are not classified");
  }
  a.suggestions = SuggestEarlierCopies(a.graph, a.waits, a.verdicts, limits);
  return a;
}

}  // namespace strata::core
