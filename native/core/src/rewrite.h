// Byte-level profile rewriting shared by RewriteProfileMeta and EmbedSassListings (rewrite.cpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace strata::core::detail {

// The whole file; throws Error ("cannot open: ...") on failure.
std::vector<unsigned char> ReadProfileBytes(const std::string& path);

// Validates the profile at `path`, sets the meta `entries`, replaces (or adds) the blobs section
// with `blobs_section` when it is not null (format::SerializeBlobsSection), copies every other
// section verbatim and replaces the file atomically. Throws Error; `path` is untouched then.
void RewriteProfile(const std::string& path, const std::vector<std::pair<std::string, std::string>>& entries,
                    const std::vector<unsigned char>* blobs_section);

}  // namespace strata::core::detail
