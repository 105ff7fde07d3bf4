// XLA after-optimizations HLO dumps -> kernel name -> (op_name, Python call path), on dumps
// recorded on the H100 (JAX 0.11.2, CUDA 13) in test/fixtures/h100/jax/ (the jit__normal
// modules are trimmed to their header and ENTRY computation).
#include <gtest/gtest.h>

#include <string>

#include "gpu/placement/xla_hlo_map.h"

namespace x = strata::rt::gpu::xla;

namespace {
const std::string kDir = std::string(STRATA_TEST_SOURCE_DIR) + "/../../test/fixtures/h100/jax";

std::string Chain(const x::HloKernel& k) {
  std::string s;
  for (const x::PyFrame& f : k.stack) {
    if (!s.empty()) s += " > ";
    s += f.function + ":" + std::to_string(f.line);
  }
  return s;
}

const x::HloKernel* One(const x::HloMap& m, const char* name, int64_t grid = -1, int64_t block = -1) {
  auto v = m.Find(name, grid, block);
  return v.size() == 1 ? &m.Kernels()[v[0]] : nullptr;
}
}  // namespace

TEST(XlaHloMap, KernelNames) {
  EXPECT_EQ(x::KernelNameOf("input_reduce_fusion.1"), "input_reduce_fusion_1");
  EXPECT_EQ(x::KernelNameOf("custom-call.1"), "custom_call_1");
  EXPECT_EQ(x::KernelNameOf("gemm_fusion_dot"), "gemm_fusion_dot");
}

TEST(XlaHloMap, JitStepFusionsMapToPythonLines) {
  x::HloMap m;
  ASSERT_EQ(m.ScanDir(kDir), 4u);
  EXPECT_EQ(m.ScanDir(kDir), 0u);  // files are read once
  const x::HloKernel* k = One(m, "input_reduce_fusion_1");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->instruction, "input_reduce_fusion.1");
  EXPECT_EQ(k->op_name, "jit(step)/reduce_sum");
  EXPECT_EQ(Chain(*k), "<module>:28 > main:23 > step:13");
  EXPECT_EQ(k->stack[0].file, "/work/main/test/gpu/jax_step.py");
  EXPECT_EQ(k->grid, 1);
  EXPECT_EQ(k->block, 64);
  EXPECT_EQ(m.Modules()[k->module], "module_2654.jit_step");

  // input_reduce_fusion exists in jit_step only (launch dims 256 x 256).
  k = One(m, "input_reduce_fusion", 256, 256);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(Chain(*k), "<module>:28 > main:23 > step:13");
  EXPECT_TRUE(m.Find("input_reduce_fusion", 512, 256).empty());  // dims rule it out

  // The dot is a cuBLAS custom-call scheduled right before input_reduce_fusion.
  int32_t lib = m.LibraryBefore(m.Find("input_reduce_fusion")[0]);
  ASSERT_GE(lib, 0);
  const x::HloKernel& gemm = m.Kernels()[size_t(lib)];
  EXPECT_TRUE(gemm.library);
  EXPECT_EQ(gemm.target, "__cublas$lt$matmul");
  EXPECT_EQ(gemm.instruction, "custom-call.1");
  EXPECT_EQ(gemm.op_name, "jit(step)/dot_general");
  EXPECT_EQ(Chain(gemm), "<module>:28 > main:23 > step:11");  // JAX_DOT_LINE
  EXPECT_EQ(m.LibraryBefore(m.Find("input_reduce_fusion_1")[0]), -1);
  EXPECT_TRUE(m.Find("gemm_fusion_dot").empty());  // autotuning candidates are not in the dump
}

// A fusion computes the lines of every instruction it fuses: jit_step's input_reduce_fusion
// (fused_reduce) holds the dot's reduction (line 11), the gelu (12) and the square and sum (13),
// in the computation's order, each once; input_reduce_fusion.1 (fused_reduce.1) only the sum.
TEST(XlaHloMap, FusionsListTheLinesTheyFuse) {
  x::HloMap m;
  m.ScanDir(kDir);
  const x::HloKernel* k = One(m, "input_reduce_fusion", 256, 256);
  ASSERT_NE(k, nullptr);
  std::string lines;
  for (const auto& f : k->fused) lines += (lines.empty() ? "" : " ") + f.function + ":" + std::to_string(f.line);
  EXPECT_EQ(lines, "step:11 step:12 step:13");
  EXPECT_EQ(k->fused[0].file, "/work/main/test/gpu/jax_step.py");
  const x::HloKernel* last = One(m, "input_reduce_fusion_1");
  ASSERT_NE(last, nullptr);
  ASSERT_EQ(last->fused.size(), 1u);
  EXPECT_EQ(last->fused[0].line, 13u);
  for (const auto& kk : m.Kernels()) EXPECT_TRUE(kk.library ? kk.fused.empty() : true) << kk.instruction;
}

