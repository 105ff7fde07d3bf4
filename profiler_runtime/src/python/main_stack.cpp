#include "python/main_stack.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "common/tls.h"
#include "sampler/sample.h"

namespace strata::rt::python {
namespace {

struct Snapshot {
  std::atomic<uint32_t> seq{0};  // odd while being written
  int n = 0;
  uint64_t words[kMainStackMax];
};
Snapshot g_main;

STRATA_TLS int t_is_main = -1;    // -1 unknown, 0 no, 1 yes
STRATA_TLS int t_publishing = 0;  // a handler interrupting a publish in normal code skips

}  // namespace

bool OnMainThread() {
  if (t_is_main < 0) t_is_main = pid_t(syscall(SYS_gettid)) == pid_t(syscall(SYS_getpid)) ? 1 : 0;
  return t_is_main == 1;
}

void PublishIfMain(const uint64_t* words, int n) {
  if (n <= 0 || !OnMainThread() || t_publishing) return;
  if (n > kMainStackMax) n = kMainStackMax;
  for (int i = 0; i < n; ++i)
    if (!IsGlobalPyWord(words[i])) return;  // a name not interned yet: keep the previous one
  t_publishing = 1;
  uint32_t s = g_main.seq.load(std::memory_order_relaxed);
  g_main.seq.store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  memcpy(g_main.words, words, sizeof(uint64_t) * size_t(n));
  g_main.n = n;
  g_main.seq.store(s + 2, std::memory_order_release);
  t_publishing = 0;
}

int ReadMainStack(uint64_t* out, int max) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    uint32_t s1 = g_main.seq.load(std::memory_order_acquire);
    if (s1 & 1) continue;
    int n = g_main.n;
    if (n > max) n = max;
    if (n < 0) n = 0;
    memcpy(out, g_main.words, sizeof(uint64_t) * size_t(n));
    std::atomic_thread_fence(std::memory_order_acquire);
    if (g_main.seq.load(std::memory_order_relaxed) == s1) return n;
  }
  return 0;
}

}  // namespace strata::rt::python
