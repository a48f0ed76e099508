"""Finding libvramest and declaring every function it exports.

One declarative table (name, argtypes, restype) applied by a loop, as
libclang's cindex.py does: every function gets explicit argtypes and restype
once, at import, so a call costs ctypes' conversion and nothing else.
"""
import ctypes
import os
import sysconfig

MIN_VERSION = 10000  # 1.0.0: the first ABI this binding speaks
MAJOR = MIN_VERSION // 10000
SONAME = "libvramest.so.%d" % MAJOR


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


class _Cache(ctypes.Structure):
    """Opaque vramest_cache."""


CacheP = ctypes.POINTER(_Cache)

c_int, c_int64, c_uint32, c_uint64 = ctypes.c_int, ctypes.c_int64, ctypes.c_uint32, ctypes.c_uint64
c_double, c_size_t, c_char_p, c_void_p = ctypes.c_double, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_void_p
P = ctypes.POINTER

# (name, argtypes, restype): functions returning int return a vramest status.
FUNCTIONS = [
    ("vramest_version_number", [], c_uint32),
    ("vramest_version_string", [], c_char_p),
    ("vramest_status_string", [c_int], c_char_p),
    ("vramest_last_error_message", [], c_char_p),
    ("vramest_clear_error", [], None),
    ("vramest_option_from_name", [c_char_p, P(c_int)], c_int),
    ("vramest_option_lookup", [c_int, c_char_p, P(c_int)], c_int),
    ("vramest_option_name", [c_int], c_char_p),
    ("vramest_option_info", [c_int, P(c_int), P(c_int), P(c_double), P(c_double), P(c_double)], c_int),
    ("vramest_option_default_str", [c_int], c_char_p),
    ("vramest_option_description", [c_int], c_char_p),
    ("vramest_option_group", [c_int], c_char_p),
    ("vramest_option_count", [], c_uint32),
    ("vramest_option_at", [c_uint32, P(c_int)], c_int),
    ("vramest_option_value_name", [c_int, c_int64], c_char_p),
    ("vramest_option_value_from_name", [c_int, c_char_p, P(c_int64)], c_int),
    ("vramest_model_new", [P(ModelP)], c_int),
    ("vramest_model_new_preset", [c_char_p, P(ModelP)], c_int),
    ("vramest_model_clone", [ModelP, P(ModelP)], c_int),
    ("vramest_model_free", [ModelP], None),
    ("vramest_model_set_i64", [ModelP, c_int, c_int64], c_int),
    ("vramest_model_set_f64", [ModelP, c_int, c_double], c_int),
    ("vramest_model_set_str", [ModelP, c_int, c_char_p], c_int),
    ("vramest_model_get_i64", [ModelP, c_int, P(c_int64)], c_int),
    ("vramest_model_get_f64", [ModelP, c_int, P(c_double)], c_int),
    ("vramest_model_get_str", [ModelP, c_int, P(c_char_p)], c_int),
    ("vramest_model_reset", [ModelP, c_int], c_int),
    ("vramest_model_parse", [ModelP, c_int, c_void_p, c_size_t, P(c_size_t)], c_int),
    ("vramest_model_parse_file", [ModelP, c_int, c_char_p], c_int),
    ("vramest_model_validate", [ModelP], c_int),
    ("vramest_model_param_count", [ModelP, P(c_uint64), P(c_uint64)], c_int),
    ("vramest_preset_count", [], c_uint32),
    ("vramest_preset_name", [c_uint32], c_char_p),
    ("vramest_dtype_name", [c_int], c_char_p),
    ("vramest_dtype_from_name", [c_char_p, P(c_int)], c_int),
    ("vramest_dtype_layout", [c_int, P(c_uint64), P(c_uint64)], c_int),
    ("vramest_precision_new", [P(PrecisionP)], c_int),
    ("vramest_precision_new_preset", [c_char_p, P(PrecisionP)], c_int),
    ("vramest_precision_apply_preset", [PrecisionP, c_char_p], c_int),
    ("vramest_precision_clone", [PrecisionP, P(PrecisionP)], c_int),
    ("vramest_precision_free", [PrecisionP], None),
    ("vramest_precision_set_i64", [PrecisionP, c_int, c_int64], c_int),
    ("vramest_precision_set_f64", [PrecisionP, c_int, c_double], c_int),
    ("vramest_precision_set_str", [PrecisionP, c_int, c_char_p], c_int),
    ("vramest_precision_get_i64", [PrecisionP, c_int, P(c_int64)], c_int),
    ("vramest_precision_get_f64", [PrecisionP, c_int, P(c_double)], c_int),
    ("vramest_precision_get_str", [PrecisionP, c_int, P(c_char_p)], c_int),
    ("vramest_precision_reset", [PrecisionP, c_int], c_int),
    ("vramest_config_new", [P(ConfigP)], c_int),
    ("vramest_config_clone", [ConfigP, P(ConfigP)], c_int),
    ("vramest_config_free", [ConfigP], None),
    ("vramest_config_set_i64", [ConfigP, c_int, c_int64], c_int),
    ("vramest_config_set_f64", [ConfigP, c_int, c_double], c_int),
    ("vramest_config_set_str", [ConfigP, c_int, c_char_p], c_int),
    ("vramest_config_get_i64", [ConfigP, c_int, P(c_int64)], c_int),
    ("vramest_config_get_f64", [ConfigP, c_int, P(c_double)], c_int),
    ("vramest_config_get_str", [ConfigP, c_int, P(c_char_p)], c_int),
    ("vramest_config_reset", [ConfigP, c_int], c_int),
    ("vramest_config_set_role_model", [ConfigP, c_int, ModelP, PrecisionP], c_int),
    ("vramest_config_get_role_model", [ConfigP, c_int, P(ModelP), P(PrecisionP)], c_int),
    ("vramest_gpu_count", [], c_uint32),
    ("vramest_gpu_info", [c_uint32, P(c_char_p), P(c_uint64)], c_int),
    ("vramest_estimate", [ModelP, PrecisionP, ConfigP, P(ResultP)], c_int),
    ("vramest_result_free", [ResultP], None),
    ("vramest_result_get", [ResultP, c_int, c_int, P(c_uint64)], c_int),
    ("vramest_result_get_band", [ResultP, c_int, c_int, P(c_uint64), P(c_uint64)], c_int),
    ("vramest_result_provenance", [ResultP, c_int, c_int, P(c_int)], c_int),
    ("vramest_result_get_all", [ResultP, c_int, P(c_uint64), c_size_t, P(c_size_t)], c_int),
    ("vramest_result_value", [ResultP, c_int, P(c_uint64)], c_int),
    ("vramest_result_value_band", [ResultP, c_int, P(c_uint64), P(c_uint64)], c_int),
    ("vramest_result_warning_count", [ResultP], c_uint32),
    ("vramest_result_warning", [ResultP, c_uint32], c_char_p),
    ("vramest_result_json", [ResultP, c_char_p, c_size_t, P(c_size_t)], c_int),
    ("vramest_result_rank_count", [ResultP], c_uint32),
    ("vramest_result_rank_get", [ResultP, c_uint32, c_int, P(c_uint64)], c_int),
    ("vramest_result_rank_label", [ResultP, c_uint32], c_char_p),
    ("vramest_category_count", [], c_uint32),
    ("vramest_category_name", [c_int], c_char_p),
    ("vramest_device_name", [c_int], c_char_p),
    ("vramest_value_name", [c_int], c_char_p),
    ("vramest_phase_name", [c_int], c_char_p),
    ("vramest_provenance_name", [c_int], c_char_p),
    ("vramest_check_fit", [ModelP, PrecisionP, ConfigP, P(c_int), P(c_int64)], c_int),
    ("vramest_solve_max", [ModelP, PrecisionP, ConfigP, c_int, P(c_int64), P(c_uint64)], c_int),
    ("vramest_solve_min_gpus", [ModelP, PrecisionP, ConfigP, c_int64, P(c_int64)], c_int),
    ("vramest_advise_json", [ModelP, PrecisionP, ConfigP, c_char_p, c_size_t, P(c_size_t)], c_int),
    ("vramest_plan_json", [ModelP, PrecisionP, ConfigP, c_int, c_int, c_char_p, c_size_t, P(c_size_t)], c_int),
    ("vramest_spec_parse", [c_char_p, c_size_t, P(ModelP), P(PrecisionP), P(ConfigP)], c_int),
    ("vramest_spec_plan", [c_char_p, c_size_t, c_char_p, c_size_t, P(c_size_t)], c_int),
]

