"""libvramest from Python, through ctypes (no compiled extension).

How much GPU memory will a model need for training or inference, and where
does every byte go? The one-liner::

    import vramest
    plan = vramest.estimate("llama-3.1-8b", mode="train", batch_size=4, device="H100-80GB")
    vramest.format_bytes(plan["gpu"]["device_total"]), plan["fits"]

takes a job spec (a dict in the JSON format shared with the CLI, or a model
name and keyword options) and returns the plan as a dict, identical to
``vramest --spec FILE --json``. :func:`run` returns a :class:`Result` read
straight from C instead. The handle classes (:class:`Model`,
:class:`Precision`, :class:`Config`) take the same options by keyword; every
name, type and bound comes from the library's own option table
(``help(vramest.Config)`` lists them, ``vramest.option(name)`` describes one).
Failures raise :class:`Error` subclasses that are also the built-in
exception for the kind of mistake (ValueError, TypeError, OSError).
"""
import ctypes

from ._errors import (_L, LIBRARY_PATH, ERRORS as _ERRORS, Conflict, DoesNotFit, Error, FileError,  # noqa: F401
                      IncompleteModel, InternalError, InvalidArgument, InvalidModel, LimitExceeded, NeedMoreData,
                      OutOfMemory, OutOfRange, Overflow, ParseError, UnknownCategory, UnknownModelType,
                      UnknownName, UnknownOption, Unsupported, WrongHandle, WrongType, BufferTooSmall, check)
from ._options import (HANDLE_CONFIG, HANDLE_MODEL, HANDLE_PRECISION, TYPE_BOOL, TYPE_ENUM, TYPE_F64,  # noqa: F401
                       TYPE_I64, TYPE_STRING, Option, decode, option, options, table)
from ._handles import Config, Model, Precision  # noqa: F401
from ._result import CATEGORIES, DEVICES, PHASES, VALUES, Result, format_bytes, gib  # noqa: F401
from ._spec import Cache  # noqa: F401
from ._api import (advise, check_fit, default_cache, estimate, parse_spec, run, solve_max,  # noqa: F401
                   solve_min_gpus)

__version__ = _L.vramest_version_string().decode()

MODE_LOAD, MODE_TRAIN, MODE_INFER = 0, 1, 2


def version():
    """The runtime library version string."""
    return __version__


def categories():
    """Category names in index order, from the library."""
    return list(CATEGORIES)


def presets():
    """Names of the bundled model presets."""
    return [decode(_L.vramest_preset_name(i)) for i in range(_L.vramest_preset_count())]


def gpus():
    """Bundled GPU presets as {name: bytes}."""
    out = {}
    for i in range(_L.vramest_gpu_count()):
        name, size = ctypes.c_char_p(), ctypes.c_uint64()
        check(_L.vramest_gpu_info(i, ctypes.byref(name), ctypes.byref(size)))
        out[decode(name.value)] = size.value
    return out


_KEYWORDS = ("\n\n    Keyword options, from the library's option table (a name that is both a precision\n"
             "    and a workload option, such as kv_cache, goes by its value: True/False is the\n"
             "    workload switch, a dtype name the precision):\n\n"
             + table((HANDLE_PRECISION, HANDLE_CONFIG)) + "\n")
run.__doc__ += _KEYWORDS
estimate.__doc__ += _KEYWORDS

__all__ = ["Model", "Precision", "Config", "Result", "Option", "Cache", "Error", "NeedMoreData",
           "estimate", "run", "parse_spec", "check_fit", "solve_max", "solve_min_gpus", "advise", "options",
           "option", "presets", "gpus", "categories", "version", "gib", "format_bytes", "default_cache",
           "LIBRARY_PATH"] + sorted({c.__name__ for c in _ERRORS.values()} - {"NeedMoreData"})
