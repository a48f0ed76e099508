"""Job specs as Python dicts: keyword options merged in, values checked
before they are written as JSON, and parsed models reused across calls.

The spec format (and every check of it) stays in C (vramest_spec_parse /
vramest_spec_plan); this file only decides where a keyword goes, using the
option table's groups, and which model members can be cached.
"""
import collections
import ctypes
import json
import os
import threading

from . import _lib
from ._errors import _L, E_INVALID_ARG, E_TYPE, E_UNKNOWN_OPTION, check, fail
from ._handles import Config, Model, Precision
from ._options import (_BY_HANDLE, GROUPS, HANDLE_CONFIG, HANDLE_MODEL, HANDLE_PRECISION, TYPE_BOOL,
                       check_values, describe, did_you_mean, lookup, text_arg)

# The spec's objects are the option groups ("precision", "workload",
# "parallel", "device", "runtime"); "model" and "solve" are its other members.
OBJECTS = tuple(g for g in GROUPS if g != "model")
TOP_KEYS = ("model",) + OBJECTS + ("solve",)
_KW_HANDLES = (HANDLE_PRECISION, HANDLE_CONFIG)


def keyword_option(name, value):
    """The precision or config option a keyword names. A name both have
    (``kv_cache``: a precision dtype and a workload switch) is decided by the
    value: True/False is the switch, a name the dtype."""
    found = [_BY_HANDLE[h][name] for h in _KW_HANDLES if name in _BY_HANDLE[h]]
    if not found:
        for h in _KW_HANDLES:
            try:
                found.append(lookup(name, h))  # an alias the library accepts
            except Exception:  # noqa: BLE001 - not this handle's; the message below covers both
                pass
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        by_value = [o for o in found if (o.type == TYPE_BOOL) == isinstance(value, bool)]
        if len(by_value) == 1:
            return by_value[0]
        fail(E_UNKNOWN_OPTION, "'%s' is an option of %s: say which with %s" % (
            name, " and of ".join(o.group for o in found),
            " or ".join("%s={'%s': ...}" % (o.group, name) for o in found)))
    if name in _BY_HANDLE[HANDLE_MODEL]:
        fail(E_UNKNOWN_OPTION, "'%s' is a model option: give it with the model, e.g. Model(preset, %s=...) or "
                               "{'arch': {...}}" % (name, name))
    pool = [n for h in _KW_HANDLES for n in _BY_HANDLE[h]] + list(TOP_KEYS)
    fail(E_UNKNOWN_OPTION, "no option is named '%s'%s" % (name, did_you_mean(name, pool)))


def _as_object(value, name_key):
    """A spec member that may be a bare name ("bf16", "H100-80GB") as an object."""
    if value is None:
        return {}
    if isinstance(value, str) and name_key:
        return {name_key: value}
    if isinstance(value, dict):
        return dict(value)
    fail(E_TYPE, "a spec member must be a name or a dict, not %s" % describe(value))


# Where the bare name of an object goes when a keyword turns it into an object.
_NAME_KEY = {"precision": "preset", "device": "name"}


def merge(spec, options):
    """A copy of the job spec with keyword options merged in (keywords win,
    as --set does over --spec). Group keywords (``workload={...}``) merge
    into that object; single options go to the object their group names."""
    out = dict(spec)
    for name, value in options.items():
        if name in ("model", "solve"):
            out[name] = value
        elif name in OBJECTS:
            if isinstance(value, dict) or name not in _NAME_KEY:
                if not isinstance(value, dict):
                    fail(E_TYPE, "%s= takes a dict of options, not %s" % (name, describe(value)))
                merged = _as_object(out.get(name), _NAME_KEY.get(name, ""))
                merged.update(value)
                out[name] = merged
            elif isinstance(out.get(name), dict):
                out[name] = dict(out[name], **{_NAME_KEY[name]: value})
            else:
                out[name] = value
        else:
            group = keyword_option(name, value).group
            obj = _as_object(out.get(group), _NAME_KEY.get(group, ""))
            obj[name] = value
            out[group] = obj
    return out


def _json_default(obj):
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    if hasattr(obj, "__index__"):
        return obj.__index__()
    return float(obj)


# Built once: json.dumps() with any option builds a new encoder per call.
_encode = json.JSONEncoder(default=_json_default, allow_nan=False).encode
_encode_key = json.JSONEncoder(default=_json_default, sort_keys=True, separators=(",", ":")).encode


def spec_text(spec):
    """UTF-8 JSON of a spec: a dict (checked first), or text as given."""
    if isinstance(spec, (str, bytes)):
        return text_arg(spec, "the job spec")
    if not isinstance(spec, dict):
        fail(E_TYPE, "a job spec is a dict or JSON text, not %s" % describe(spec))
    check_values(spec)
    return _encode(spec).encode("utf-8")


