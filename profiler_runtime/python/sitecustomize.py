# Strata's Python-side shim. The runtime writes this file into a private folder and puts that
# folder first on PYTHONPATH of a Python process it profiles, so that Python imports it at start
# (as `site` imports any sitecustomize). It then takes itself off sys.path and PYTHONPATH and runs
# the program's own sitecustomize, if there is one, so the program sees what it would have seen.
#
# What it does: torch.compile's Dynamo leaves frames inside torch/nn/modules out of the source
# traces it records for each graph node, so kernels compiled from torch's own modules (a bare
# nn.TransformerEncoderLayer) have no source line to be placed on. When Dynamo's translator is
# imported, its filter is switched off; the traces then hold the module's own lines (and, for a
# user's model, the torch module frames below the user's lines). Nothing else changes: this is
# metadata that Inductor carries to its provenance log. STRATA_NN_MODULE_FRAMES=0 leaves it off.
import os
import sys
import types

_HERE = os.path.dirname(os.path.abspath(__file__))
_DYNAMO = "torch._dynamo.symbolic_convert"
_DYNAMO_PACKAGE, _, _DYNAMO_CHILD = _DYNAMO.rpartition(".")


def _take_ourselves_off():
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    parts = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and os.path.abspath(p) != _HERE]
    if parts:
        os.environ["PYTHONPATH"] = os.pathsep.join(parts)
    else:
        os.environ.pop("PYTHONPATH", None)


def _remove_our_folder():
    # Loaded, the shim needs no file: its folder goes now, so that a process that execs or is
    # killed leaves nothing behind (the runtime removes it at exit where Python never ran this).
    for sub in ("__pycache__", ""):
        folder = os.path.join(_HERE, sub) if sub else _HERE
        try:
            for name in os.listdir(folder):
                if not os.path.isdir(os.path.join(folder, name)):
                    os.remove(os.path.join(folder, name))
            os.rmdir(folder)
        except OSError:
            pass


def _mark(what):
    # The runtime reads this at exit and states the outcome in the profile's meta.
    os.environ["STRATA_DYNAMO_NN_FRAMES"] = what


def _patch(module):
    translator = getattr(module, "InstructionTranslatorBase", None)
    if translator is None or not hasattr(translator, "is_co_filename_from_nn_modules"):
        _mark("absent")  # a torch whose Dynamo has no such filter (or another name for it)
        return
    translator.is_co_filename_from_nn_modules = lambda self: False
    _mark("recorded")


def _patch_loaded(module):
    try:
        _patch(module)
    except Exception:
        _mark("failed")


class _PatchOnAttach(types.ModuleType):
    """The class Dynamo's package takes while its translator loads. The import system sets a
    loaded submodule on its package, and that is where the patch goes: no frame of this file
    stays around the import (wrapping the loader did, and every profile then showed this file
    holding the whole import's time)."""

    def __setattr__(self, name, value):
        types.ModuleType.__setattr__(self, name, value)
        if name == _DYNAMO_CHILD and getattr(value, "__name__", None) == _DYNAMO:
            types.ModuleType.__setattr__(self, "__class__", types.ModuleType)
            _leave_meta_path()
            _patch_loaded(value)


class _DynamoFinder(object):
    """Finds nothing itself: when Dynamo's translator is about to be imported, its package
    (already in sys.modules) takes _PatchOnAttach until the translator is set on it."""

    armed = False

    def find_spec(self, name, path=None, target=None):
        if name != _DYNAMO or self.armed:
            return None
        package = sys.modules.get(_DYNAMO_PACKAGE)
        if type(package) is types.ModuleType:
            # The finders after this one find the translator. This one stays in sys.meta_path
            # until then: leaving it now, inside the import system's walk of that list, would
            # skip the next finder.
            self.armed = True
            package.__class__ = _PatchOnAttach
            return None
        _leave_meta_path()
        return _wrapped_spec(name)  # a package of its own module class: the loader is wrapped


def _leave_meta_path():
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _DynamoFinder)]


def _wrapped_spec(name):
    import importlib.util
    spec = importlib.util.find_spec(name)
    loader = getattr(spec, "loader", None)
    exec_module = getattr(loader, "exec_module", None)
    if exec_module is None:
        return spec

    def exec_and_patch(module):
        exec_module(module)
        _patch_loaded(module)

    loader.exec_module = exec_and_patch
    return spec


def _chain_programs_sitecustomize():
    # Whichever module sys.modules holds when this one finishes is what `site` keeps.
    me = sys.modules.pop("sitecustomize")
    try:
        import sitecustomize  # noqa: F401  (the next one on sys.path, if any)
    except ImportError as e:
        sys.modules["sitecustomize"] = me
        if getattr(e, "name", None) != "sitecustomize":
            raise


_take_ourselves_off()
_remove_our_folder()
if os.environ.get("STRATA_NN_MODULE_FRAMES", "1") != "0":
    if _DYNAMO in sys.modules:
        _patch(sys.modules[_DYNAMO])
    else:
        sys.meta_path.insert(0, _DynamoFinder())
_chain_programs_sitecustomize()
