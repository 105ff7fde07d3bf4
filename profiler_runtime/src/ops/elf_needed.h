// The DT_NEEDED entries of a shared object, read from the file without loading it: a plugin
// linked against another torch's sonames must be turned away before dlopen would bring that
// torch into the process.
#pragma once

#include <string>
#include <vector>

namespace strata::rt::ops {

// Empty when the file is not a readable 64-bit ELF object or has no dynamic section.
std::vector<std::string> NeededLibraries(const std::string& path);

}  // namespace strata::rt::ops
