# Dynamo's translator, as far as the shim is concerned: frames from torch/nn/modules are left
# out of the source traces unless the shim switched the filter off.
import traceback

# The files of the frames around this module's import: the shim's own must not be one of them
# (a profile would show it holding the import's time).
IMPORT_STACK_FILES = [f.filename for f in traceback.extract_stack()]


class InstructionTranslatorBase:
    def is_co_filename_from_nn_modules(self):
        return True
