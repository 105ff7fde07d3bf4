// The replay's PTX kernels (the L2 scratch read; the wait and empty kernels it times with) are
// JIT-compiled by the driver on the GPU machine: assembled here with ptxas for sm_90 where a CUDA
// toolkit is installed, so a typo fails before an H100 run.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <string>
#include <unistd.h>

#include "strata/replay/l2_evict_kernel.h"
#include "strata/snapshot/wait_kernel.h"

namespace {

std::string FindPtxas() {
  for (const char* p : {"/usr/local/cuda/bin/ptxas", "/usr/bin/ptxas"})
    if (access(p, X_OK) == 0) return p;
  return "";
}

// "" when it assembles and the cubin defines every name, else why not.
std::string Assemble(const char* ptx_text, std::initializer_list<const char*> names) {
  std::string ptxas = FindPtxas();
  std::string dir = ::testing::TempDir();
  std::string ptx = dir + "/strata_replay_kernel.ptx", cubin = dir + "/strata_replay_kernel.cubin";
  std::ofstream(ptx) << ptx_text;
  std::string cmd = ptxas + " -arch=sm_90 " + ptx + " -o " + cubin + " 2>&1";
  if (std::system(cmd.c_str()) != 0) return "failed: " + cmd;
  std::ifstream in(cubin, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(ptx.c_str());
  std::remove(cubin.c_str());
  for (const char* n : names)
    if (bytes.find(n) == std::string::npos) return std::string("no ") + n + " in the cubin";
  return "";
}

TEST(ReplayKernels, L2EvictAssemblesForSm90) {
  if (FindPtxas().empty()) GTEST_SKIP() << "no ptxas";
  EXPECT_EQ(Assemble(strata::replay::kL2EvictKernelPtx, {strata::replay::kL2EvictKernelName}), "");
}

TEST(ReplayKernels, WaitAndEmptyAssembleForSm90) {
  if (FindPtxas().empty()) GTEST_SKIP() << "no ptxas";
  EXPECT_EQ(Assemble(strata::snapshot::kWaitKernelPtx, {strata::snapshot::kWaitKernelName, strata::snapshot::kEmptyKernelName}), "");
}

}  // namespace
