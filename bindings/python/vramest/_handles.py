"""Model, Precision and Config: Python objects that own one C handle each.

Options are set and read by name through the library's option table
(_options), checked in Python first so that nothing is wrapped or cut on its
way to C. A handle is freed by close(), a with-block, or when the object is
collected; C handles never point at each other, so any order is safe.
"""
import ctypes
import json

from . import _lib
from ._errors import _L, E_INVALID_ARG, E_NEED_MORE_DATA, E_TYPE, E_UNSUPPORTED, Error, check, fail, raise_last
from ._owner import Owner
from ._options import (HANDLE_CONFIG, HANDLE_MODEL, HANDLE_PRECISION, TYPE_BOOL, TYPE_ENUM, TYPE_F64,
                       TYPE_STRING, OPTIONS, check_values, decode, lookup, table, text_arg)


class _Handle(Owner):
    """Owns one C handle (``_ptr``; None once closed)."""

    _kind = None

    def _adopt(self, ptr):
        self._ptr = ptr
        return self

    def live(self):
        """The C pointer, or an error if the handle was closed (where C would
        read NULL as "use the defaults", a closed handle must not pass)."""
        ptr = self._ptr
        if ptr is None:
            fail(E_INVALID_ARG, "this %s was closed" % type(self).__name__)
        return ptr

    def set(self, name, value):
        """Set one option by name; the value's type comes from the option table."""
        opt = lookup(name, self._kind)
        how, cval = opt.to_c(value)
        rc = self._setters[how](self.live(), opt.key, cval)
        if rc < 0:
            raise_last(rc)
        return self

    def update(self, **options):
        """Set several options by keyword."""
        for name, value in options.items():
            self.set(name, value)
        return self

    def _read(self, opt):
        ptr = self.live()
        if opt.type in (TYPE_STRING, TYPE_ENUM):
            out = ctypes.c_char_p()
            check(self._get_str(ptr, opt.key, ctypes.byref(out)))
            return decode(out.value)
        if opt.type == TYPE_F64:
            out = ctypes.c_double()
            check(self._get_f64(ptr, opt.key, ctypes.byref(out)))
            return out.value
        out = ctypes.c_int64()
        check(self._get_i64(ptr, opt.key, ctypes.byref(out)))
        return bool(out.value) if opt.type == TYPE_BOOL else out.value

    def get(self, name):
        """An option's value: int, float, bool or str (enum values by name)."""
        return self._read(lookup(name, self._kind))

    def reset(self, name):
        """Return an option to its default."""
        check(self._reset(self.live(), lookup(name, self._kind).key))
        return self

    def clone(self):
        """A deep copy with its own C handle."""
        out = self._ptr_type()
        check(self._clone(self.live(), ctypes.byref(out)))
        obj = self.__class__.__new__(self.__class__)
        obj.__dict__.update(self.__dict__)
        return obj._adopt(out)

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        return self.clone()

    def changed(self):
        """{name: value} of the options that differ from their defaults."""
        out = {}
        for opt in OPTIONS:
            if opt.handle != self._kind:
                continue
            try:
                value = self._read(opt)
            except Error:  # an option the handle cannot report (not set, not applicable)
                continue
            if value != opt.default_value() and not (value == "" and opt.default in (None, "")):
                out[opt.name] = value
        return out

    def as_dict(self):
        """The options that differ from their defaults, as {name: value}."""
        return self.changed()

    def _repr_options(self):
        return ", ".join("%s=%r" % kv for kv in self.changed().items())

    def __repr__(self):
        if self.closed:
            return "<vramest.%s (closed)>" % type(self).__name__
        return "vramest.%s(%s)" % (type(self).__name__, self._repr_options())


def _setters(prefix):
    return (getattr(_L, "vramest_%s_set_i64" % prefix), getattr(_L, "vramest_%s_set_f64" % prefix),
            getattr(_L, "vramest_%s_set_str" % prefix))


def _bind(cls, prefix):
    """The C functions of one handle type, looked up once per class."""
    cls._setters = _setters(prefix)
    for op in ("get_i64", "get_f64", "get_str", "reset", "clone", "free"):
        setattr(cls, "_" + op, getattr(_L, "vramest_%s_%s" % (prefix, op)))


def _short_count(n):
    for div, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if n >= div:
            return "%.2f%s" % (n / div, unit)
    return str(n)


