#include "python/pending_names.h"

#include <string_view>

#include "python/code_names.h"

namespace strata::rt::python {

void PendingNames::Drain(CodeCache& cache, NameRing& ring) {
  while (const NameRecord* r = ring.Peek()) {
    uint32_t id = InternCode(std::string_view(r->File(), r->file_len), std::string_view(r->Name(), r->name_len));
    if (ids_.empty()) ids_.assign(kKept, 0);
    ids_[r->seq % kKept] = (uint64_t(r->seq) + 1) << 32 | id;
    cache.Resolve(r->entry, r->seq, id);
    ring.Pop(r);
  }
}

bool PendingNames::Find(uint32_t seq, uint32_t* id) const {
  if (ids_.empty()) return false;
  uint64_t v = ids_[seq % kKept];
  if ((v >> 32) != uint64_t(seq) + 1) return false;
  *id = uint32_t(v);
  return true;
}

}  // namespace strata::rt::python
