"""Estimates and solvers. Each entry point takes the job three ways: handles
(Model, Precision, Config), names and dicts (a preset, a precision preset, a
dict of options), or a whole job-spec dict; and keyword options on top of
any of them (``batch_size=8, device="H100-80GB"``).

run() and the solvers call the C API directly, without JSON. estimate()
returns the plan as the CLI's --json prints it; for a spec whose model is a
value (a preset name, an inline architecture) it reuses the parsed model.
"""
import ctypes
import json

from . import _lib
from ._errors import _L, E_INVALID_ARG, E_PARSE, E_TYPE, E_UNKNOWN_OPTION, check, fail, raise_last
from ._handles import Config, Model, Precision
from ._options import HANDLE_CONFIG, HANDLE_PRECISION, describe, int64_arg, lookup
from ._result import Result, json_out
from ._spec import OBJECTS, Cache, keyword_option, merge, parse_handles, spec_text

default_cache = Cache()  # see Cache: parsed models and specs, bounded
_DEFAULT = object()  # "the default cache" (None means no cache)


def _cache(cache):
    if cache is _DEFAULT:
        return default_cache
    if cache is not None and not isinstance(cache, Cache):
        fail(E_TYPE, "cache must be a vramest.Cache or None, not %s" % describe(cache))
    return cache


def _set(handle, opt, value):
    how, cval = opt.to_c(value)
    rc = handle._setters[how](handle.live(), opt.key, cval)
    if rc < 0:
        raise_last(rc)


class _Job:
    """The three handles of one call; precision and config are copied before
    a keyword changes them, so a caller's handle is never modified."""

    __slots__ = ("model", "precision", "config", "_own_p", "_own_c")

    def __init__(self, model, precision, config, owned=False):
        self.model, self.precision, self.config = model, precision, config
        self._own_p = self._own_c = owned

    def writable(self, handle_kind):
        if handle_kind == HANDLE_PRECISION:
            if self.precision is None:
                self.precision, self._own_p = Precision(), True
            elif not self._own_p:
                self.precision, self._own_p = self.precision.clone(), True
            return self.precision
        if self.config is None:
            self.config, self._own_c = Config(), True
        elif not self._own_c:
            self.config, self._own_c = self.config.clone(), True
        return self.config

    def apply(self, options):
        for name, value in options.items():
            if name in OBJECTS and name not in ("precision", "device"):
                if not isinstance(value, dict):
                    fail(E_TYPE, "%s= takes a dict of options, not %s" % (name, describe(value)))
                for key, v in value.items():
                    opt = lookup(key, HANDLE_CONFIG)
                    if opt.group != name:
                        fail(E_UNKNOWN_OPTION, "'%s' belongs in %s, not in %s" % (key, opt.group, name))
                    _set(self.writable(HANDLE_CONFIG), opt, v)
            elif name == "device" and isinstance(value, dict):
                for key, v in value.items():
                    opt = lookup("device" if key == "name" else key, HANDLE_CONFIG)
                    if opt.group != "device":
                        fail(E_UNKNOWN_OPTION, "'%s' belongs in %s, not in device" % (key, opt.group))
                    _set(self.writable(HANDLE_CONFIG), opt, v)
            elif name in ("model", "solve", "precision"):
                fail(E_TYPE, "%s= is not an option here: give it as an argument (or use estimate() for a "
                             "spec's solve)" % name)
            else:
                opt = keyword_option(name, value)
                _set(self.writable(opt.handle), opt, value)
        return self

    def pointers(self):
        """The C pointers; None (library defaults) for an absent precision/config."""
        return (self.model.live(), self.precision.live() if self.precision is not None else None,
                self.config.live() if self.config is not None else None)


def _model_of(model, cache):
    if isinstance(model, Model):
        model.live()
        return model
    if isinstance(model, str):
        return cache.model(model) if cache is not None else Model(model)
    fail(E_TYPE, "the model is a preset name, a vramest.Model or a job-spec dict, not %s" % describe(model))


def _precision_of(precision):
    if precision is None or isinstance(precision, Precision):
        return precision
    if isinstance(precision, str):
        return Precision(precision)
    if isinstance(precision, dict):
        options = dict(precision)
        return Precision(options.pop("preset", None), **options)
    fail(E_TYPE, "the precision is a preset name, a dict of options or a vramest.Precision, not %s"
         % describe(precision))


