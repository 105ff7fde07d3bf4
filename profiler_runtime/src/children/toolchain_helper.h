// Compiler toolchain processes a profiled program starts (Triton's and XLA's ptxas, nvcc's cicc
// and fatbinary, Inductor's g++ and its cc1plus, as, ld): not the program's own work, and many
// (a JAX run started ~215 ptxas). Children with these names are not profiled unless
// STRATA_TOOLCHAIN_CHILDREN=1 — which a run sets for itself when what the user profiles is a
// compiler or a build (`strata record -- g++ ...`, `-- make`): there the helpers are the work.
#pragma once

#include <string>
#include <string_view>

namespace strata::rt::children {

// The executable's name without a target triple prefix or a version suffix
// ("x86_64-linux-gnu-g++-12" -> "g++", "clang-14" -> "clang") is a known toolchain helper.
bool IsToolchainHelper(std::string_view executable_name);

// A compiler or build driver whose children are its work: a toolchain helper itself, or make,
// ninja, cmake, scons, bazel, meson (the same name rules).
bool RunsToolchainAsItsWork(std::string_view executable_name);

// This process's executable name (/proc/self/exe, symlinks resolved), "" when unknown.
std::string OwnExecutableName();

}  // namespace strata::rt::children
