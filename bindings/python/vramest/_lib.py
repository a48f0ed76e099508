"""Loading libvramest and declaring every function it exports.

One declarative table (name, argtypes, restype, checked) applied by a loop, as
libclang's cindex.py does: every function gets explicit argtypes and restype,
and status-returning functions raise :class:`vramest.Error` subclasses
carrying the status code and the library's thread-local message.
"""
import ctypes
import ctypes.util
import os

MIN_VERSION = 10000  # 1.0.0: the first ABI this binding speaks


class _Model(ctypes.Structure):
    """Opaque vramest_model (never dereferenced)."""


class _Precision(ctypes.Structure):
    """Opaque vramest_precision."""


class _Config(ctypes.Structure):
    """Opaque vramest_config."""


class _Result(ctypes.Structure):
    """Opaque vramest_result."""


ModelP = ctypes.POINTER(_Model)
PrecisionP = ctypes.POINTER(_Precision)
ConfigP = ctypes.POINTER(_Config)
ResultP = ctypes.POINTER(_Result)

c_int, c_int64, c_uint32, c_uint64 = ctypes.c_int, ctypes.c_int64, ctypes.c_uint32, ctypes.c_uint64
c_double, c_size_t, c_char_p, c_void_p = ctypes.c_double, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_void_p
P = ctypes.POINTER

# (name, argtypes, restype, checked): checked functions return a status int.
FUNCTIONS = [
    ("vramest_version_number", [], c_uint32, False),
    ("vramest_version_string", [], c_char_p, False),
    ("vramest_status_string", [c_int], c_char_p, False),
    ("vramest_last_error_message", [], c_char_p, False),
    ("vramest_clear_error", [], None, False),
    ("vramest_option_from_name", [c_char_p, P(c_int)], c_int, True),
    ("vramest_option_lookup", [c_int, c_char_p, P(c_int)], c_int, True),
    ("vramest_option_name", [c_int], c_char_p, False),
    ("vramest_option_info", [c_int, P(c_int), P(c_int), P(c_double), P(c_double), P(c_double)], c_int, True),
    ("vramest_option_default_str", [c_int], c_char_p, False),
    ("vramest_option_description", [c_int], c_char_p, False),
    ("vramest_option_group", [c_int], c_char_p, False),
    ("vramest_option_count", [], c_uint32, False),
    ("vramest_option_at", [c_uint32, P(c_int)], c_int, True),
    ("vramest_option_value_name", [c_int, c_int64], c_char_p, False),
    ("vramest_option_value_from_name", [c_int, c_char_p, P(c_int64)], c_int, True),
    ("vramest_model_new", [P(ModelP)], c_int, True),
    ("vramest_model_new_preset", [c_char_p, P(ModelP)], c_int, True),
    ("vramest_model_clone", [ModelP, P(ModelP)], c_int, True),
    ("vramest_model_free", [ModelP], None, False),
    ("vramest_model_set_i64", [ModelP, c_int, c_int64], c_int, True),
    ("vramest_model_set_f64", [ModelP, c_int, c_double], c_int, True),
    ("vramest_model_set_str", [ModelP, c_int, c_char_p], c_int, True),
    ("vramest_model_get_i64", [ModelP, c_int, P(c_int64)], c_int, True),
    ("vramest_model_get_f64", [ModelP, c_int, P(c_double)], c_int, True),
    ("vramest_model_get_str", [ModelP, c_int, P(c_char_p)], c_int, True),
    ("vramest_model_reset", [ModelP, c_int], c_int, True),
    ("vramest_model_parse", [ModelP, c_int, c_void_p, c_size_t, P(c_size_t)], c_int, True),
    ("vramest_model_parse_file", [ModelP, c_int, c_char_p], c_int, True),
    ("vramest_model_validate", [ModelP], c_int, True),
    ("vramest_model_param_count", [ModelP, P(c_uint64), P(c_uint64)], c_int, True),
    ("vramest_preset_count", [], c_uint32, False),
    ("vramest_preset_name", [c_uint32], c_char_p, False),
    ("vramest_dtype_name", [c_int], c_char_p, False),
    ("vramest_dtype_from_name", [c_char_p, P(c_int)], c_int, True),
    ("vramest_dtype_layout", [c_int, P(c_uint64), P(c_uint64)], c_int, True),
    ("vramest_precision_new", [P(PrecisionP)], c_int, True),
    ("vramest_precision_new_preset", [c_char_p, P(PrecisionP)], c_int, True),
    ("vramest_precision_apply_preset", [PrecisionP, c_char_p], c_int, True),
    ("vramest_precision_clone", [PrecisionP, P(PrecisionP)], c_int, True),
    ("vramest_precision_free", [PrecisionP], None, False),
    ("vramest_precision_set_i64", [PrecisionP, c_int, c_int64], c_int, True),
    ("vramest_precision_set_f64", [PrecisionP, c_int, c_double], c_int, True),
    ("vramest_precision_set_str", [PrecisionP, c_int, c_char_p], c_int, True),
    ("vramest_precision_get_i64", [PrecisionP, c_int, P(c_int64)], c_int, True),
    ("vramest_precision_get_f64", [PrecisionP, c_int, P(c_double)], c_int, True),
    ("vramest_precision_get_str", [PrecisionP, c_int, P(c_char_p)], c_int, True),
    ("vramest_precision_reset", [PrecisionP, c_int], c_int, True),
    ("vramest_config_new", [P(ConfigP)], c_int, True),
    ("vramest_config_clone", [ConfigP, P(ConfigP)], c_int, True),
    ("vramest_config_free", [ConfigP], None, False),
    ("vramest_config_set_i64", [ConfigP, c_int, c_int64], c_int, True),
    ("vramest_config_set_f64", [ConfigP, c_int, c_double], c_int, True),
    ("vramest_config_set_str", [ConfigP, c_int, c_char_p], c_int, True),
    ("vramest_config_get_i64", [ConfigP, c_int, P(c_int64)], c_int, True),
    ("vramest_config_get_f64", [ConfigP, c_int, P(c_double)], c_int, True),
    ("vramest_config_get_str", [ConfigP, c_int, P(c_char_p)], c_int, True),
    ("vramest_config_reset", [ConfigP, c_int], c_int, True),
    ("vramest_gpu_count", [], c_uint32, False),
    ("vramest_gpu_info", [c_uint32, P(c_char_p), P(c_uint64)], c_int, True),
    ("vramest_estimate", [ModelP, PrecisionP, ConfigP, P(ResultP)], c_int, True),
    ("vramest_result_free", [ResultP], None, False),
    ("vramest_result_get", [ResultP, c_int, c_int, P(c_uint64)], c_int, True),
    ("vramest_result_get_band", [ResultP, c_int, c_int, P(c_uint64), P(c_uint64)], c_int, True),
    ("vramest_result_provenance", [ResultP, c_int, c_int, P(c_int)], c_int, True),
    ("vramest_result_get_all", [ResultP, c_int, P(c_uint64), c_size_t, P(c_size_t)], c_int, True),
    ("vramest_result_value", [ResultP, c_int, P(c_uint64)], c_int, True),
    ("vramest_result_value_band", [ResultP, c_int, P(c_uint64), P(c_uint64)], c_int, True),
    ("vramest_result_warning_count", [ResultP], c_uint32, False),
    ("vramest_result_warning", [ResultP, c_uint32], c_char_p, False),
    ("vramest_result_json", [ResultP, c_char_p, c_size_t, P(c_size_t)], c_int, True),
    ("vramest_result_rank_count", [ResultP], c_uint32, False),
    ("vramest_result_rank_get", [ResultP, c_uint32, c_int, P(c_uint64)], c_int, True),
    ("vramest_result_rank_label", [ResultP, c_uint32], c_char_p, False),
    ("vramest_category_count", [], c_uint32, False),
    ("vramest_category_name", [c_int], c_char_p, False),
    ("vramest_device_name", [c_int], c_char_p, False),
    ("vramest_value_name", [c_int], c_char_p, False),
    ("vramest_phase_name", [c_int], c_char_p, False),
    ("vramest_provenance_name", [c_int], c_char_p, False),
    ("vramest_check_fit", [ModelP, PrecisionP, ConfigP, P(c_int), P(c_int64)], c_int, True),
    ("vramest_solve_max", [ModelP, PrecisionP, ConfigP, c_int, P(c_int64), P(c_uint64)], c_int, True),
    ("vramest_solve_min_gpus", [ModelP, PrecisionP, ConfigP, c_int64, P(c_int64)], c_int, True),
    ("vramest_advise_json", [ModelP, PrecisionP, ConfigP, c_char_p, c_size_t, P(c_size_t)], c_int, True),
    ("vramest_spec_parse", [c_char_p, c_size_t, P(ModelP), P(PrecisionP), P(ConfigP)], c_int, True),
    ("vramest_spec_plan", [c_char_p, c_size_t, c_char_p, c_size_t, P(c_size_t)], c_int, True),
]


