// Inductor's provenance (gpu/placement/inductor_provenance.h) on what torch 2.11 wrote on the
// GPU machine for bench/real_models/inductor_probe.py (INDUCTOR_PROVENANCE=1, TORCH_TRACE): the
// structured trace log and the generated wrappers of the forward and backward graphs.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

#include "cct/cct.h"
#include "gpu/placement/inductor_path.h"
#include "gpu/placement/inductor_provenance.h"
#include "strata/format/reader.h"

namespace ind = strata::rt::gpu::inductor;

namespace {

const std::string kDir = std::string(STRATA_TEST_SOURCE_DIR) + "/../../test/fixtures/h100/inductor";
const std::string kRecordedCache = "/tmp/ind-prov2/";

std::string Gunzip(const std::string& path) {
  std::string text;
  FILE* p = popen(("gzip -dc '" + path + "'").c_str(), "r");
  if (!p) return text;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) text.append(buf, n);
  pclose(p);
  return text;
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
  return s;
}

// Writes the recorded wrappers under `root` (the paths the log names, moved there).
void WriteWrappers(const std::string& root) {
  std::ifstream in(kDir + "/provenance_wrappers.txt");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string all = ss.str();
  size_t at = 0;
  while ((at = all.find("===== ", at)) != std::string::npos) {
    size_t eol = all.find('\n', at);
    std::string path = Replace(all.substr(at + 6, eol - at - 6), kRecordedCache, root + "/");
    size_t next = all.find("\n===== ", eol);
    std::string text = all.substr(eol + 1, next == std::string::npos ? std::string::npos : next + 1 - eol - 1);
    mkdir(path.substr(0, path.rfind('/')).c_str(), 0755);
    std::ofstream(path) << text;
    at = next == std::string::npos ? all.size() : next + 1;
  }
}

}  // namespace

// The recorded log and wrappers, read as the placement reads them (wrappers written under `root`).
ind::Provenance ReadRecorded(const std::string& root) {
  WriteWrappers(root);
  std::string log = Replace(Gunzip(kDir + "/provenance_torch_trace.log.gz"), kRecordedCache, root + "/");
  ind::Provenance p;
  p.AddLog(log, "log");
  return p;
}

const char* kFwd = "/iz/cizkytcri6dgcm6v672wtlj6cfhnwcpxzfodktvi3wxtyt74liud.py";
const char* kBwd = "/2y/c2ylyngxh2k2b7gw3utugxp3antcj5w36p32luxxcgbe2472daq3.py";

TEST(InductorProvenance, CallHandlesFollowTheirComments) {
  std::string text =
      "x = 1\n"
      "            # [Provenance debug handles] extern_kernels.mm:1\n"
      "            extern_kernels.mm(a, b, out=buf0)\n"
      "            # Topologically Sorted Source Nodes: [y, relu]\n"
      "            # [Provenance debug handles] triton_poi_fused_relu_0:2\n"
      "            stream0 = get_raw_stream(0)\n"
      "            triton_poi_fused_relu_0.run(buf0, stream=stream0)\n";
  auto at = ind::Provenance::CallHandles(text);
  ASSERT_EQ(at.size(), 2u);
  EXPECT_EQ(at[3], "extern_kernels.mm:1");
  EXPECT_EQ(at[7], "triton_poi_fused_relu_0:2");
}

TEST(InductorProvenance, TracesParseOutermostFirst) {
  auto t = ind::Provenance::ParseTraces(
      {"  File \"/m/model.py\", line 40, in forward\n    x = self.block(x)\n"
       "  File \"/m/block.py\", line 12, in forward\n    return self.fc(x)\n"});
  ASSERT_EQ(t.size(), 1u);
  ASSERT_EQ(t[0].size(), 2u);
  EXPECT_EQ(t[0][0].file, "/m/model.py");
  EXPECT_EQ(t[0][0].line, 40u);
  EXPECT_EQ(t[0][0].function, "forward");
  EXPECT_EQ(t[0][1].file, "/m/block.py");
  EXPECT_EQ(t[0][1].line, 12u);
}