# Functions newer than MIN_VERSION: declared when the library exports them,
# None otherwise; the binding says what is missing when one is needed.
OPTIONAL = [
    ("vramest_model_parse_path", [ModelP, c_int, c_char_p, c_int], c_int),
    ("vramest_cache_new", [c_uint32, P(CacheP)], c_int),
    ("vramest_cache_free", [CacheP], None),
    ("vramest_cache_clear", [CacheP], c_int),
    ("vramest_cache_stats", [CacheP, P(c_uint64), P(c_uint64), P(c_uint64)], c_int),
    ("vramest_spec_plan_cached", [CacheP, c_char_p, c_size_t, c_char_p, c_size_t, P(c_size_t)], c_int),
    ("vramest_spec_estimate_cached", [CacheP, c_char_p, c_size_t, P(ResultP)], c_int),
]

LIBRARY_FILES = (SONAME, "libvramest.so", "libvramest.%d.dylib" % MAJOR, "libvramest.dylib",
                 "vramest-%d.dll" % MAJOR)


def _pkg_config_libdir():
    """`pkg-config --variable=libdir vramest`, or None: where `meson install`
    put the library even when the loader's cache does not know it yet."""
    import shutil  # noqa: E401 - here, not at import: only a library not found otherwise needs them
    import subprocess
    exe = os.environ.get("PKG_CONFIG") or shutil.which("pkg-config")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, "--variable=libdir", "vramest"], capture_output=True, text=True,
                             timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    libdir = out.stdout.strip()
    return libdir if out.returncode == 0 and libdir else None


