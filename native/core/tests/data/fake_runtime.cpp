// A stand-in for libstrata_runtime.so in the CLI tests: at exit it writes a small profile to
// STRATA_OUTPUT whose meta echoes the environment contract it was given.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "strata/format/writer.h"

namespace {
std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "<unset>";
}

__attribute__((destructor)) void WriteProfile() {
  const char* out = std::getenv("STRATA_OUTPUT");
  if (!out) return;
  strata::format::ProfileWriter w;
  w.Meta("command", "fake");
  w.Meta("pid", std::to_string(::getpid()));
  w.Meta("target_pid", Env("STRATA_TARGET_PID"));
  w.Meta("mode", Env("STRATA_MODE"));
  w.Meta("period_ms", Env("STRATA_PERIOD_MS"));
  w.Meta("ld_preload", Env("LD_PRELOAD"));
  w.Meta("pc_sampling_env", Env("STRATA_PC_SAMPLING") + "/" + Env("STRATA_PC_SAMPLING_PERIOD"));
  w.Meta("samples", "3");
  uint32_t m = w.Metric("cpu_time", "ns");
  uint32_t f = w.Frame(strata::format::FrameKind::kPython, strata::format::kNone, 0, "main", "/x.py", 1);
  strata::format::MetricStats s;
  s.Add(1); s.Add(2); s.Add(3);
  w.AddStats(w.Child(0, f), m, s);
  // STRATA_FAKE_CUBIN: carry that cubin, as the runtime does for PC sampling (record then
  // embeds its SASS listing).
  if (const char* cubin = std::getenv("STRATA_FAKE_CUBIN")) {
    std::ifstream in(cubin, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    w.Blob(w.Module("cubin:1234abcd", "1234abcd", 0), strata::format::BlobKind::kCubin, bytes.str());
  }
  std::string error;
  w.WriteAtomically(out, &error);
}
}  // namespace
