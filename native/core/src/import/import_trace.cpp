// strata/core/trace_import.h: reads the file once, picks the reader, writes atomically.
#include <fstream>
#include <sstream>

#include "strata/core/api.h"
#include "strata/core/kineto_import.h"
#include "strata/core/pprof_import.h"
#include "strata/core/speedscope_import.h"
#include "strata/core/trace_import.h"
#include "strata/format/writer.h"

namespace strata::core {

void ImportTraceFile(const std::string& trace_path, const std::string& profile_path) {
  std::ifstream in(trace_path, std::ios::binary);
  if (!in) throw Error("cannot read " + trace_path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string content = text.str();
  const std::vector<unsigned char> bytes = LooksLikeGzip(content)        ? PprofToProfile(content, trace_path)
                                           : LooksLikeSpeedscope(content) ? SpeedscopeToProfile(content, trace_path)
                                                                          : KinetoTraceToProfile(content, trace_path);
  std::string error;
  if (!strata::format::WriteFileAtomically(profile_path, bytes, &error)) throw Error(error);
}

}  // namespace strata::core
