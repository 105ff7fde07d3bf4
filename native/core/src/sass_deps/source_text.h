// How an instruction's source line reads in messages: "async_copy_pipeline.cu:84", and for
// inlined code the call site in the kernel: "async_copy_pipeline.cu:81 (inlined
// async_copy_pipeline.cu:33)".
#pragma once

#include <string>

#include "strata/core/sass_deps.h"

namespace strata::core::sass {

std::string BaseName(const std::string& path);
// The kernel-level line: the outermost caller of inlined code, else the line itself; "" = none.
std::string KernelLine(const SassInstr& i);
// KernelLine plus the innermost line when they differ.
std::string SourceText(const SassInstr& i);

}  // namespace strata::core::sass
