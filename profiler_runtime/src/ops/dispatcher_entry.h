// Whether a symbol, as the dynamic symbol table spells it (mangled), is one of torch's
// dispatcher entry points `at::_ops::<op>::call`: where an operator is entered whether or not
// RecordFunction records it. The aggregator marks such frames on paths without a recorded
// operator (format kFrameFlagOperatorNotRecorded) so that readers name the operator from them.
#pragma once

#include <string_view>

namespace strata::rt::ops {

bool IsDispatcherEntrySymbol(std::string_view mangled);

}  // namespace strata::rt::ops
