// Reads and checks a snapshot file: the table of sections is read and validated at once
// (every inconsistency is a snapshot::Error with one line), region contents on demand.
#pragma once

#include <string>

#include "strata/snapshot/snapshot.h"

namespace strata::snapshot {

Snapshot Read(const std::string& path);
// The bytes at `ref` (an image or a region's contents); throws Error when unreadable.
void ReadData(const std::string& path, const DataRef& ref, void* out);
std::string ReadData(const std::string& path, const DataRef& ref);

}  // namespace strata::snapshot
