// A viewer's decode request (strata/core/region_requests.h): the same decoding as
// `strata regions`, with its failures as one-line errors instead of exit codes.
#include <fstream>
#include <iterator>
#include <optional>

#include "strata/core/api.h"
#include "strata/core/names_file.h"
#include "strata/core/proton_import.h"
#include "strata/core/region_requests.h"

namespace strata::core::regions {

namespace {

[[noreturn]] void Fail(const std::string& path, const std::string& why) { throw Error(path + ": " + why); }

void FailOnIssue(const std::string& path, const Trace& t) {
  // Nothing decodable (unreadable, not a region buffer, nothing finalized).
  if (t.lanes.empty() && !t.issues.empty())
    Fail(path, std::string(IssueName(t.issues.front().kind)) + ": " + t.issues.front().message);
}

RequestedTrace DecodeProton(const TraceRequest& r) {
  std::ifstream in(r.path, std::ios::binary);
  if (!in) Fail(r.path, "cannot read");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '[') Fail(r.path, "a hatchet file has no timeline (record with data=\"trace\")");
  ProtonImportOptions options;
  options.cycles_per_ns = r.cycles_per_ns;
  ProtonTrace p = ImportProtonTrace(text, options);
  if (!p.ok) Fail(r.path, std::string(IssueName(p.trace.issues.front().kind)) + ": " + p.trace.issues.front().message);
  RequestedTrace out;
  out.record_cost = ApplyProtonRecordCost(r.cost, p);
  out.trace = std::move(p.trace);
  out.names = std::move(p.names);
  out.kernels = std::move(p.kernels);
  out.lane_kernel = std::move(p.lane_kernel);
  return out;
}

}  // namespace

RequestedTrace DecodeRequest(const TraceRequest& request) {
  TraceRequest r = request;
  std::optional<NamesFile> file;
  std::string file_error;
  if (!r.names_file.empty()) file = ReadNamesFile(r.names_file, &file_error);
  if (file && r.cycles_per_ns <= 0) r.cycles_per_ns = file->cycles_per_ns;
  if (r.source == TraceSource::kProton) {  // Proton traces name their scopes: the file gives the rate only
    RequestedTrace out = DecodeProton(r);
    out.names_file_error = file_error;
    return out;
  }
  RequestedTrace out;
  out.names_file_error = file_error;
  out.names = ParseNameTable(r.names);
  if (file) out.names.insert(file->names.begin(), file->names.end());  // the request's names first
  DecodeOptions decode;
  decode.cycles_per_ns = r.cycles_per_ns;
  if (r.source == TraceSource::kBuffer) {
    decode = ResolveBufferRecordCost(r.cost, out.names, decode, [&](const DecodeOptions& o) { return DecodeFile(r.path, o); },
                                     &out.record_cost);
    out.trace = DecodeFile(r.path, decode);
  } else {
    ProfileRegions pr = ReadProfileRegions(r.path);
    RequireRegionBuffers(pr, r.path);
    if (r.launch >= pr.launches.size()) {
      const size_t n = pr.launches.size();
      Fail(r.path, "no launch " + std::to_string(r.launch) + " (the profile has " + std::to_string(n) + " captured launch" +
                       (n == 1 ? "" : "es") + ": 0.." + std::to_string(n - 1) + ")");
    }
    for (const auto& [id, name] : pr.names) out.names.emplace(id, name);  // the request's names first
    decode = ResolveBufferRecordCost(r.cost, out.names, decode,
                                     [&](const DecodeOptions& o) { return DecodeLaunch(pr, r.launch, o); }, &out.record_cost);
    out.trace = DecodeLaunch(pr, r.launch, decode);
  }
  FailOnIssue(r.path, out.trace);
  return out;
}

void RequireRegionBuffers(const ProfileRegions& regions, const std::string& path) {
  if (regions.launches.empty()) Fail(path, "no region buffers in this profile (record with strata record --regions)");
}

std::vector<size_t> LaunchesOfKernel(const ProfileRegions& regions, const std::string& kernel_name) {
  std::vector<size_t> out;
  for (const CapturedLaunch& l : regions.launches)
    if (l.kernel == kernel_name || l.mangled == kernel_name) out.push_back(l.index);
  return out;
}

}  // namespace strata::core::regions
