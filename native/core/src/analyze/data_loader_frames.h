// What a Python frame is to PyTorch's DataLoader (torch/utils/data): the iterator's next-batch
// call and what runs under it on the main thread. Read by the data-loader rule, and by the merge
// of findings, which leaves the loader's time to that rule (one cause, one finding).
#pragma once

#include <cstdint>
#include <string>

namespace strata::core::detail {

enum class LoaderFrame : uint8_t {
  kNone,
  kNext,           // _BaseDataLoaderIter.__next__: the user's loop asks for one batch
  kSingleProcess,  // num_workers=0: the main process loads the batch (the fetcher, its iterator)
  kWorkerWait,     // num_workers>0: the main process waits for a worker's batch (_get_data, the queue)
  kIterStart,      // DataLoader.__iter__: a new iterator, which starts the workers
  kCollate,        // default_collate and its helpers: stacking the items into a batch
};

// By file and name; names are qualified ("_SingleProcessDataLoaderIter._next_data") from
// CPython 3.11 on and bare before, so the single- and multi-process iterators are also told
// apart by what runs under them (the fetcher runs in the main process only without workers).
LoaderFrame ClassifyLoaderFrame(const std::string& name, const std::string& file);

}  // namespace strata::core::detail