def _config_of(config):
    if config is None or isinstance(config, Config):
        return config
    if isinstance(config, dict):
        return Config(**config)
    fail(E_TYPE, "the config is a dict of options or a vramest.Config, not %s" % describe(config))


def _spec_job(spec, cache, options):
    """The handles of a job-spec dict (keywords merged in), cached when its
    model is a value."""
    if options:
        spec = merge(spec, options)
    if "solve" in spec:
        fail(E_INVALID_ARG, "this call does not answer a spec's \"solve\": use estimate() for the plan with "
                            "its answer, or solve_max() / solve_min_gpus() / advise()")
    shared = cache.job(spec) if cache is not None else None
    if shared is not None:
        return _Job(*shared)
    return _Job(*parse_handles(spec_text(spec)), owned=True)


def _job(model, precision, config, options, cache):
    cache = _cache(cache)
    if isinstance(model, dict):
        if precision is not None or config is not None:
            fail(E_TYPE, "a job spec carries its own precision and config: give changes as keywords")
        return _spec_job(model, cache, options)
    if isinstance(model, str) and config is None and (precision is None or isinstance(precision, (str, dict))):
        # Names and keywords are a job spec: the same route (and cache) as a dict.
        spec = {"model": model} if precision is None else {"model": model, "precision": precision}
        return _spec_job(spec, cache, options)
    job = _Job(_model_of(model, cache), _precision_of(precision), _config_of(config))
    return job.apply(options) if options else job


def _plan(job):
    # vramest_plan_json: the plan vramest_spec_plan writes for the same job
    # (a job that does not fit comes with its fix), from handles.
    return json_out(lambda buf, cap, need: _L.vramest_plan_json(*job.pointers(), 0, 0, buf, cap, need))


def _estimate(job):
    out = _lib.ResultP()
    rc = _L.vramest_estimate(*job.pointers(), ctypes.byref(out))
    if rc < 0:
        raise_last(rc)
    return Result(out)


def _c_estimate(cache, spec):
    """A Result from the library's model cache behind ``cache``, or None when
    there is none (a library without it, or a Cache without model slots)."""
    handle = cache.c_cache()
    if handle is None:
        return None
    text = spec_text(spec)
    out = _lib.ResultP()
    rc = _L.vramest_spec_estimate_cached(handle, text, len(text), ctypes.byref(out))
    if rc < 0:
        raise_last(rc)
    return Result(out)


def _spec_plan(cache, text):
    """The plan of a spec's JSON text, its model from the library's cache
    when there is one."""
    handle = cache.c_cache() if cache is not None else None
    if handle is not None:
        return json_out(lambda buf, cap, need: _L.vramest_spec_plan_cached(handle, text, len(text), buf, cap, need))
    return json_out(lambda buf, cap, need: _L.vramest_spec_plan(text, len(text), buf, cap, need))


def run(model, precision=None, config=None, *, cache=_DEFAULT, **options):
    """Estimate one job and return a :class:`Result`.

    ``model`` is a :class:`Model`, a preset name, or a whole job-spec dict;
    ``precision`` a :class:`Precision`, a preset name or a dict of options;
    ``config`` a :class:`Config` or a dict of options. Keyword options are
    applied on top (to copies: handles you pass are not changed), e.g.
    ``run("llama-3.1-8b", mode="train", batch_size=4, device="H100-80GB")``;
    ``workload=``, ``parallel=``, ``runtime=`` and ``device=`` take dicts as
    in a job spec. Names and keywords make a job spec, read by the library's
    spec reader and kept in ``cache`` like a dict; handles are used as they
    are."""
    if model.__class__ is dict and cache is _DEFAULT and precision is None and config is None and not options:
        # A scheduler's loop: a spec seen before costs its JSON text and a lookup.
        shared = default_cache.job(model) if "solve" not in model else None
        if shared is not None:
            m, p, c = shared  # the cache's own handles: never closed while it holds them
            out = _lib.ResultP()
            rc = _L.vramest_estimate(m._ptr, p._ptr, c._ptr, ctypes.byref(out))
            if rc < 0:
                raise_last(rc)
            return Result(out)
    if model.__class__ is dict and precision is None and config is None:
        # A model read from a file: the library's cache keys it by the file.
        c = _cache(cache)
        spec = merge(model, options) if options else model
        if c is not None and "solve" not in spec and c.key(spec.get("model")) is None:
            result = _c_estimate(c, spec)
            if result is not None:
                return result
    return _estimate(_job(model, precision, config, options, cache))


