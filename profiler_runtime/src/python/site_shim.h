// Strata's Python-side shim (profiler_runtime/python/sitecustomize.py, embedded in the runtime at
// build time): written into a private folder that is put first on PYTHONPATH at runtime start, so
// that the interpreter imports it while it starts. It takes itself off the path again, removes
// its folder (it is loaded), runs the program's own sitecustomize, and asks torch.compile's
// Dynamo to keep the source lines inside torch/nn/modules (see the shim for why). Only in a process that is a Python interpreter (its
// executable or a loaded library exports Py_BytesMain or Py_Initialize); never from a signal handler.
#pragma once

#include <string>

namespace strata::rt::python {

class SiteShim {
 public:
  // At runtime start, before the interpreter reads its environment. False (and nothing changed)
  // when this is not a Python process, the folder cannot be written, or STRATA_PYTHON_SHIM=0.
  bool Install();
  // What the shim reported about Dynamo's frames: "recorded", "absent" (this torch has no such
  // filter), "failed", or "" (torch.compile was not imported, or the shim did not run).
  std::string DynamoFrames() const;
  // At exit: the folder is removed if the shim did not remove it (Python never ran it).
  void Remove();

 private:
  std::string dir_;
};

}  // namespace strata::rt::python
