// Holds the snapped virtual address ranges from the replay's start until the regions are mapped
// there. The CUDA driver, when it starts, maps large ranges of its own, and on the H200 they
// took the place of a PyTorch program's snapped allocations (the driver then offered an address
// 2 MiB up): the regions were relocated, and pointers the snap could not patch (in descriptors,
// in large regions) kept naming the old place. Each range is taken on the host (PROT_NONE, no
// memory behind it) before the driver starts and handed back just before cuMemAddressReserve.
#pragma once

#include <cstdint>
#include <vector>

#include "strata/replay/address_plan.h"

namespace strata::replay {

class AddressHold {
 public:
  AddressHold() = default;
  ~AddressHold();
  AddressHold(const AddressHold&) = delete;
  AddressHold& operator=(const AddressHold&) = delete;

  // Takes each span that is free now; returns how many were taken.
  int Take(const std::vector<Span>& spans);
  // Hands back the held spans that overlap [start, start + size).
  void Release(uint64_t start, uint64_t size);
  void ReleaseAll();

 private:
  std::vector<Span> held_;
};

}  // namespace strata::replay
