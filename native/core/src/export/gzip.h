// gzip framing in memory (zlib), for formats whose files are gzip-compressed (pprof).
#pragma once

#include <string>

namespace strata::core::detail {

// Throws Error when zlib fails (out of memory).
std::string Gzip(const std::string& bytes);

}  // namespace strata::core::detail
