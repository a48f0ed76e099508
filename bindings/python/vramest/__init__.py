"""libvramest from Python, through ctypes (no compiled extension).

How much GPU memory will a model need — for training and inference — and
where does every byte go? The one-liner::

    import vramest
    plan = vramest.estimate({"model": "llama-2-7b", "workload": {"mode": "train", "batch_size": 4}})
    plan["gpu"]["peak_allocated"]

takes a job spec (the JSON format shared with the CLI) and returns the plan as
a dict, identical to ``vramest --spec FILE --json``. The handle classes
(:class:`Model`, :class:`Precision`, :class:`Config`, :class:`Result`) expose
the same options by keyword, resolved through the library's own option
registry: an option added in C works here with no binding change.
"""
import ctypes
import json
import weakref

from . import _lib

_L, LIBRARY_PATH = _lib.load()

__version__ = _L.vramest_version_string().decode()

# ---------------------------------------------------------------- errors


class Error(Exception):
    """A libvramest failure: ``status`` is the C status code, ``message`` the
    library's explanation (the key, the value, the byte offset)."""

    status = None

    def __init__(self, status, message):
        self.status = status
        self.message = message
        name = _L.vramest_status_string(status).decode()
        super().__init__("%s: %s" % (name, message) if message else name)


class InvalidArgument(Error): pass          # noqa: E701
class OutOfMemory(Error): pass              # noqa: E701
class FileError(Error): pass                # noqa: E701
class ParseError(Error): pass               # noqa: E701
class Unsupported(Error): pass              # noqa: E701
class UnknownOption(Error): pass            # noqa: E701
class WrongType(Error): pass                # noqa: E701
class OutOfRange(Error): pass               # noqa: E701
class Conflict(Error): pass                 # noqa: E701
class IncompleteModel(Error): pass          # noqa: E701
class UnknownCategory(Error): pass          # noqa: E701
class BufferTooSmall(Error): pass           # noqa: E701
class WrongHandle(Error): pass              # noqa: E701
class UnknownModelType(Error): pass         # noqa: E701
class Overflow(Error): pass                 # noqa: E701
class InvalidModel(Error): pass             # noqa: E701
class UnknownName(Error): pass              # noqa: E701
class LimitExceeded(Error): pass            # noqa: E701
class DoesNotFit(Error): pass               # noqa: E701
class InternalError(Error): pass            # noqa: E701


class NeedMoreData(Error):
    """The buffer is a prefix of a file; ``needed`` is how many bytes to supply."""

    def __init__(self, status, message, needed=0):
        super().__init__(status, message)
        self.needed = needed


_ERRORS = {-1: InvalidArgument, -2: OutOfMemory, -3: FileError, -4: ParseError, -5: NeedMoreData,
           -6: Unsupported, -7: UnknownOption, -8: WrongType, -9: OutOfRange, -10: Conflict,
           -11: IncompleteModel, -12: UnknownCategory, -13: BufferTooSmall, -14: WrongHandle,
           -15: UnknownModelType, -16: Overflow, -17: InvalidModel, -18: UnknownName,
           -19: LimitExceeded, -20: DoesNotFit, -99: InternalError}


def _raise(status, **extra):
    # The message is thread-local in C and read on the calling thread right
    # after the call, so it is the message of this very failure.
    msg = _L.vramest_last_error_message().decode("utf-8", "replace")
    cls = _ERRORS.get(status, Error)
    raise cls(status, msg, **extra)


def _check(status):
    if status < 0:
        _raise(status)
    return status


def _s(text):
    return text.encode("utf-8") if isinstance(text, str) else text


def _d(raw):
    return raw.decode("utf-8") if raw is not None else None


# ---------------------------------------------------------------- enums

MODE_LOAD, MODE_TRAIN, MODE_INFER = 0, 1, 2
DEVICES = ("gpu", "host", "nvme")
VALUES = ("params_total", "params_trainable", "peak_allocated", "peak_reserved", "device_total",
          "device_capacity", "fits", "checkpoint_bytes", "peak_phase", "host_total", "nvme_total",
          "params_active", "kv_pool_bytes", "kv_blocks", "max_tokens", "load_peak")
