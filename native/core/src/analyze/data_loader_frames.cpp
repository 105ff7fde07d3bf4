#include "data_loader_frames.h"

namespace strata::core::detail {

namespace {
bool Has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }
bool Ends(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
}  // namespace

LoaderFrame ClassifyLoaderFrame(const std::string& name, const std::string& file) {
  if (!Has(file, "/torch/utils/data/")) return LoaderFrame::kNone;
  if (Ends(file, "/_utils/fetch.py")) return LoaderFrame::kSingleProcess;
  if (Ends(file, "/_utils/collate.py")) return LoaderFrame::kCollate;
  if (!Ends(file, "/torch/utils/data/dataloader.py")) return LoaderFrame::kNone;
  if (Ends(name, "__next__")) return LoaderFrame::kNext;
  if (Has(name, "_SingleProcessDataLoaderIter")) return LoaderFrame::kSingleProcess;
  if (Ends(name, "_get_data") || Ends(name, "_try_get_data") ||
      (Has(name, "_MultiProcessingDataLoaderIter") && Ends(name, "_next_data")))
    return LoaderFrame::kWorkerWait;
  if (name == "DataLoader.__iter__" || name == "DataLoader._get_iterator" || name == "__iter__" ||
      name == "_get_iterator")
    return LoaderFrame::kIterStart;
  return LoaderFrame::kNone;
}

}  // namespace strata::core::detail