TEST(InductorProvenance, NoFallbackBeforeTheTracesArrive) {
  // The wrapper is named but its traces artifact has not been written yet: a call must not be
  // placed on the compiled function for good before its line could be known.
  ind::Provenance p;
  p.AddLog("V1124 04:19:18.0 1 a.py:1] {\"compilation_metrics\": {\"co_name\": \"forward\", "
           "\"co_filename\": \"/m.py\", \"co_firstlineno\": 3}, \"frame_id\": 0, \"frame_compile_id\": 0}\n"
           "V1124 04:19:18.1 1 a.py:1] {\"inductor_output_code\": {\"filename\": \"/c/w.py\"}, "
           "\"frame_id\": 0, \"frame_compile_id\": 0, \"has_payload\": \"x\"}\n"
           "\t# code\n"
           "V1124 04:19:18.2 1 a.py:1] {\"artifact\": {\"name\": \"inductor_provenance_tracking_node_mappings\"}, "
           "\"frame_id\": 0, \"frame_compile_id\": 0, \"has_payload\": \"y\"}\n"
           "\t{}\n"
           "V1124 04:19:18.3 1 a.py:1] {\"artifact\": {\"name\": \"inductor_provenance_tracking_kernel_stack_traces\"}, ");
  EXPECT_TRUE(p.IsWrapper("/c/w.py"));
  EXPECT_EQ(p.CompiledFunction("/c/w.py"), nullptr);
  p.AddLog("\"frame_id\": 0, \"frame_compile_id\": 0, \"has_payload\": \"z\"}\n\t{}\nV1124 next");
  const auto* fn = p.CompiledFunction("/c/w.py");
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(fn->line, 3u);
  EXPECT_EQ(fn->file, "/m.py");
}

TEST(InductorProvenance, DynamoWrapperIsNotTheModel) {
  // torch.compile(nn.TransformerEncoderLayer) on torch 2.11: the compile is Dynamo's `inner`
  // wrapper and every trace is empty (Dynamo keeps no lines inside torch.nn): nothing to place on.
  ind::Provenance p;
  p.AddLog("V1 1 a.py:1] {\"compilation_metrics\": {\"co_name\": \"inner\", \"co_filename\": "
           "\"/venv/site-packages/torch/_dynamo/external_utils.py\", \"co_firstlineno\": 67}, "
           "\"frame_id\": 0, \"frame_compile_id\": 0}\n"
           "V1 1 a.py:1] {\"inductor_output_code\": {\"filename\": \"/c/w.py\"}, \"frame_id\": 0, "
           "\"frame_compile_id\": 0, \"has_payload\": \"x\"}\n\t# code\n"
           "V1 1 a.py:1] {\"artifact\": {\"name\": \"inductor_provenance_tracking_kernel_stack_traces\"}, "
           "\"frame_id\": 0, \"frame_compile_id\": 0, \"has_payload\": \"z\"}\n"
           "\t{\"extern_kernels.mm:2\": []}\nV1 next");
  EXPECT_TRUE(p.IsWrapper("/c/w.py"));
  EXPECT_EQ(p.CompiledFunction("/c/w.py"), nullptr);
}

TEST(InductorProvenance, RecordedForwardAndBackwardGraphs) {
  char tmpl[] = "/tmp/strata-ind-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string root = tmpl;
  WriteWrappers(root);
  std::string log = Replace(Gunzip(kDir + "/provenance_torch_trace.log.gz"), kRecordedCache, root + "/");
  ASSERT_GT(log.size(), 100000u);
  ind::Provenance p;
  // In two pieces cut mid-record, as a log being written is read.
  p.AddLog(std::string_view(log).substr(0, log.size() / 2), "log");
  p.AddLog(std::string_view(log).substr(log.size() / 2), "log");
  std::string fwd = root + "/iz/cizkytcri6dgcm6v672wtlj6cfhnwcpxzfodktvi3wxtyt74liud.py";
  std::string bwd = root + "/2y/c2ylyngxh2k2b7gw3utugxp3antcj5w36p32luxxcgbe2472daq3.py";
  ASSERT_TRUE(p.IsWrapper(fwd));
  ASSERT_TRUE(p.IsWrapper(bwd));
  // Forward: the matmul comes from `y = self.fc(x)` (line 19); the fused pointwise kernel from
  // both lines it fuses (20, then 19).
  const auto* mm = p.Find(fwd, 119);
  ASSERT_NE(mm, nullptr);
  ASSERT_EQ(mm->size(), 1u);
  EXPECT_EQ((*mm)[0].back().line, 19u);
  EXPECT_EQ((*mm)[0].back().function, "forward");
  const auto* fused = p.Find(fwd, 125);
  ASSERT_NE(fused, nullptr);
  ASSERT_EQ(fused->size(), 2u);
  EXPECT_EQ((*fused)[0].back().line, 20u);
  EXPECT_EQ((*fused)[1].back().line, 19u);
  // Backward kernels point at the forward lines too.
  const auto* bw = p.Find(bwd, 127);
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ((*bw)[0].back().line, 20u);
  const auto* bw_mm = p.Find(bwd, 132);
  ASSERT_NE(bw_mm, nullptr);
  EXPECT_EQ((*bw_mm)[0].back().line, 19u);
  EXPECT_EQ(p.Find(bwd, 137), nullptr);  // the bias gradient: Inductor recorded no trace
  EXPECT_EQ(p.Find(fwd, 1), nullptr);  // not a kernel call
  // Such calls go under the compiled function; the backward graph's wrapper names the same
  // compile as the forward's, whose metrics name the function.
  for (const std::string& w : {fwd, bwd}) {
    const auto* fn = p.CompiledFunction(w);
    ASSERT_NE(fn, nullptr) << w;
    EXPECT_EQ(fn->function, "forward");
    EXPECT_EQ(fn->line, 18u);
    EXPECT_EQ(fn->file.substr(fn->file.rfind('/') + 1), "inductor_probe.py");
  }
  EXPECT_EQ(p.CompiledFunction(root + "/not/a/wrapper.py"), nullptr);
  std::string cleanup = "rm -rf '" + root + "'";
  EXPECT_EQ(system(cleanup.c_str()), 0);
}

