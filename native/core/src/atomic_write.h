// Replacing a file so that readers see the old bytes or the new ones, never a part.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace strata::core::detail {

// Writes `size` bytes to a temporary file beside `path` (same folder, so rename cannot cross file
// systems), fsyncs it and renames it over `path`. Throws Error "cannot write <what> <path>: why";
// the temporary file is removed and `path` is untouched then.
void WriteFileAtomically(const std::string& path, const void* data, size_t size, mode_t mode,
                         const std::string& what);

}  // namespace strata::core::detail
