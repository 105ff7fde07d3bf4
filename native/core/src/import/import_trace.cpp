// strata/core/trace_import.h: reads the file once, picks the reader, writes atomically.
#include <fstream>
#include <sstream>

#include "../export/gzip.h"
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
  std::string content = text.str();
  // A gzip stream is a pprof profile, or a JSON trace torch.profiler wrote as .json.gz.
  bool pprof = false;
  if (LooksLikeGzip(content)) {
    std::string raw;
    try {
      raw = detail::Gunzip(content);
    } catch (const Error& e) {
      throw Error(std::string("not a pprof profile or a gzipped trace: ") + e.what());
    }
    const size_t first = raw.find_first_not_of(" \t\r\n");
    pprof = first == std::string::npos || (raw[first] != '{' && raw[first] != '[');
    if (!pprof) content = std::move(raw);
  }
  const std::vector<unsigned char> bytes = pprof                         ? PprofToProfile(content, trace_path)
                                           : LooksLikeSpeedscope(content) ? SpeedscopeToProfile(content, trace_path)
                                                                          : KinetoTraceToProfile(content, trace_path);
  std::string error;
  if (!strata::format::WriteFileAtomically(profile_path, bytes, &error)) throw Error(error);
}

}  // namespace strata::core
