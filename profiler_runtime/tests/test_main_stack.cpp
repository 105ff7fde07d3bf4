// The main thread's published Python stack (python/main_stack.h): only the main thread
// publishes, only process-wide words are published, and other threads read the latest one.
#include <gtest/gtest.h>

#include <thread>

#include "python/main_stack.h"
#include "sampler/sample.h"

namespace py = strata::rt::python;
namespace rt = strata::rt;

TEST(MainStack, MainThreadPublishesOtherThreadsRead) {
  ASSERT_TRUE(py::OnMainThread());  // gtest runs tests on the process's main thread
  uint64_t words[3] = {rt::GlobalPyWord(7, 12), rt::GlobalPyWord(8, 30), rt::GlobalPyWord(9, 1)};
  py::PublishIfMain(words, 3);
  uint64_t out[8] = {0};
  int n = 0;
  bool other_is_main = true;
  std::thread([&] {
    other_is_main = py::OnMainThread();
    n = py::ReadMainStack(out, 8);
    uint64_t mine[1] = {rt::GlobalPyWord(1, 1)};
    py::PublishIfMain(mine, 1);  // not the main thread: ignored
  }).join();
  EXPECT_FALSE(other_is_main);
  ASSERT_EQ(n, 3);
  EXPECT_EQ(out[0], words[0]);
  EXPECT_EQ(out[2], words[2]);
  EXPECT_EQ(py::ReadMainStack(out, 8), 3);

  // A word whose name is still pending (meaningful only with its own thread) is never
  // published: the previous stack stays.
  uint64_t pending[2] = {rt::PendingPyWord(4, 10), rt::GlobalPyWord(8, 30)};
  py::PublishIfMain(pending, 2);
  EXPECT_EQ(py::ReadMainStack(out, 8), 3);
  // A reader with less room gets the innermost frames it can hold.
  EXPECT_EQ(py::ReadMainStack(out, 2), 2);
  EXPECT_EQ(out[1], words[1]);
}

TEST(MainStack, ThreadWordsAreSpecialAndKeepTheirName) {
  uint64_t w = rt::ThreadFrameWord(42);
  EXPECT_TRUE(rt::IsSpecialWord(w));
  EXPECT_FALSE(rt::IsPyFrameWord(w));
  EXPECT_EQ(rt::SpecialKindOf(w), uint32_t(rt::kSpecialThread));
  EXPECT_EQ(rt::OpWordName(w), 42u);
}