def parse_handles(text, want_model=True):
    """(Model or None, Precision, Config) of a spec's JSON text."""
    m, p, c = _lib.ModelP(), _lib.PrecisionP(), _lib.ConfigP()
    check(_L.vramest_spec_parse(text, len(text), ctypes.byref(m) if want_model else None, ctypes.byref(p),
                                ctypes.byref(c)))
    prec = Precision.__new__(Precision)._adopt(p)
    cfg = Config.__new__(Config)._adopt(c)
    if not want_model:
        return None, prec, cfg
    return Model.__new__(Model)._adopt(m), prec, cfg


class Cache:
    """Parsed models and job specs, least recently used out first; bounded
    and thread-safe. :func:`vramest.estimate`, :func:`vramest.run` and the
    solvers use :data:`vramest.default_cache`; pass ``cache=None`` to parse
    every time, or a Cache of your own.

    A model is cached by its spec member when that member is a value: a
    preset name, ``{"arch": {...}}`` or ``{"hf_config": {...}}``. A whole
    job spec with such a model is cached by its JSON text, so a job seen
    again (a scheduler's next pass over its queue) is not parsed again.
    Handles held here are shared between callers and only ever read.

    A member that names a file (``path``, ``gguf``, ``safetensors``,
    ``hf_config_file``), and a spec with a ``solve`` question, go to the
    library's own model cache (``vramest_cache``, one per Cache, made on
    first use), which keys a file's model by its path, inode, size and
    modification time, so an edited file is read again."""

    CACHEABLE = ("arch", "hf_config")

    def __init__(self, models=64, specs=256):
        for name, n in (("models", models), ("specs", specs)):
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                fail(E_INVALID_ARG, "Cache(%s) takes a whole number of at least 0, not %s" % (name, describe(n)))
        self.model_slots, self.spec_slots = models, specs
        self.hits = self.misses = 0
        self._models = collections.OrderedDict()
        self._specs = collections.OrderedDict()
        self._lock = threading.Lock()
        self._c = None  # the library's cache handle, made by c_cache()

    def c_cache(self):
        """The library's cache handle behind this Cache, or None (no model
        slots, or a library without vramest_cache_new)."""
        if self._c is None and self.model_slots and _L.vramest_cache_new is not None:
            with self._lock:
                if self._c is None:
                    h = _lib.CacheP()
                    check(_L.vramest_cache_new(min(self.model_slots, 65536), ctypes.byref(h)))
                    self._c = h
        return self._c

    def __del__(self):
        h, self._c = getattr(self, "_c", None), None
        free = getattr(_L, "vramest_cache_free", None)
        if h is not None and free is not None:
            free(h)

    def __len__(self):
        return len(self._models)

    def __repr__(self):
        return "<vramest.Cache %d of %d models, %d of %d specs, %d hits, %d misses>" % (
            len(self._models), self.model_slots, len(self._specs), self.spec_slots, self.hits, self.misses)

    def key(self, member):
        """The cache key of a spec's model member, or None if it is not cached."""
        if isinstance(member, str):
            return member
        if (isinstance(member, dict) and len(member) == 1 and next(iter(member)) in self.CACHEABLE
                and isinstance(next(iter(member.values())), dict)):
            return _encode_key(member)
        return None

    def _lookup(self, table, key):
        with self._lock:
            hit = table.get(key)
            if hit is not None:
                table.move_to_end(key)
                self.hits += 1
            else:
                self.misses += 1
            return hit

    def _store(self, table, key, value, slots):
        with self._lock:
            table[key] = value
            table.move_to_end(key)
            while len(table) > slots:
                # Dropped, not closed: a caller on another thread may be using
                # it; it is freed when the last user lets go.
                table.popitem(last=False)

    def model(self, member, key=None):
        """The Model of a spec's model member, parsed on first sight."""
        if key is None:
            key = self.key(member)
        model = self._lookup(self._models, key) if key is not None else None
        if model is None:
            model, prec, cfg = parse_handles(spec_text({"model": member}))
            prec.close()
            cfg.close()
            model._name = member if isinstance(member, str) else None
            if key is not None and self.model_slots:
                self._store(self._models, key, model, self.model_slots)
        return model

    def job(self, spec):
        """(Model, Precision, Config) of a job-spec dict, shared and read-only,
        or None when its model is read from a file (not cached)."""
        try:
            text = _encode(spec)
        except (TypeError, ValueError):
            check_values(spec)  # says what is wrong, with the member's path
            raise
        hit = self._lookup(self._specs, text) if self.spec_slots else None
        if hit is not None:
            return hit
        member = spec.get("model")
        key = self.key(member) if member is not None else None
        if key is None:
            return None
        check_values(spec)
        raw = text.encode("utf-8")
        _, prec, cfg = parse_handles(raw, want_model=False)
        job = (self.model(member, key), prec, cfg)
        if self.spec_slots:
            self._store(self._specs, text, job, self.spec_slots)
        return job

    def clear(self):
        with self._lock:
            self._models.clear()
            self._specs.clear()
            if self._c is not None:
                check(_L.vramest_cache_clear(self._c))