TEST(XlaHloMap, SameFusionNameInTwoModulesSplitByLaunchDims) {
  x::HloMap m;
  m.ScanDir(kDir);
  EXPECT_EQ(m.Find("loop_multiply_fusion").size(), 2u);
  const x::HloKernel* w = One(m, "loop_multiply_fusion", 8192, 128);  // w = normal(2048, 2048)
  const x::HloKernel* xx = One(m, "loop_multiply_fusion", 2048, 128);  // x = normal(512, 2048)
  ASSERT_NE(w, nullptr);
  ASSERT_NE(xx, nullptr);
  EXPECT_EQ(Chain(*w), "<module>:28 > main:19");
  EXPECT_EQ(Chain(*xx), "<module>:28 > main:20");
  EXPECT_EQ(w->op_name, "jit(_normal)/jit(_normal_real)/mul");
}

TEST(XlaHloMap, InlineTextAndOldStyleMetadata) {
  x::HloMap m;
  const char* text =
      "HloModule jit_f, is_scheduled=true\n\n"
      "%fused_add (p: f32[4]) -> f32[4] {\n"
      "  ROOT %add.1 = f32[4]{0} add(%p, %p), metadata={op_name=\"jit(f)/add\" source_file=\"/a/b.py\" source_line=7}\n"
      "}\n\n"
      "ENTRY %main (p: f32[4]) -> f32[4] {\n"
      "  %p = f32[4]{0} parameter(0)\n"
      "  %cc = (f32[4]{0}, s8[16]{0}) custom-call(%p), custom_call_target=\"__cublas$gemm\", metadata={op_name=\"jit(f)/dot_general\" source_file=\"/a/b.py\" source_line=6}\n"
      "  ROOT %loop_add_fusion = f32[4]{0} fusion(%cc), kind=kLoop, calls=%fused_add, metadata={op_name=\"jit(f)/a \\\"q\\\" }\" source_file=\"/a/b.py\" source_line=7}\n"
      "}\n";
  EXPECT_EQ(m.AddModule(text, "module_0001.jit_f"), 2u);
  const x::HloKernel* k = One(m, "loop_add_fusion");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->op_name, "jit(f)/a \"q\" }");
  ASSERT_EQ(k->stack.size(), 1u);
  EXPECT_EQ(k->stack[0].file, "/a/b.py");
  EXPECT_EQ(k->stack[0].line, 7u);
  EXPECT_EQ(k->grid, -1);
  int32_t lib = m.LibraryBefore(m.Find("loop_add_fusion")[0]);
  ASSERT_GE(lib, 0);
  EXPECT_EQ(m.Kernels()[size_t(lib)].stack[0].line, 6u);
}

TEST(XlaHloMap, XlaFlags) {
  std::string dir;
  bool text = false;
  EXPECT_EQ(x::XlaFlagsWithDump(nullptr, "/tmp/d", &dir, &text), "--xla_dump_to=/tmp/d --xla_dump_hlo_as_text");
  EXPECT_TRUE(dir.empty());
  EXPECT_EQ(x::XlaFlagsWithDump("--xla_gpu_autotune_level=0", "/tmp/d", &dir, &text),
            "--xla_gpu_autotune_level=0 --xla_dump_to=/tmp/d --xla_dump_hlo_as_text");
  EXPECT_EQ(x::XlaFlagsWithDump("--xla_dump_to=/u/x --xla_dump_hlo_as_text", "/tmp/d", &dir, &text),
            "--xla_dump_to=/u/x --xla_dump_hlo_as_text");
  EXPECT_EQ(dir, "/u/x");
  EXPECT_TRUE(text);
  EXPECT_EQ(x::XlaFlagsWithDump("--xla_dump_to=/u/y", "/tmp/d", &dir, &text), "--xla_dump_to=/u/y --xla_dump_hlo_as_text");
  EXPECT_EQ(dir, "/u/y");
  EXPECT_FALSE(text);
}