TYPE_I64, TYPE_F64, TYPE_BOOL, TYPE_ENUM, TYPE_STRING = 1, 2, 3, 4, 5
HANDLE_MODEL, HANDLE_PRECISION, HANDLE_CONFIG = 1, 2, 3


def categories():
    """Category names in index order, from the library at run time."""
    return [_d(_L.vramest_category_name(i)) for i in range(_L.vramest_category_count())]


def version():
    """The runtime library version string."""
    return __version__


# ---------------------------------------------------------------- options


class Option:
    """One option of the registry: key, name, type, handle, bounds, default, description."""

    def __init__(self, key):
        t, h, lo, hi, df = ctypes.c_int(), ctypes.c_int(), ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
        _check(_L.vramest_option_info(key, ctypes.byref(t), ctypes.byref(h), ctypes.byref(lo), ctypes.byref(hi),
                                      ctypes.byref(df)))
        self.key = key
        self.name = _d(_L.vramest_option_name(key))
        self.type, self.handle = t.value, h.value
        self.min, self.max = lo.value, hi.value
        self.default = _d(_L.vramest_option_default_str(key))
        self.group = _d(_L.vramest_option_group(key))
        self.description = _d(_L.vramest_option_description(key))

    def __repr__(self):
        return "Option(%s, group=%s, default=%r)" % (self.name, self.group, self.default)


def option(name, handle=None):
    """The :class:`Option` named ``name`` (aliases such as ``n_embd`` accepted);
    ``handle`` (HANDLE_MODEL/PRECISION/CONFIG) picks among same-named options."""
    key = ctypes.c_int()
    if handle is None:
        _check(_L.vramest_option_from_name(_s(name), ctypes.byref(key)))
    else:
        _check(_L.vramest_option_lookup(handle, _s(name), ctypes.byref(key)))
    return Option(key.value)


def options():
    """Every option the library knows, in registry order."""
    out = []
    for i in range(_L.vramest_option_count()):
        key = ctypes.c_int()
        _check(_L.vramest_option_at(i, ctypes.byref(key)))
        out.append(Option(key.value))
    return out


def presets():
    """Names of the bundled model presets."""
    return [_d(_L.vramest_preset_name(i)) for i in range(_L.vramest_preset_count())]


def gpus():
    """Bundled GPU presets as {name: bytes}."""
    out = {}
    for i in range(_L.vramest_gpu_count()):
        name, size = ctypes.c_char_p(), ctypes.c_uint64()
        _check(_L.vramest_gpu_info(i, ctypes.byref(name), ctypes.byref(size)))
        out[_d(name.value)] = size.value
    return out


# ---------------------------------------------------------------- handles


