// One run member's profile read and parsed, an error naming its file (one line): what merging
// a run's processes and merging its ranks both start from.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "../rewrite.h"
#include "strata/core/api.h"
#include "strata/format/reader.h"

namespace strata::core::detail {

// `bytes` holds the file: the reader points into it.
inline format::ProfileReader ParseMemberProfile(const std::string& path, std::vector<unsigned char>* bytes) {
  const std::string name = std::filesystem::path(path).filename().string();
  try {
    *bytes = ReadProfileBytes(path);
    return format::ProfileReader::Parse(bytes->data(), bytes->size());
  } catch (const format::ReadError& e) {
    throw Error(name + ": " + e.what());
  } catch (const Error& e) {
    throw Error(name + ": " + e.what());
  }
}

}  // namespace strata::core::detail
