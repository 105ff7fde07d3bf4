// Operator plugins, loaded when their framework is (ops/torch_loader.cpp).
#pragma once

namespace strata::rt::ops {

// The dlopen interposer calls this after every successful dlopen, in normal context and outside
// the loader lock. When libtorch is loaded it loads and starts libstrata_torch.so (once).
void AfterDlopen(const char* file);

}  // namespace strata::rt::ops