class _Handle:
    """Owns one C handle; freed by close(), a with-block, or the finalizer.
    C handles never reference each other, so any order of freeing is safe."""

    _prefix = None
    _kind = None

    def _adopt(self, ptr):
        self._ptr = ptr
        self._finalizer = weakref.finalize(self, getattr(_L, "vramest_%s_free" % self._prefix), ptr)

    def close(self):
        """Free the C handle now (idempotent)."""
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def _as_parameter_(self):
        # A closed handle is passed as NULL: the library then refuses it with
        # VRAMEST_E_INVALID_ARG, raised here as InvalidArgument.
        return self._ptr if self._finalizer.alive else self._ptr_type()

    def set(self, name, value):
        """Set one option by name; the type comes from the registry."""
        opt = option(name, self._kind)
        fn = "vramest_%s_set_" % self._prefix
        if isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        if isinstance(value, bool):
            _check(getattr(_L, fn + "i64")(self, opt.key, int(value)))
        elif isinstance(value, str):
            _check(getattr(_L, fn + "str")(self, opt.key, _s(value)))
        elif isinstance(value, float) or opt.type == TYPE_F64:
            _check(getattr(_L, fn + "f64")(self, opt.key, float(value)))
        elif isinstance(value, int):
            _check(getattr(_L, fn + "i64")(self, opt.key, value))
        else:
            raise WrongType(-8, "option '%s': cannot set a %s" % (name, type(value).__name__))
        return self

    def update(self, **options):
        """Set several options by keyword."""
        for k, v in options.items():
            self.set(k, v)
        return self

    def get(self, name):
        """The option's value: int, float, bool or str (enum names as str)."""
        opt = option(name, self._kind)
        fn = "vramest_%s_get_" % self._prefix
        if opt.type in (TYPE_STRING, TYPE_ENUM):
            out = ctypes.c_char_p()
            _check(getattr(_L, fn + "str")(self, opt.key, ctypes.byref(out)))
            return _d(out.value)
        if opt.type == TYPE_F64:
            out = ctypes.c_double()
            _check(getattr(_L, fn + "f64")(self, opt.key, ctypes.byref(out)))
            return out.value
        out = ctypes.c_int64()
        _check(getattr(_L, fn + "i64")(self, opt.key, ctypes.byref(out)))
        return bool(out.value) if opt.type == TYPE_BOOL else out.value

    def reset(self, name):
        """Return an option to its default."""
        _check(getattr(_L, "vramest_%s_reset" % self._prefix)(self, option(name, self._kind).key))
        return self

    def clone(self):
        """A deep copy with its own C handle."""
        out = self._ptr_type()
        _check(getattr(_L, "vramest_%s_clone" % self._prefix)(self, ctypes.byref(out)))
        obj = self.__class__.__new__(self.__class__)
        obj._adopt(out)
        return obj


class Model(_Handle):
    """A model. ``Model("llama-2-7b")`` loads a preset; ``Model(hidden_size=...,
    ...)`` builds one from architecture options; :meth:`from_file`,
    :meth:`from_hf_config` and :meth:`parse` read real files."""

    _prefix = "model"
    _kind = HANDLE_MODEL
    _ptr_type = _lib.ModelP

    def __init__(self, preset=None, **options):
        out = _lib.ModelP()
        if preset is not None:
            _check(_L.vramest_model_new_preset(_s(preset), ctypes.byref(out)))
        else:
            _check(_L.vramest_model_new(ctypes.byref(out)))
        self._adopt(out)
        self.update(**options)

    @classmethod
    def from_file(cls, path):
        """A model from a config.json, .safetensors, index .json, .gguf or a model directory."""
        m = cls()
        _check(_L.vramest_model_parse_file(m, 0, _s(str(path))))
        return m

    @classmethod
    def from_hf_config(cls, config):
        """A model from a Hugging Face config.json as a dict, str or bytes."""
        m = cls()
        m.parse(json.dumps(config) if isinstance(config, dict) else config, source=1)
        return m

    SOURCES = {"auto": 0, "hf_config": 1, "safetensors": 2, "safetensors_index": 3, "gguf": 4}

    def parse(self, data, source="auto"):
        """Merge a source held in memory (bytes of a file prefix are fine:
        :class:`NeedMoreData` says how many bytes to supply)."""
        data = _s(data)
        kind = self.SOURCES.get(source, source)
        needed = ctypes.c_size_t(0)
        buf = ctypes.create_string_buffer(data, len(data))
        rc = _L.vramest_model_parse(self, kind, buf, len(data), ctypes.byref(needed))
        if rc == -5:
            _raise(rc, needed=needed.value)
        _check(rc)
        return self

    def validate(self):
        """Raise if the model is incomplete or inconsistent."""
        _check(_L.vramest_model_validate(self))
        return self

    @property
    def num_parameters(self):
        """Parameter count of the model class (tied weights once)."""
        total = ctypes.c_uint64()
        _check(_L.vramest_model_param_count(self, ctypes.byref(total), None))
        return total.value

    @property
    def active_parameters(self):
        """Parameters used per token (MoE: the routed experts actually used)."""
        active = ctypes.c_uint64()
        _check(_L.vramest_model_param_count(self, None, ctypes.byref(active)))
        return active.value