def _candidates():
    env = os.environ.get("VRAMEST_LIBRARY")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("libvramest.so.1", "libvramest.so", "libvramest.1.dylib", "libvramest.dylib", "vramest-1.dll"):
        path = os.path.join(here, name)
        if os.path.exists(path):
            yield path
    found = ctypes.util.find_library("vramest")
    if found:
        yield found
    yield "libvramest.so.1"


def load():
    """Load the library (first that loads of: $VRAMEST_LIBRARY, a copy in the
    package directory, ctypes.util.find_library) and declare its functions."""
    errors = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)  # CDLL releases the GIL during calls
            break
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    else:
        raise ImportError("libvramest not found; set VRAMEST_LIBRARY to the library path (tried: %s)"
                          % "; ".join(errors))
    for name, argtypes, restype, _checked in FUNCTIONS:
        fn = getattr(lib, name, None)
        if fn is None:
            raise ImportError("%s does not export %s: the library is older than this binding" % (path, name))
        fn.argtypes = argtypes
        fn.restype = restype
    version = lib.vramest_version_number()
    if version < MIN_VERSION or version // 10000 != MIN_VERSION // 10000:
        raise ImportError("libvramest %s at %s is not ABI-compatible with this binding (needs %d.x)"
                          % (lib.vramest_version_string().decode(), path, MIN_VERSION // 10000))
    return lib, path
