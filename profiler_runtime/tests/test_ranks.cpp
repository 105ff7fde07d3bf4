// A process's rank from its launcher's environment, the list of ranks to profile, and what a
// framework's collective names stand for (the runtime's ranks/ and collectives/ parts).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "children/toolchain_helper.h"
#include "collectives/collective_kind.h"
#include "ranks/rank_identity.h"
#include "strata/rank_list.h"

namespace {

using strata::format::CollectiveOp;
namespace ranks = strata::rt::ranks;
namespace coll = strata::rt::collectives;

const char* const kVars[] = {"RANK", "LOCAL_RANK", "WORLD_SIZE", "GROUP_RANK", "OMPI_COMM_WORLD_RANK",
                             "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE",
                             "MPI_LOCALRANKID", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS", "SLURM_NODEID",
                             "STRATA_RUN_ID"};

class RankEnv : public ::testing::Test {
 protected:
  void SetUp() override { for (const char* v : kVars) unsetenv(v); }
  void TearDown() override { for (const char* v : kVars) unsetenv(v); }
};

TEST_F(RankEnv, TorchrunWorker) {
  setenv("RANK", "5", 1);
  setenv("LOCAL_RANK", "1", 1);
  setenv("WORLD_SIZE", "8", 1);
  setenv("GROUP_RANK", "2", 1);
  setenv("STRATA_RUN_ID", "00112233aabbccdd", 1);
  ranks::RankIdentity id = ranks::ReadRankIdentity();
  EXPECT_EQ(id.rank, "5");
  EXPECT_EQ(id.local_rank, "1");
  EXPECT_EQ(id.world_size, "8");
  EXPECT_EQ(id.node_rank, "2");
  EXPECT_EQ(id.source, "torch");
  EXPECT_EQ(id.run_id, "00112233aabbccdd");
  EXPECT_FALSE(id.host.empty());
}

TEST_F(RankEnv, TorchrunUnderSlurmTakesTorchsRank) {
  setenv("SLURM_PROCID", "0", 1);
  setenv("SLURM_NODEID", "0", 1);
  setenv("RANK", "3", 1);
  ranks::RankIdentity id = ranks::ReadRankIdentity();
  EXPECT_EQ(id.rank, "3");
  EXPECT_EQ(id.source, "torch");
  EXPECT_EQ(id.node_rank, "");  // torchrun did not say; Slurm's belongs to another source
}

TEST_F(RankEnv, OpenMpiMpichSlurm) {
  setenv("OMPI_COMM_WORLD_RANK", "7", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "3", 1);
  setenv("OMPI_COMM_WORLD_SIZE", "16", 1);
  ranks::RankIdentity id = ranks::ReadRankIdentity();
  EXPECT_EQ(id.source, "openmpi");
  EXPECT_EQ(id.rank + "/" + id.local_rank + "/" + id.world_size + "/" + id.node_rank, "7/3/16/");
  unsetenv("OMPI_COMM_WORLD_RANK");
  setenv("PMI_RANK", "2", 1);
  setenv("PMI_SIZE", "4", 1);
  id = ranks::ReadRankIdentity();
  EXPECT_EQ(id.source, "pmi");
  EXPECT_EQ(id.rank + "/" + id.world_size, "2/4");
  unsetenv("PMI_RANK");
  setenv("SLURM_PROCID", "9", 1);
  setenv("SLURM_LOCALID", "1", 1);
  setenv("SLURM_NTASKS", "12", 1);
  setenv("SLURM_NODEID", "4", 1);
  id = ranks::ReadRankIdentity();
  EXPECT_EQ(id.source, "slurm");
  EXPECT_EQ(id.rank + "/" + id.local_rank + "/" + id.world_size + "/" + id.node_rank, "9/1/12/4");
}

TEST_F(RankEnv, NoRankAndARunIdOfItsOwn) {
  setenv("RANK", "not a number", 1);
  ranks::RankIdentity id = ranks::ReadRankIdentity();
  EXPECT_EQ(id.rank, "");
  EXPECT_EQ(id.source, "");
  ASSERT_EQ(id.run_id.size(), 16u);
  // Exported: the processes it starts share it.
  ASSERT_NE(getenv("STRATA_RUN_ID"), nullptr);
  EXPECT_EQ(id.run_id, getenv("STRATA_RUN_ID"));
  EXPECT_EQ(ranks::ReadRankIdentity().run_id, id.run_id);
  for (const auto& [k, v] : ranks::RankMeta(id)) EXPECT_TRUE(k == "host" || k == "run_id") << k;
}

TEST(RankList, ParsesAndSelects) {
  std::string why;
  EXPECT_TRUE(strata::rank_list::Parse("0,2-3", &why));
  EXPECT_TRUE(strata::rank_list::Listed("0,2-3", 0));
  EXPECT_FALSE(strata::rank_list::Listed("0,2-3", 1));
  EXPECT_TRUE(strata::rank_list::Listed("0,2-3", 3));
  EXPECT_FALSE(strata::rank_list::Listed("0,2-3", 4));
  EXPECT_TRUE(strata::rank_list::Listed("7", 7));
  for (const char* bad : {"", ",", "1,", "a", "3-1", "-1", "1-", "1 ,2", "1234567890"}) {
    EXPECT_FALSE(strata::rank_list::Parse(bad, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
    EXPECT_FALSE(strata::rank_list::Listed(bad, 1)) << bad;
  }
  strata::rank_list::Parse("0,x-2", &why);
  EXPECT_EQ(why, "'x-2' is not a rank or a range of ranks (want e.g. 0,2-3)");
}

TEST(CollectiveKind, WorkTitles) {
  coll::WorkTitle t;
  ASSERT_TRUE(coll::ParseWorkTitle("gloo:all_reduce", &t));
  EXPECT_EQ(t.backend, "gloo");
  EXPECT_EQ(t.collective, "all_reduce");
  ASSERT_TRUE(coll::ParseWorkTitle("nccl:reduce_scatter_tensor_coalesced", &t));
  EXPECT_EQ(coll::OpOfName(t.collective), CollectiveOp::kReduceScatter);
  EXPECT_FALSE(coll::ParseWorkTitle("my_scope", &t));
  EXPECT_FALSE(coll::ParseWorkTitle("user:thing", &t));
  EXPECT_FALSE(coll::ParseWorkTitle("gloo:", &t));
  EXPECT_EQ(coll::OpOfName("all_reduce"), CollectiveOp::kAllReduce);
  EXPECT_EQ(coll::OpOfName("_allgather_base"), CollectiveOp::kAllGather);
  EXPECT_EQ(coll::OpOfName("allgather_into_tensor_coalesced"), CollectiveOp::kAllGather);
  EXPECT_EQ(coll::OpOfName("broadcast"), CollectiveOp::kBroadcast);
  EXPECT_EQ(coll::OpOfName("reduce"), CollectiveOp::kReduce);
  EXPECT_EQ(coll::OpOfName("gather"), CollectiveOp::kGather);
  EXPECT_EQ(coll::OpOfName("scatter"), CollectiveOp::kScatter);
  EXPECT_EQ(coll::OpOfName("alltoall_base"), CollectiveOp::kAllToAll);
  EXPECT_EQ(coll::OpOfName("barrier"), CollectiveOp::kBarrier);
  EXPECT_EQ(coll::OpOfName("send"), CollectiveOp::kSend);
  EXPECT_EQ(coll::OpOfName("recv_anysource"), CollectiveOp::kRecv);
  EXPECT_EQ(coll::OpOfName("monitored_barrier"), CollectiveOp::kOther);
}

// Untested on a GPU: the names as NCCL 2.x builds them (kernel symbols), for the device side.
TEST(CollectiveKind, NcclKernelNames) {
  EXPECT_EQ(coll::OpOfNcclKernel("ncclKernel_AllReduce_RING_LL_Sum_float"), CollectiveOp::kAllReduce);
  EXPECT_EQ(coll::OpOfNcclKernel("ncclDevKernel_AllGather_RING_LL"), CollectiveOp::kAllGather);
  EXPECT_EQ(coll::OpOfNcclKernel("_Z29ncclDevKernel_ReduceScatter_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"),
            CollectiveOp::kReduceScatter);
  EXPECT_EQ(coll::OpOfNcclKernel("ncclDevKernel_Broadcast_RING_LL"), CollectiveOp::kBroadcast);
  EXPECT_EQ(coll::OpOfNcclKernel("ncclDevKernel_SendRecv"), CollectiveOp::kSend);
  EXPECT_EQ(coll::OpOfNcclKernel("ampere_sgemm_128x64_nn"), CollectiveOp::kOther);
}

}  // namespace

namespace {

TEST(ToolchainHelper, KnownNames) {
  using strata::rt::children::IsToolchainHelper;
  for (const char* n : {"ptxas", "nvlink", "fatbinary", "cicc", "cc1plus", "ld", "ld.gold", "as", "collect2",
                        "x86_64-linux-gnu-g++-12", "x86_64-linux-gnu-gcc-12", "gcc-12", "clang-14", "g++"})
    EXPECT_TRUE(IsToolchainHelper(n)) << n;
  for (const char* n : {"python3", "python3.11", "torchrun", "ptxas_wrapper", "nvcc", "bash", "sleep", "ldconfig", "",
                        "llama", "gccgo-like"})
    EXPECT_FALSE(IsToolchainHelper(n)) << n;
}

}  // namespace

#include <unistd.h>

#include "cct/cct.h"
#include "collectives/device_sites.h"
#include "strata/format/reader.h"

namespace {

namespace fmt = strata::format;

// Synthetic timeline records (no GPU here): NCCL kernels become device sites at their nodes,
// other kernels and copies are left alone, and records are read once.
TEST(DeviceSites, NcclKernelsOfTheTimeline) {
  strata::rt::Cct cct;
  strata::rt::collectives::DeviceSites sites;
  uint32_t nccl_node = 0, gemm_node = 0;
  cct.Locked([&](strata::rt::Cct&, strata::rt::Cct::Unlocked u) {
    uint32_t line = u.Frame(fmt::FrameKind::kPython, fmt::kNone, 0, "step", "job.py", 57);
    uint32_t nccl = u.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "", 0);
    uint32_t gemm = u.Frame(fmt::FrameKind::kKernel, fmt::kNone, 0, "ampere_sgemm_128x64_nn", "", 0);
    uint32_t line_node = u.Child(0, line);
    nccl_node = u.Child(line_node, nccl);
    gemm_node = u.Child(line_node, gemm);
    auto kernel = [&](uint32_t node, const char* name, uint64_t start, uint64_t end) {
      fmt::GpuActivityRecord r{};
      r.kind = uint32_t(fmt::GpuActivityKind::kKernel);
      r.node = node;
      r.name = u.String(name);
      r.start_ns = start;
      r.end_ns = end;
      u.GpuActivity(r);
    };
    kernel(nccl_node, "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE", 100, 400);
    kernel(gemm_node, "ampere_sgemm_128x64_nn", 400, 900);
    sites.Update(u);
    kernel(nccl_node, "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE", 1000, 1100);
    sites.Update(u);
    sites.Update(u);  // nothing new
  });
  char path[] = "/tmp/strata-device-sites-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::string error;
  ASSERT_TRUE(cct.Write(path, {}, &error)) << error;
  FILE* f = fopen(path, "rb");
  std::vector<unsigned char> bytes;
  for (int c; (c = fgetc(f)) != EOF;) bytes.push_back(static_cast<unsigned char>(c));
  fclose(f);
  unlink(path);
  const auto r = fmt::ProfileReader::Parse(bytes.data(), bytes.size());
  ASSERT_EQ(r.collective_sites().size, 1u);
  const fmt::CollectiveSiteRecord& s = r.collective_sites()[0];
  EXPECT_EQ(s.node, nccl_node);
  EXPECT_EQ(s.op, uint32_t(fmt::CollectiveOp::kAllReduce));
  EXPECT_EQ(s.flags, fmt::kCollectiveOnDevice);
  EXPECT_EQ(r.string(s.backend), "nccl");
  EXPECT_EQ(s.count, 2u);
  EXPECT_EQ(s.total_ns, 400u);
  EXPECT_EQ(s.min_ns, 100u);
  EXPECT_EQ(s.max_ns, 300u);
  EXPECT_TRUE(r.collective_calls().empty());
  (void)gemm_node;
}

}  // namespace
