// Verify modes' diagnostics: where a cached path parts from the one taken in full, counted from
// the root (words are leaf first), and what kind of word each side holds there. A difference only
// among the innermost frames of Strata, CUPTI and the CUDA runtime is dropped when the path joins
// the tree; one in the framework's or between Python frames is not. Normal code.
#pragma once

#include <atomic>
#include <cstdint>

namespace strata::rt {

// Logs "<what>: cached N words, full M; same from the root for K; then <kind> <module> <word> vs
// ..." for the first `limit` calls counted by `logged`.
void LogPathDifference(const char* what, const uint64_t* cached, int cn, const uint64_t* full, int fn,
                       std::atomic<int>* logged, int limit);

}  // namespace strata::rt
