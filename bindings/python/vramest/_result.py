"""Result: one immutable estimate, read through the C getters (no JSON)
unless the whole plan is asked for. Names of categories, devices, figures and
phases come from the library at import."""
import ctypes
import json
import threading

from ._errors import (_L, E_BUFFER_TOO_SMALL, E_INTERNAL, E_UNKNOWN_CATEGORY, E_UNSUPPORTED, check, fail,
                      raise_last)
from ._options import decode, did_you_mean
from ._owner import Owner

GIB = float(1 << 30)


def _names(fn, limit=256):
    """Names of an enum the library numbers from 0: until the first NULL."""
    out = []
    for i in range(limit):
        raw = fn(i)
        if raw is None:
            break
        out.append(decode(raw))
    return tuple(out)


CATEGORIES = tuple(decode(_L.vramest_category_name(i)) for i in range(_L.vramest_category_count()))
DEVICES = _names(_L.vramest_device_name)
VALUES = _names(_L.vramest_value_name)
PHASES = _names(_L.vramest_phase_name)
_CAT_INDEX = {n: i for i, n in enumerate(CATEGORIES)}
_DEV_INDEX = {n: i for i, n in enumerate(DEVICES)}
_VAL_INDEX = {n: i for i, n in enumerate(VALUES)}


def _phase(v):
    return PHASES[v] if 0 <= v < len(PHASES) else v


# How a figure reads in Python, where it is not a count of bytes or things.
_AS_PYTHON = {"fits": bool, "peak_phase": _phase}


def gib(n):
    """Bytes as GiB (2**30 bytes), a float: ``vramest.gib(plan["gpu"]["device_total"])``."""
    return n / GIB


def format_bytes(n, digits=2):
    """Bytes for people, in binary units: ``format_bytes(85899345920)`` is '80.00 GiB'."""
    if n is None:
        return "n/a"
    sign, n = ("-", -n) if n < 0 else ("", n)
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return "%s%.*f %s" % (sign, digits, n / size, unit)
    return "%s%d B" % (sign, n)


def _index(table, name, what):
    """The C index of a category, device or figure given by name or index
    (an index is checked here: ctypes would wrap 2**32 to 0)."""
    if isinstance(name, int) and not isinstance(name, bool):
        if 0 <= name < len(table):
            return name
        fail(E_UNKNOWN_CATEGORY, "no %s has the index %d (valid: 0 to %d)" % (what, name, len(table) - 1))
    i = table.get(name) if isinstance(name, str) else None
    if i is None:
        fail(E_UNKNOWN_CATEGORY, "no %s is named %r (valid: %s)%s" % (what, name, ", ".join(table),
                                                                      did_you_mean(str(name), table)))
    return i


_tls = threading.local()


def json_out(call, first=16384):
    """Call a C function with the (buf, cap, &needed) protocol and parse the
    JSON it writes. Each thread keeps its buffer, grown when a plan needs it."""
    buf = getattr(_tls, "buf", None)
    if buf is None:
        buf = _tls.buf = ctypes.create_string_buffer(first)
    needed = ctypes.c_size_t(0)
    for _ in range(2):
        rc = call(buf, len(buf), ctypes.byref(needed))
        if rc == E_BUFFER_TOO_SMALL:
            buf = _tls.buf = ctypes.create_string_buffer(needed.value)
            continue
        if rc < 0:
            raise_last(rc)
        return json.loads(ctypes.string_at(buf, needed.value - 1))
    fail(E_INTERNAL, "the JSON output kept growing")