class Precision(_Handle):
    """A precision policy: ``Precision("nf4")``, ``Precision(weights="int8", kv_cache="fp8")``."""

    _prefix = "precision"
    _kind = HANDLE_PRECISION
    _ptr_type = _lib.PrecisionP

    def __init__(self, preset=None, **options):
        out = _lib.PrecisionP()
        if preset is not None:
            _check(_L.vramest_precision_new_preset(_s(preset), ctypes.byref(out)))
        else:
            _check(_L.vramest_precision_new(ctypes.byref(out)))
        self._adopt(out)
        self.update(**options)


class Config(_Handle):
    """A workload: ``Config(mode="train", batch_size=8, seq_len=2048, device="A100-80GB")``."""

    _prefix = "config"
    _kind = HANDLE_CONFIG
    _ptr_type = _lib.ConfigP

    def __init__(self, **options):
        out = _lib.ConfigP()
        _check(_L.vramest_config_new(ctypes.byref(out)))
        self._adopt(out)
        self.update(**options)


class Result(_Handle):
    """An immutable estimate. ``result["activations"]`` is GPU bytes of a category."""

    _prefix = "result"
    _ptr_type = _lib.ResultP

    def __init__(self, ptr):
        self._adopt(ptr)

    def bytes(self, category, device="gpu"):
        """Bytes of one category (a name or an index) on a device."""
        cat = categories().index(category) if isinstance(category, str) else category
        dev = DEVICES.index(device) if isinstance(device, str) else device
        out = ctypes.c_uint64()
        _check(_L.vramest_result_get(self, dev, cat, ctypes.byref(out)))
        return out.value

    __getitem__ = bytes

    def band(self, category, device="gpu"):
        """(low, high) bytes of a category."""
        cat = categories().index(category) if isinstance(category, str) else category
        dev = DEVICES.index(device) if isinstance(device, str) else device
        lo, hi = ctypes.c_uint64(), ctypes.c_uint64()
        _check(_L.vramest_result_get_band(self, dev, cat, ctypes.byref(lo), ctypes.byref(hi)))
        return lo.value, hi.value

    def as_array(self, device="gpu"):
        """Every category of a device, in index order (one bulk call)."""
        n = _L.vramest_category_count()
        arr = (ctypes.c_uint64 * n)()
        count = ctypes.c_size_t()
        _check(_L.vramest_result_get_all(self, DEVICES.index(device), arr, n, ctypes.byref(count)))
        return list(arr[:count.value])

    def value(self, name):
        """A scalar figure by name (see VALUES); None when it does not apply (e.g. fits without a device)."""
        out = ctypes.c_uint64()
        rc = _L.vramest_result_value(self, VALUES.index(name), ctypes.byref(out))
        if rc == -6:
            return None
        _check(rc)
        return out.value

    @property
    def peak_allocated(self):
        return self.value("peak_allocated")

    @property
    def peak_reserved(self):
        return self.value("peak_reserved")

    @property
    def device_total(self):
        return self.value("device_total")

    @property
    def fits(self):
        v = self.value("fits")
        return None if v is None else bool(v)

    @property
    def warnings(self):
        return [_d(_L.vramest_result_warning(self, i)) for i in range(_L.vramest_result_warning_count(self))]

    def as_dict(self):
        """Categories per device and the headline figures, as a dict."""
        names = categories()
        out = {dev: dict(zip(names, self.as_array(dev))) for dev in DEVICES}
        for v in VALUES:
            out[v] = self.value(v)
        return out

    def json(self):
        """The whole plan (the same JSON as the CLI's --json), as a dict."""
        return json.loads(_json_out(lambda buf, cap, need: _L.vramest_result_json(self, buf, cap, need)))


