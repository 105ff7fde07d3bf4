// PyTorch operators named from native frames: every operator call goes through its dispatcher
// entry point `at::_ops::<op>::call(...)` (torch's generated code, an exported symbol of
// libtorch_cpu), so a profile recorded without the operator plugin (turned off to spare
// RecordFunction's cost, or a C++ program on libtorch) still shows where each operator starts.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace strata::core::detail {

// "at::_ops::addmm::call(at::Tensor const&, ...)" -> "aten::addmm". The struct's name joins the
// operator and its overload with '_' ("add_Tensor" for aten::add.Tensor), which cannot be split
// without the schema: the name is kept whole. `redispatch` (a kernel handing the same operator to
// the next dispatch key) is not an operator call of its own: nullopt, as for any other symbol.
std::optional<std::string> DispatcherOperatorName(std::string_view symbol);

}  // namespace strata::core::detail