class Result(Owner):
    """An immutable estimate. ``result["activations"]`` is the GPU bytes of a
    category; ``peak_allocated``, ``peak_reserved``, ``device_total`` and
    ``fits`` are the headline figures; :meth:`as_dict` has everything in
    bytes, :meth:`json` the whole plan (what ``vramest --json`` prints)."""

    __slots__ = ()
    _free = _L.vramest_result_free

    def __init__(self, ptr):
        self._ptr = ptr

    def __copy__(self):
        return self  # immutable

    def __deepcopy__(self, memo):
        return self

    def bytes(self, category, device="gpu"):
        """Bytes of one category (a name or an index) on a device ("gpu", "host", "nvme")."""
        out = ctypes.c_uint64()
        check(_L.vramest_result_get(self._ptr, _index(_DEV_INDEX, device, "device"),
                                    _index(_CAT_INDEX, category, "category"), ctypes.byref(out)))
        return out.value

    __getitem__ = bytes

    def band(self, category, device="gpu"):
        """(low, high) bytes of a category."""
        lo, hi = ctypes.c_uint64(), ctypes.c_uint64()
        check(_L.vramest_result_get_band(self._ptr, _index(_DEV_INDEX, device, "device"),
                                         _index(_CAT_INDEX, category, "category"), ctypes.byref(lo),
                                         ctypes.byref(hi)))
        return lo.value, hi.value

    def as_array(self, device="gpu"):
        """Every category of a device, in category order (one bulk call)."""
        n = len(CATEGORIES)
        arr = (ctypes.c_uint64 * n)()
        count = ctypes.c_size_t()
        check(_L.vramest_result_get_all(self._ptr, _index(_DEV_INDEX, device, "device"), arr, n,
                                        ctypes.byref(count)))
        return list(arr[:count.value])

    def value(self, name):
        """A figure by name (see VALUES) as the library gives it (counts and
        bytes as int); None where it does not apply (fits without a device)."""
        out = ctypes.c_uint64()
        rc = _L.vramest_result_value(self._ptr, _index(_VAL_INDEX, name, "figure"), ctypes.byref(out))
        if rc == E_UNSUPPORTED:
            return None
        check(rc)
        return out.value

    def value_band(self, name):
        """(low, high) bytes of peak_allocated, peak_reserved or device_total."""
        lo, hi = ctypes.c_uint64(), ctypes.c_uint64()
        check(_L.vramest_result_value_band(self._ptr, _index(_VAL_INDEX, name, "figure"), ctypes.byref(lo),
                                           ctypes.byref(hi)))
        return lo.value, hi.value

    @property
    def peak_allocated(self):
        """Bytes: what torch.cuda.max_memory_allocated() would report."""
        return self.value("peak_allocated")

    @property
    def peak_reserved(self):
        """Bytes: what torch.cuda.max_memory_reserved() would report."""
        return self.value("peak_reserved")

    @property
    def device_total(self):
        """Bytes: what nvidia-smi would show for the process."""
        return self.value("device_total")

    @property
    def device_capacity(self):
        """Bytes of the device, or None when no device was given."""
        return self.value("device_capacity") or None

    @property
    def fits(self):
        """True or False on the configured device; None without a device."""
        v = self.value("fits")
        return None if v is None else bool(v)

    @property
    def peak_phase(self):
        """The phase of the step where the peak happens ("forward", "decode", ...)."""
        v = self.value("peak_phase")
        return None if v is None else _phase(v)

    @property
    def warnings(self):
        return [decode(_L.vramest_result_warning(self._ptr, i))
                for i in range(_L.vramest_result_warning_count(self._ptr))]

    def as_dict(self):
        """Categories per device and every figure, in bytes (counts for
        params_*), with real bools (``fits``), phase names (``peak_phase``),
        None where a figure does not apply, and the warnings."""
        out = {dev: dict(zip(CATEGORIES, self.as_array(dev))) for dev in DEVICES}
        for name in VALUES:
            v = self.value(name)
            conv = _AS_PYTHON.get(name)
            out[name] = conv(v) if conv is not None and v is not None else v
        out["warnings"] = self.warnings
        return out

    def json(self):
        """The whole plan as a dict: the same JSON as the CLI's --json."""
        return json_out(lambda buf, cap, need: _L.vramest_result_json(self._ptr, buf, cap, need))

    def __repr__(self):
        if self._ptr is None:
            return "<vramest.Result (closed)>"
        total, capacity, fits = self.device_total, self.device_capacity, self.fits
        text = "peak_allocated %s, device_total %s (peak in %s)" % (
            format_bytes(self.peak_allocated), format_bytes(total), self.peak_phase)
        if fits is None:
            verdict = "no device given"
        elif fits:
            verdict = "fits %s (margin %s)" % (format_bytes(capacity), format_bytes(capacity - total))
        else:
            verdict = "does not fit %s (short by %s)" % (format_bytes(capacity), format_bytes(total - capacity))
        return "<vramest.Result %s: %s>" % (text, verdict)
