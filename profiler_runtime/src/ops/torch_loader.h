// Operator plugins, loaded when their framework is (ops/torch_loader.cpp).
#pragma once

namespace strata::rt::ops {

// The dlopen interposer calls this after every successful dlopen, in normal context and outside
// the loader lock. When libtorch is loaded it loads and starts libstrata_torch.so (once).
void AfterDlopen(const char* file);

// Sampled GPU tracing: operator recording off (false) or on (true) in the started plugin, when
// it can be switched (a plugin without the switch keeps recording). Any thread.
void SetOperatorsEnabled(bool on);

}  // namespace strata::rt::ops
