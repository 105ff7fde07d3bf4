"""Writes what the program sees under Strata's Python shim to argv[1] as JSON."""
import json
import os
import sys

result = {
    "pythonpath": os.environ.get("PYTHONPATH"),
    "shim_on_sys_path": any("strata-python-" in p for p in sys.path),
    # The shim removes its folder once loaded: nothing is left even if this process is killed.
    "shim_folder_left": any(n.startswith("strata-python-") for n in os.listdir(os.environ["TMPDIR"])),
    "user_sitecustomize_ran": os.environ.get("USER_SITECUSTOMIZE_RAN") == "1",
    "sitecustomize_module": getattr(sys.modules.get("sitecustomize"), "__file__", None),
}
from torch._dynamo.symbolic_convert import IMPORT_STACK_FILES, InstructionTranslatorBase  # noqa: E402

result["nn_module_filter"] = InstructionTranslatorBase().is_co_filename_from_nn_modules()
result["shim_frames_at_import"] = [f for f in IMPORT_STACK_FILES if "strata-python-" in f]
result["dynamo_package_class"] = type(sys.modules["torch._dynamo"]).__name__
result["reported"] = os.environ.get("STRATA_DYNAMO_NN_FRAMES")  # what the runtime puts in the meta
with open(sys.argv[1], "w") as f:
    json.dump(result, f)
