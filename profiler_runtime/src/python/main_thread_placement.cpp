#include "python/main_thread_placement.h"

#include <pthread.h>

#include <cstring>
#include <string>

#include "common/tls.h"
#include "ops/op_stack.h"
#include "python/main_stack.h"
#include "python/py_reader.h"
#include "sampler/sample.h"

namespace strata::rt::python {
namespace {

STRATA_TLS uint32_t t_thread_name = 0;  // interned "thread <comm>" + 1; 0 = not yet

uint32_t ThreadNameId() {
  if (!t_thread_name) {
    char comm[32] = {0};
    if (pthread_getname_np(pthread_self(), comm, sizeof(comm)) != 0 || !comm[0]) strcpy(comm, "?");
    std::string name = std::string("thread ") + comm;
    t_thread_name = ops::Intern(name.data(), name.size()) + 1;
  }
  return t_thread_name - 1;
}

}  // namespace

int PlaceUnderMainThread(uint64_t* out, int n, int max) {
  if (OnMainThread()) {
    uint64_t py[kMainStackMax];
    int k = 0;
    for (int i = 0; i < n && k < kMainStackMax; ++i)
      if (IsPyFrameWord(out[i])) py[k++] = out[i];
    PublishIfMain(py, k);
    return n;
  }
  for (int i = 0; i < n; ++i)
    if (IsPyFrameWord(out[i])) return n;
  if (!Current() || n + 2 > max) return n;
  uint64_t py[kMainStackMax];
  int k = ReadMainStack(py, max - n - 1 < kMainStackMax ? max - n - 1 : kMainStackMax);
  if (k <= 0) return n;
  out[n++] = ThreadFrameWord(ThreadNameId());
  memcpy(out + n, py, sizeof(uint64_t) * size_t(k));
  return n + k;
}

}  // namespace strata::rt::python