// Traces that run into torch's own modules (Strata's Python shim keeps those frames): the fused
// lines are the model's lines that called them; a model of torch's modules only keeps its own.
TEST(InductorPath, FusedLinesAreTheModelsLinesAboveTorchModules) {
  const std::string nn = "/venv/lib/python3.12/site-packages/torch/nn/modules/";
  std::vector<ind::SourceTrace> traces = {
      {{"/work/vit.py", "forward", 52}, {nn + "linear.py", "forward", 134}},
      {{"/work/vit.py", "forward", 53}, {nn + "activation.py", "forward", 812}},
      {{"/work/vit.py", "forward", 52}, {nn + "linear.py", "forward", 134}},
  };
  auto lines = ind::FusedLines(traces);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].file, "/work/vit.py");
  EXPECT_EQ(lines[0].line, 52u);
  EXPECT_EQ(lines[1].line, 53u);
  std::vector<ind::SourceTrace> torch_only = {
      {{nn + "transformer.py", "forward", 954}, {nn + "transformer.py", "_sa_block", 968}},
      {{nn + "transformer.py", "forward", 956}, {nn + "linear.py", "forward", 134}},
  };
  lines = ind::FusedLines(torch_only);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].function, "_sa_block");
  EXPECT_EQ(lines[1].file, nn + "linear.py");
}

TEST(InductorPath, FusedKernelCarriesItsLinesAsATypedList) {
  char tmpl[] = "/tmp/strata-ind-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string root = tmpl;
  ind::Provenance p = ReadRecorded(root);
  const auto* fused = p.Find(root + kFwd, 125);  // relu(y) * 2.0 + x with the addmm's bias: lines 20, 19
  const auto* mm = p.Find(root + kFwd, 119);
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(mm, nullptr);
  auto lines = ind::FusedLines(*fused);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].line, 20u);
  EXPECT_EQ(lines[1].line, 19u);
  EXPECT_EQ(lines[1].function, "forward");
  EXPECT_EQ(lines[0].file.substr(lines[0].file.rfind('/') + 1), "inductor_probe.py");
  EXPECT_EQ(ind::FusedLines(*mm).size(), 1u);

  strata::rt::Cct cct;
  uint32_t gpu = cct.Metric("gpu_time", "ns");
  cct.Locked([&](strata::rt::Cct&, strata::rt::Cct::Unlocked u) {
    for (const auto* t : {fused, mm}) {
      std::vector<uint32_t> ids;
      ind::AppendPlacedFrames(u, *t, &ids);
      // Placed twice (two launches): one node, one frame.
      std::vector<uint32_t> again;
      ind::AppendPlacedFrames(u, *t, &again);
      EXPECT_EQ(ids, again);
      u.AddAt(u.Node(ids.data(), ids.size()), gpu, 1000);
    }
  });
  std::string out = root + "/fused.strata";
  std::string error;
  ASSERT_TRUE(cct.Write(out, {}, &error)) << error;
  std::ifstream in(out, std::ios::binary);
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto r = strata::format::ProfileReader::Parse(bytes.data(), bytes.size());
  ASSERT_EQ(r.frame_source_list_count(), 1u);
  const auto list = r.frame_source_list(0);
  const auto& frame = r.frames()[list.frame];
  EXPECT_EQ(frame.kind, uint32_t(strata::format::FrameKind::kOperator));
  EXPECT_EQ(r.string(frame.name), "fused (2 lines)");
  EXPECT_EQ(r.string(frame.file), "");  // no location on the frame itself: the list is the record
  ASSERT_EQ(list.lines.size, 2u);
  EXPECT_EQ(list.lines[0].line, 20u);
  EXPECT_EQ(list.lines[1].line, 19u);
  EXPECT_EQ(r.string(list.lines[0].function), "forward");
  // The fused frame sits below the first trace's frame (line 20), and nothing is named "fuses".
  for (const auto& n : r.nodes()) {
    if (n.frame != list.frame) continue;
    const auto& parent = r.frames()[r.nodes()[n.parent].frame];
    EXPECT_EQ(parent.kind, uint32_t(strata::format::FrameKind::kPython));
    EXPECT_EQ(parent.line, 20u);
  }
  for (const auto& f : r.frames()) EXPECT_EQ(std::string(r.string(f.name)).rfind("fuses", 0), std::string::npos);
  std::string cleanup = "rm -rf '" + root + "'";
  EXPECT_EQ(system(cleanup.c_str()), 0);
}

