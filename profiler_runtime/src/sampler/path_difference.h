// Verify modes' diagnostics: where a cached path parts from the one taken in full, counted from
// the root (words are leaf first), and what kind of word each side holds there. Normal code.
#pragma once

#include <atomic>
#include <cstdint>

namespace strata::rt {

// Logs "<what>: cached N words, full M; same from the root for K; then <kind> <module> <word> vs
// ..." for the first `limit` calls counted by `logged`.
void LogPathDifference(const char* what, const uint64_t* cached, int cn, const uint64_t* full, int fn,
                       std::atomic<int>* logged, int limit);

}  // namespace strata::rt