class Model(_Handle):
    """A model: ``Model("llama-3.1-8b")`` loads a preset, ``Model(model_type=
    "llama", hidden_size=4096, ...)`` builds one from architecture options (the
    names of a Hugging Face config.json), and :meth:`from_file`,
    :meth:`from_hf_config` and :meth:`parse` read real files.
    """

    _kind = HANDLE_MODEL
    _ptr_type = _lib.ModelP
    _name = None
    SOURCES = {"auto": 0, "hf_config": 1, "safetensors": 2, "safetensors_index": 3, "gguf": 4}

    def __init__(self, preset=None, **options):
        out = _lib.ModelP()
        if preset is not None:
            check(_L.vramest_model_new_preset(text_arg(preset, "the model preset name"), ctypes.byref(out)))
            self._name = preset
        else:
            check(_L.vramest_model_new(ctypes.byref(out)))
        self._adopt(out)
        self.update(**options)

    PARSE_ALLOW_EXTERNAL_LINKS = 1

    @classmethod
    def from_file(cls, path, allow_external_links=False):
        """A model from a config.json, .safetensors, index .json, .gguf or a
        model directory. ``allow_external_links`` lets a shard be a symbolic
        link to a file outside the model's directory (refused otherwise, by
        libraries that have vramest_model_parse_path)."""
        raw = text_arg(path, "the model path")
        m = cls()
        parse_path = _L.vramest_model_parse_path
        if parse_path is not None:
            flags = cls.PARSE_ALLOW_EXTERNAL_LINKS if allow_external_links else 0
            check(parse_path(m.live(), 0, raw, flags))
        elif allow_external_links:
            fail(E_UNSUPPORTED, "allow_external_links needs a libvramest with vramest_model_parse_path; %s "
                                "has none" % _L.vramest_version_string().decode())
        else:
            check(_L.vramest_model_parse_file(m.live(), 0, raw))
        m._name = raw.decode("utf-8", "backslashreplace")
        return m

    @classmethod
    def from_hf_config(cls, config):
        """A model from a Hugging Face config.json as a dict, str or bytes."""
        if isinstance(config, dict):
            check_values(config, "config.json")
            config = json.dumps(config)
        m = cls()
        m.parse(config, source="hf_config")
        return m

    def parse(self, data, source="auto"):
        """Merge a source held in memory (a file's first bytes are enough:
        :class:`NeedMoreData` says how many bytes to supply)."""
        if isinstance(data, str):
            data = data.encode("utf-8")
        elif not isinstance(data, (bytes, bytearray, memoryview)):
            fail(E_TYPE, "Model.parse takes bytes or text, not %s" % type(data).__name__)
        data = bytes(data)
        kind = self.SOURCES.get(source) if isinstance(source, str) else source
        if kind not in self.SOURCES.values() or isinstance(kind, bool):
            fail(E_INVALID_ARG, "unknown source %r (valid: %s)" % (source, ", ".join(self.SOURCES)))
        needed = ctypes.c_size_t(0)
        rc = _L.vramest_model_parse(self.live(), kind, data, len(data), ctypes.byref(needed))
        if rc == E_NEED_MORE_DATA:
            raise_last(rc, needed=needed.value)
        check(rc)
        return self

    def validate(self):
        """Raise if the model is incomplete or inconsistent."""
        check(_L.vramest_model_validate(self.live()))
        return self

    @property
    def name(self):
        """The preset name or file it came from (None when built from options)."""
        return self._name

    @property
    def num_parameters(self):
        """Parameter count of the model class (tied weights once)."""
        total = ctypes.c_uint64()
        check(_L.vramest_model_param_count(self.live(), ctypes.byref(total), None))
        return total.value

    @property
    def active_parameters(self):
        """Parameters used per token (MoE: the routed experts actually used)."""
        active = ctypes.c_uint64()
        check(_L.vramest_model_param_count(self.live(), None, ctypes.byref(active)))
        return active.value

    def __repr__(self):
        if self.closed:
            return "<vramest.Model (closed)>"
        label = repr(self._name) + ": " if self._name else ""
        try:
            family = self.get("model_type") or "no model_type"
        except Error:
            family = "no model_type"
        try:
            total, active = self.num_parameters, self.active_parameters
            layers, hidden = self.get("num_hidden_layers"), self.get("hidden_size")
        except Error as e:  # an incomplete model still prints
            return "<vramest.Model %s%s (incomplete: %s)>" % (label, family, e.message)
        params = "%s parameters" % _short_count(total)
        if active != total:
            params += " (%s active)" % _short_count(active)
        return "<vramest.Model %s%s, %s, %d layers, hidden_size %d>" % (label, family, params, layers, hidden)


class Precision(_Handle):
    """A precision policy: ``Precision("nf4")`` (a preset), or by option,
    ``Precision(weights="int8", kv_cache="fp8")``, or both:
    ``Precision("bf16", kv_cache="fp8")``.
    """

    _kind = HANDLE_PRECISION
    _ptr_type = _lib.PrecisionP

    def __init__(self, preset=None, **options):
        out = _lib.PrecisionP()
        if preset is not None:
            check(_L.vramest_precision_new_preset(text_arg(preset, "the precision preset name"),
                                                  ctypes.byref(out)))
        else:
            check(_L.vramest_precision_new(ctypes.byref(out)))
        self._adopt(out)
        self.update(**options)


class Config(_Handle):
    """A workload, its parallel layout, device and runtime:
    ``Config(mode="train", batch_size=8, seq_len=2048, device="A100-80GB")``.
    """

    _kind = HANDLE_CONFIG
    _ptr_type = _lib.ConfigP

    def __init__(self, **options):
        out = _lib.ConfigP()
        check(_L.vramest_config_new(ctypes.byref(out)))
        self._adopt(out)
        self.update(**options)


_bind(Model, "model")
_bind(Precision, "precision")
_bind(Config, "config")

for _cls, _kinds in ((Model, (HANDLE_MODEL,)), (Precision, (HANDLE_PRECISION,)), (Config, (HANDLE_CONFIG,))):
    _cls.__doc__ += "\n    Options, from the library's option table:\n\n" + table(_kinds) + "\n"
