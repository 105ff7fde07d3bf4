// Operator plugins, loaded when their framework is (ops/torch_loader.cpp).
#pragma once

#include <cstdint>

namespace strata::rt::ops {

// The dlopen interposer calls this after every successful dlopen, in normal context and outside
// the loader lock. When libtorch is loaded it loads and starts libstrata_torch.so (once).
void AfterDlopen(const char* file);

// At the runtime's start: a program that has libtorch loaded already (linked into it) gets its
// operators named from frames, and meta "operators" says so.
void AtRuntimeStart();

// Sampled GPU tracing: operator recording off (false) or on (true) in the started plugin, when
// it can be switched (a plugin without the switch keeps recording). Any thread.
void SetOperatorsEnabled(bool on);

// Sampled GPU tracing: the started plugin counts operator calls all the time (windows or not),
// one in 1/probability. False when nothing counts (no torch, an older plugin, no windows).
bool OperatorCallsCounted(uint64_t* counted, double* probability);

}  // namespace strata::rt::ops
