# Dynamo's translator, as far as the shim is concerned: frames from torch/nn/modules are left
# out of the source traces unless the shim switched the filter off.
class InstructionTranslatorBase:
    def is_co_filename_from_nn_modules(self):
        return True
