// Module images put aside while PC sampling runs (gpu/cupti/cubin_store.h): read back as
// written, one copy per CRC, out of memory, and still right after a fork.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "gpu/cupti/cubin_store.h"

using strata::rt::gpu::pcs::CubinStore;

namespace {

std::string Image(char c, size_t n) { return std::string(n, c) + "end"; }

TEST(CubinStore, ReadsBackWhatWasAddedOncePerCrc) {
  CubinStore s;
  std::string a = Image('a', 1 << 20), b = Image('b', 3000);
  s.Add(1, a.data(), a.size());
  s.Add(2, b.data(), b.size());
  s.Add(1, b.data(), b.size());  // same CRC: the first image stays
  EXPECT_EQ(s.count(), 2u);
  EXPECT_EQ(s.bytes(), a.size() + b.size());
  EXPECT_EQ(s.bytes_in_memory(), 0u);
  EXPECT_EQ(s.Problem(), "");
  EXPECT_EQ(s.Read(1), a);
  EXPECT_EQ(s.Read(2), b);
  EXPECT_EQ(s.Read(3), "");
  EXPECT_TRUE(s.Has(2));
  EXPECT_FALSE(s.Has(3));
}

TEST(CubinStore, NoTemporaryFolderKeepsImagesInMemory) {
  const char* old = getenv("TMPDIR");
  std::string saved = old ? old : "";
  setenv("TMPDIR", "/nonexistent/strata", 1);
  CubinStore s;
  std::string a = Image('x', 100);
  s.Add(7, a.data(), a.size());
  if (old) setenv("TMPDIR", saved.c_str(), 1);
  else unsetenv("TMPDIR");
  EXPECT_EQ(s.Read(7), a);
  EXPECT_EQ(s.bytes_in_memory(), a.size());
  EXPECT_EQ(s.Problem().rfind("cannot create a temporary file in /nonexistent/strata: ", 0), 0u) << s.Problem();
}

TEST(CubinStore, ForkedChildWritesItsOwnFile) {
  CubinStore s;
  std::string a = Image('p', 5000), b = Image('q', 7000), c = Image('c', 6000);
  s.Add(1, a.data(), a.size());
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    s.Add(3, c.data(), c.size());
    _exit(s.Read(1) == a && s.Read(3) == c ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  s.Add(2, b.data(), b.size());  // at the parent's own end: the child's write did not land here
  EXPECT_EQ(s.Read(1), a);
  EXPECT_EQ(s.Read(2), b);
  EXPECT_FALSE(s.Has(3));
}

}  // namespace