def _json_out(call):
    """Call a C function with the (buf, cap, &needed) protocol, growing once."""
    needed = ctypes.c_size_t(0)
    cap = 16384
    for _ in range(2):
        buf = ctypes.create_string_buffer(cap)
        rc = call(buf, cap, ctypes.byref(needed))
        if rc == -13:
            cap = needed.value
            continue
        _check(rc)
        return buf.value.decode("utf-8")
    raise InternalError(-99, "JSON output kept growing")


def _handles(model, precision, config):
    if isinstance(model, str):
        model = Model(model)
    if isinstance(precision, str):
        precision = Precision(precision)
    if isinstance(config, dict):
        config = Config(**config)
    return model, precision, config


def run(model, precision=None, config=None):
    """Estimate for handles (or a preset name, a precision preset, a dict of config options)."""
    model, precision, config = _handles(model, precision, config)
    out = _lib.ResultP()
    _check(_L.vramest_estimate(model, precision, config, ctypes.byref(out)))
    return Result(out)


def estimate(spec):
    """Run a job spec (dict or JSON text) and return the plan as a dict —
    exactly what ``vramest --spec FILE --json`` prints."""
    text = _s(spec if isinstance(spec, (str, bytes)) else json.dumps(spec))
    return json.loads(_json_out(lambda buf, cap, need: _L.vramest_spec_plan(text, len(text), buf, cap, need)))


def parse_spec(spec, model=True):
    """A job spec as (Model, Precision, Config) handles.

    With ``model=False`` the "model" member must still be present but is not
    read, and the first element is None: a scheduler that caches parsed models
    by their spec text reads only each job's precision and workload."""
    text = _s(spec if isinstance(spec, (str, bytes)) else json.dumps(spec))
    m, p, c = _lib.ModelP(), _lib.PrecisionP(), _lib.ConfigP()
    _check(_L.vramest_spec_parse(text, len(text), ctypes.byref(m) if model else None, ctypes.byref(p),
                                 ctypes.byref(c)))
    objs = []
    for cls, ptr in ((Model, m), (Precision, p), (Config, c)):
        if cls is Model and not model:
            objs.append(None)
            continue
        obj = cls.__new__(cls)
        obj._adopt(ptr)
        objs.append(obj)
    return tuple(objs)


# ---------------------------------------------------------------- solvers


def check_fit(model, precision=None, config=None):
    """(fits, margin_bytes) on the config's device."""
    model, precision, config = _handles(model, precision, config)
    fits, margin = ctypes.c_int(), ctypes.c_int64()
    _check(_L.vramest_check_fit(model, precision, config, ctypes.byref(fits), ctypes.byref(margin)))
    return bool(fits.value), margin.value


def solve_max(model, precision=None, config=None, key="batch_size"):
    """(value, device_total_bytes): the largest `key` that fits; raises DoesNotFit if none does."""
    model, precision, config = _handles(model, precision, config)
    value, size = ctypes.c_int64(), ctypes.c_uint64()
    _check(_L.vramest_solve_max(model, precision, config, option(key).key, ctypes.byref(value), ctypes.byref(size)))
    return value.value, size.value


def solve_min_gpus(model, precision=None, config=None, max_gpus=4096):
    """The smallest world size that fits (see the C documentation for the layout rule)."""
    model, precision, config = _handles(model, precision, config)
    out = ctypes.c_int64()
    _check(_L.vramest_solve_min_gpus(model, precision, config, max_gpus, ctypes.byref(out)))
    return out.value


def advise(model, precision=None, config=None):
    """Memory-saving changes, cheapest first: a list of {change, saves_bytes, device_total, fits}."""
    model, precision, config = _handles(model, precision, config)
    return json.loads(_json_out(lambda buf, cap, need: _L.vramest_advise_json(model, precision, config, buf, cap,
                                                                               need)))


__all__ = ["Model", "Precision", "Config", "Result", "Option", "Error", "estimate", "run", "parse_spec",
           "check_fit", "solve_max", "solve_min_gpus", "advise", "options", "option", "presets", "gpus",
           "categories", "version"] + [c.__name__ for c in set(_ERRORS.values())] + ["NeedMoreData"]