// The committed fixture test/fixtures/h100/inductor/fused_from_provenance.strata is this
// profile: every kernel call of the recorded forward and backward wrappers that Inductor traced,
// placed as the runtime places it (inductor_path.h) below <module> ▸ main ▸ Runner.call at the
// wrapper's call line, above a gpu_api and a kernel frame named by the call's handle, with an
// invented gpu_time (1 µs times the call's rank). Written through the runtime's CCT; the test
// checks that the committed file is what this writes (all but the header's time and checksum).
// Regenerate: STRATA_WRITE_FIXTURE=1 ctest --test-dir build -R InductorPath.RecordedProvenanceFixture
TEST(InductorPath, RecordedProvenanceFixture) {
  char tmpl[] = "/tmp/strata-ind-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string root = tmpl;
  ind::Provenance p = ReadRecorded(root);
  strata::rt::Cct cct;
  uint32_t gpu = cct.Metric("gpu_time", "ns");
  const std::string probe = "/work/main/bench/real_models/inductor_probe.py";
  size_t placed = 0, fused_kernels = 0;
  cct.Locked([&](strata::rt::Cct&, strata::rt::Cct::Unlocked u) {
    const uint32_t module = u.Frame(strata::format::FrameKind::kPython, strata::format::kNone, 0, "<module>", probe, 51);
    const uint32_t main_f = u.Frame(strata::format::FrameKind::kPython, strata::format::kNone, 0, "main", probe, 38);
    const uint32_t launch = u.Frame(strata::format::FrameKind::kGpuApi, strata::format::kNone, 0, "cuLaunchKernel", "", 0);
    for (const char* w : {kFwd, kBwd}) {
      std::ifstream in(root + w);
      std::stringstream text;
      text << in.rdbuf();
      std::map<uint32_t, std::string> calls;  // ordered by line: a stable fixture
      for (const auto& [line, handle] : ind::Provenance::CallHandles(text.str())) calls.emplace(line, handle);
      for (const auto& [line, handle] : calls) {
        const auto* traces = p.Find(root + w, line);
        if (!traces) continue;
        std::vector<uint32_t> ids{module, main_f,
                                  u.Frame(strata::format::FrameKind::kPython, strata::format::kNone, 0, "Runner.call",
                                          std::string(kRecordedCache).substr(0, kRecordedCache.size() - 1) + w, line)};
        ind::AppendPlacedFrames(u, *traces, &ids);
        fused_kernels += ind::FusedLines(*traces).size() > 1;
        ids.push_back(launch);
        ids.push_back(u.Frame(strata::format::FrameKind::kKernel, strata::format::kNone, 0, handle.substr(0, handle.rfind(':')), "", 0));
        u.AddAt(u.Node(ids.data(), ids.size()), gpu, 1000.0 * double(++placed));
      }
    }
  });
  EXPECT_EQ(placed, 4u);         // forward: mm, fused pointwise; backward: reduction, mm (the bias gradient has no trace)
  EXPECT_EQ(fused_kernels, 2u);  // the forward's relu * 2 + x with the addmm's bias; the backward's reduction
  std::string out = root + "/fused_from_provenance.strata";
  std::string error;
  ASSERT_TRUE(cct.Write(out, {{"command", "python3 bench/real_models/inductor_probe.py OUT (placed from its recorded provenance)"}}, &error)) << error;
  auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<unsigned char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string committed = kDir + "/fused_from_provenance.strata";
  if (getenv("STRATA_WRITE_FIXTURE")) {
    std::string copy = "cp '" + out + "' '" + committed + "'";
    ASSERT_EQ(system(copy.c_str()), 0);
  }
  std::vector<unsigned char> made = read(out), kept = read(committed);
  ASSERT_EQ(made.size(), kept.size()) << "the committed fixture is not what this test writes (regenerate: see above)";
  // Bytes after the header are the content; the header's time and checksum differ per write.
  EXPECT_TRUE(std::equal(made.begin() + 64, made.end(), kept.begin() + 64)) << "the committed fixture differs from what this test writes";
  std::string cleanup = "rm -rf '" + root + "'";
  EXPECT_EQ(system(cleanup.c_str()), 0);
}