def _looks_like_json(text):
    head = text.lstrip()[:1]
    return head in ("{", b"{")


def _no_duplicates(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            fail(E_PARSE, "spec: duplicate key \"%s\"" % k)
        seen[k] = v
    return seen


def estimate(spec=None, /, *, cache=_DEFAULT, **options):
    """The plan of a job as a dict: exactly what ``vramest --spec FILE --json``
    prints, with a spec's ``solve`` answered.

    ``spec`` is a job-spec dict, its JSON text, a model preset name, or a
    :class:`Model`; keyword options are merged in (keywords win):
    ``estimate("llama-3.1-8b", mode="train", batch_size=4, device="H100-80GB")``
    equals ``estimate({"model": "llama-3.1-8b", "workload": {"mode": "train",
    "batch_size": 4}, "device": "H100-80GB"})``. Models given by value are
    parsed once and reused (``cache``; None parses every time)."""
    if isinstance(spec, Model):
        return _plan(_job(spec, None, None, options, cache))
    if isinstance(spec, (str, bytes)) and _looks_like_json(spec):
        if not options:
            return _spec_plan(_cache(cache), spec_text(spec))
        try:
            spec = json.loads(spec, object_pairs_hook=_no_duplicates)
        except ValueError as e:
            fail(E_PARSE, "spec: %s" % e)
    elif isinstance(spec, str):
        spec = {"model": spec}
    elif spec is None:
        spec = {}
    elif not isinstance(spec, dict):
        fail(E_TYPE, "estimate() takes a job-spec dict, its JSON text, a model name or a Model, not %s"
             % describe(spec))
    if options:
        spec = merge(spec, options)
    cache = _cache(cache)
    shared = cache.job(spec) if cache is not None and "solve" not in spec else None
    if shared is None:
        return _spec_plan(cache, spec_text(spec))
    return _plan(_Job(*shared))


def parse_spec(spec, model=True):
    """A job spec (dict or JSON text) as (Model, Precision, Config) handles.

    With ``model=False`` the "model" member must still be present but is not
    read, and the first element is None: a scheduler that caches parsed
    models reads only each job's precision and workload."""
    return parse_handles(spec_text(spec), want_model=bool(model))


def check_fit(model, precision=None, config=None, *, cache=_DEFAULT, **options):
    """(fits, margin_bytes) on the config's device; takes what :func:`run` takes."""
    job = _job(model, precision, config, options, cache)
    fits, margin = ctypes.c_int(), ctypes.c_int64()
    check(_L.vramest_check_fit(*job.pointers(), ctypes.byref(fits), ctypes.byref(margin)))
    return bool(fits.value), margin.value


def solve_max(model, precision=None, config=None, key="batch_size", *, cache=_DEFAULT, **options):
    """(value, device_total_bytes): the largest ``key`` (batch_size, seq_len,
    prompt_len, gen_len, ...) that fits the device; raises DoesNotFit when
    none does. Takes what :func:`run` takes."""
    if not isinstance(key, str):
        fail(E_TYPE, "key is an option name such as 'batch_size', not %s" % describe(key))
    opt = lookup(key, HANDLE_CONFIG)
    job = _job(model, precision, config, options, cache)
    value, size = ctypes.c_int64(), ctypes.c_uint64()
    check(_L.vramest_solve_max(*job.pointers(), opt.key, ctypes.byref(value), ctypes.byref(size)))
    return value.value, size.value


def solve_min_gpus(model, precision=None, config=None, max_gpus=4096, *, cache=_DEFAULT, **options):
    """The smallest world size that fits, trying up to ``max_gpus`` (see the
    C documentation for how the layout grows). Takes what :func:`run` takes."""
    limit = int64_arg(max_gpus, "max_gpus")
    job = _job(model, precision, config, options, cache)
    out = ctypes.c_int64()
    check(_L.vramest_solve_min_gpus(*job.pointers(), limit, ctypes.byref(out)))
    return out.value


def advise(model, precision=None, config=None, *, cache=_DEFAULT, **options):
    """Memory-saving changes, cheapest first: a list of {change, saves_bytes,
    device_total, fits}. Takes what :func:`run` takes."""
    job = _job(model, precision, config, options, cache)
    m, p, c = job.pointers()
    return json_out(lambda buf, cap, need: _L.vramest_advise_json(m, p, c, buf, cap, need))