def _default_libdirs():
    """meson's default prefix is /usr/local; the libdir under it depends on the
    distribution (Debian: lib/<multiarch>)."""
    multiarch = sysconfig.get_config_var("MULTIARCH")
    dirs = ["/usr/local/lib/" + multiarch] if multiarch else []
    return dirs + ["/usr/local/lib64", "/usr/local/lib"]


def candidates():
    """(how, path) pairs in the order load() tries them, computed lazily so
    that the slow ones (pkg-config) run only when the fast ones failed."""
    here = os.path.dirname(os.path.abspath(__file__))
    for name in LIBRARY_FILES:
        path = os.path.join(here, name)
        if os.path.exists(path):
            yield "bundled with the package", path
    import ctypes.util  # slow to import (it brings subprocess); needed only here
    found = ctypes.util.find_library("vramest")
    if found:
        yield "ctypes.util.find_library (ldconfig cache, LD_LIBRARY_PATH)", found
    yield "the dynamic loader (LD_LIBRARY_PATH, ldconfig cache)", SONAME
    libdir = _pkg_config_libdir()
    if libdir:
        yield "pkg-config --variable=libdir vramest", os.path.join(libdir, SONAME)
    for libdir in _default_libdirs():
        path = os.path.join(libdir, SONAME)
        if os.path.exists(path):
            yield "meson's default install directory", path


def _open(path):
    return ctypes.CDLL(path)  # CDLL releases the GIL during calls


def load():
    """Load the library and declare its functions; returns (lib, path).

    $VRAMEST_LIBRARY, when set, is the only candidate: a wrong path is an
    error, never a silent fall-back to another copy."""
    env = os.environ.get("VRAMEST_LIBRARY")
    if env:
        try:
            lib, path = _open(env), env
        except OSError as e:
            raise ImportError("VRAMEST_LIBRARY=%s cannot be loaded: %s" % (env, e)) from None
    else:
        tried = []
        for how, path in candidates():
            try:
                lib = _open(path)
                break
            except OSError as e:
                tried.append("%s (%s): %s" % (path, how, e))
        else:
            raise ImportError(
                "libvramest was not found. Install it (meson install -C build, then ldconfig), put its "
                "directory in LD_LIBRARY_PATH, or set VRAMEST_LIBRARY to the file (e.g. "
                "build/lib/%s). Tried: %s" % (SONAME, "; ".join(tried) or "nothing"))
    for name, argtypes, restype in FUNCTIONS:
        fn = getattr(lib, name, None)
        if fn is None:
            raise ImportError("%s does not export %s: the library is older than this binding" % (path, name))
        fn.argtypes = argtypes
        fn.restype = restype
    for name, argtypes, restype in OPTIONAL:
        try:
            fn = getattr(lib, name)
        except AttributeError:
            setattr(lib, name, None)
            continue
        fn.argtypes = argtypes
        fn.restype = restype
    version = lib.vramest_version_number()
    if version < MIN_VERSION or version // 10000 != MAJOR:
        raise ImportError("libvramest %s at %s is not ABI-compatible with this binding (needs %d.x)"
                          % (lib.vramest_version_string().decode(), path, MAJOR))
    return lib, path
