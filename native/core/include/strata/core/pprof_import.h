// pprof profiles (profile.proto, gzipped: what `go tool pprof`, Go's runtime/pprof, gperftools'
// pprof output, and `strata export --format pprof` write) as Strata profiles: each sample type a
// metric of one calling context tree, each location's lines (inlined functions outermost first)
// a frame with the function's name, file and line.
#pragma once

#include <string>
#include <vector>

namespace strata::core {

// Units map to Strata's (nanoseconds -> ns, bytes -> bytes; others kept). Frames are native
// frames without module or address, shown with their names as written. Throws Error (one line)
// when the bytes are not a gzipped pprof profile. `source` names the file in meta.
std::vector<unsigned char> PprofToProfile(const std::string& gzipped, const std::string& source);

// Whether the bytes start like a gzip stream (how `strata import` tells pprof from JSON).
bool LooksLikeGzip(const std::string& bytes);

}  // namespace strata::core
