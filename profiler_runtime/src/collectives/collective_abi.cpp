// The operator plugin ABI's collective entry points (ops/op_abi.h): the framework's work title
// is split into backend and collective here, once; anything else (a user's record_function
// scope) is not a collective.
#include "collectives/collective_kind.h"
#include "collectives/collective_recorder.h"
#include "ops/op_abi.h"
#include "ops/op_stack.h"

extern "C" {

__attribute__((visibility("default"))) int strata_op_collective_begin(uint64_t key, const StrataCollectiveCall* call) {
  using namespace strata::rt::collectives;
  if (!call || !call->title || !strata::rt::ops::Active()) return 0;
  WorkTitle t;
  if (!ParseWorkTitle(call->title, &t)) return 0;
  CallInfo info;
  info.backend = std::move(t.backend);
  info.name = std::move(t.collective);
  info.dtype = call->dtype ? call->dtype : "";
  info.group_name = call->group_name ? call->group_name : "";
  info.elements = call->elements;
  info.bytes = call->bytes;
  info.seq = call->seq;
  info.group_size = call->group_size;
  Begin(key, info);
  return 1;
}

__attribute__((visibility("default"))) void strata_op_collective_issue(const char* op_name) {
  if (op_name && strata::rt::ops::Active()) strata::rt::collectives::Issue(op_name);
}

__attribute__((visibility("default"))) void strata_op_collective_end(uint64_t key) {
  if (strata::rt::ops::Active()) strata::rt::collectives::End(key);
}

}  // extern "C"
