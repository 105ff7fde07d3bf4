// gzip framing in memory (zlib), for formats whose files are gzip-compressed (pprof, written by
// the export and read by the import).
#pragma once

#include <string>

namespace strata::core::detail {

// Throws Error when zlib fails (out of memory).
std::string Gzip(const std::string& bytes);
// Throws Error (one line) when `bytes` is not a whole gzip stream.
std::string Gunzip(const std::string& bytes);

}  // namespace strata::core::detail
