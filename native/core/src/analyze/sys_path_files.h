#pragma once

#include <string>

namespace strata::core::detail {

// Who wrote a Python file that a profile names relative to sys.path, as torch.profiler (Kineto)
// names them: it trims every sys.path prefix, so `torch/nn/modules/module.py` (site-packages) and
// `train.py` (the script's folder) look alike. `script` is the file of the outermost `<module>`
// frame, the program the user ran. The user's: the script's own folder tree when it was named with
// one (`python -m pkg.main` gives `pkg/main.py`), else a bare file name that is no standard-library
// module (`train.py`, `model.py` beside it). Everything in a folder is a library's (`torch/...`,
// `torchvision/...`, `logging/...`): a user package beside the script is taken as a library, so
// its findings land on the script's line that calls it.
bool UserFileRelativeToSysPath(const std::string& file, const std::string& script);

}  // namespace strata::core::detail
