"""The library's option table, read once at import: names, types, bounds,
defaults and descriptions come from C (vramest_option_*), so an option added
there works here, with its checks and its help text, unchanged.

Values are checked here before they reach C, because ctypes would wrap an
integer beyond 64 bits (2**64 + 1 becomes 1) and cut text at a NUL character
('/etc/passwd\\x00.json' becomes '/etc/passwd'); the messages speak Python.
"""
import ctypes
import math
import operator
import os

from ._errors import (_L, E_INVALID_ARG, E_RANGE, E_TYPE, E_UNKNOWN_OPTION, check, fail)

TYPE_I64, TYPE_F64, TYPE_BOOL, TYPE_ENUM, TYPE_STRING = 1, 2, 3, 4, 5
HANDLE_MODEL, HANDLE_PRECISION, HANDLE_CONFIG = 1, 2, 3
HANDLE_NAMES = {HANDLE_MODEL: "Model", HANDLE_PRECISION: "Precision", HANDLE_CONFIG: "Config"}
INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1

# What each setter kind passes to C: 0 = _set_i64, 1 = _set_f64, 2 = _set_str.
SET_I64, SET_F64, SET_STR = 0, 1, 2
_TYPE_WORDS = {TYPE_I64: "a whole number", TYPE_F64: "a number", TYPE_BOOL: "True or False",
               TYPE_ENUM: "a name", TYPE_STRING: "text"}
_LONG_ENUM = 16  # enums with more values than this are not listed in full


def decode(raw):
    """Text from C: UTF-8, with any invalid byte shown as an escape rather
    than raising (a name read from a hostile file must still print)."""
    return raw.decode("utf-8", "backslashreplace") if raw is not None else None


def describe(value):
    """'1.5 (a float)': a value and its Python type, for messages."""
    kind = type(value).__name__
    article = "an" if kind[:1] in "aeiou" else "a"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return "%s (%s %s)" % (text, article, kind)


def text_arg(value, what):
    """UTF-8 bytes for a `const char *` argument; refuses NUL, which C would
    read as the end of the text. `what` names the argument in the message."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, str):
        raw = value.encode("utf-8", "surrogateescape")
    elif isinstance(value, bytes):
        raw = value
    else:
        fail(E_TYPE, "%s must be text, not %s" % (what, describe(value)))
    at = raw.find(b"\0")
    if at >= 0:
        fail(E_INVALID_ARG, "%s %s contains a NUL character at position %d; the library reads text up to "
                            "the first NUL, so it is refused" % (what, describe(value), at))
    return raw


def int64_arg(value, what):
    """A Python integer for an int64_t argument, refused (never wrapped) when
    it needs more than 64 bits."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        fail(E_TYPE, "%s must be a whole number, not %s" % (what, describe(value)))
    value = operator.index(value)
    if not INT64_MIN <= value <= INT64_MAX:
        fail(E_RANGE, "%s: %d does not fit in a 64-bit integer" % (what, value))
    return value


def check_values(obj, path="spec"):
    """Refuse what JSON would carry but C cannot take as meant: integers
    beyond 64 bits, non-finite numbers, NUL in text. Names the member."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if not isinstance(k, str):
                fail(E_TYPE, "%s: keys must be text, not %s" % (path, describe(k)))
            if "\0" in k:
                text_arg(k, "%s: the key" % path)
            check_values(v, "%s.%s" % (path, k) if path != "spec" else "spec: " + k)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            check_values(v, "%s[%d]" % (path, i))
    elif isinstance(obj, str):
        if "\0" in obj:
            text_arg(obj, "%s:" % path)
    elif isinstance(obj, bool) or obj is None:
        pass
    elif isinstance(obj, int):
        if not INT64_MIN <= obj <= INT64_MAX:
            fail(E_RANGE, "%s: %d is beyond 64-bit integers" % (path, obj))  # the C spec reader's words
    elif isinstance(obj, float):
        if not math.isfinite(obj):
            fail(E_RANGE, "%s: %r is not a finite number" % (path, obj))
    elif isinstance(obj, os.PathLike):
        text_arg(obj, "%s:" % path)
    elif not (hasattr(obj, "__index__") or hasattr(obj, "__float__")):
        fail(E_TYPE, "%s: a job spec holds text, numbers, True/False, lists and dicts, not %s"
             % (path, describe(obj)))


def _num(x):
    """1000000000.0 -> '1000000000', 0.999 -> '0.999'."""
    return str(int(x)) if x.is_integer() and abs(x) < 1e18 else "%g" % x


def edit_distance(a, b):
    """Levenshtein distance with adjacent transpositions (optimal string alignment)."""
    prev2, prev = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def close_names(name, names, limit=3):
    """The names a misspelling most likely meant: small edit distance, or a
    name the input starts (a prefix such as 'seq' for 'seq_len')."""
    name = name.lower()
    scored = []
    for cand in set(names):
        d = edit_distance(name, cand.lower())
        if d <= max(1, len(name) // 3) or (len(name) >= 3 and cand.lower().startswith(name)):
            scored.append((d, cand))
    return [c for _, c in sorted(scored)[:limit]]


def did_you_mean(name, names):
    near = close_names(name, names)
    if not near:
        return ""
    return "; did you mean %s?" % " or ".join("'%s'" % n for n in near)


class Option:
    """One option of the library's table: ``name``, ``type`` (TYPE_*),
    ``handle`` (HANDLE_*), bounds ``min``/``max``, ``default`` (text as the
    library prints it), ``group`` (its job-spec object) and ``description``."""

    __slots__ = ("key", "name", "type", "handle", "min", "max", "default", "group", "description", "_values")

    def __init__(self, key):
        t, h = ctypes.c_int(), ctypes.c_int()
        lo, hi, df = ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
        check(_L.vramest_option_info(key, ctypes.byref(t), ctypes.byref(h), ctypes.byref(lo), ctypes.byref(hi),
                                     ctypes.byref(df)))
        self.key = key
        self.name = decode(_L.vramest_option_name(key))
        self.type, self.handle = t.value, h.value
        self.min, self.max = lo.value, hi.value
        self.default = decode(_L.vramest_option_default_str(key))
        self.group = decode(_L.vramest_option_group(key))
        self.description = decode(_L.vramest_option_description(key))
        self._values = None

    def __repr__(self):
        return "<vramest.Option %s (%s: %s; default %s)>" % (self.name, self.group, self.summary(),
                                                            self.default_text())

    @property
    def type_name(self):
        return {TYPE_I64: "integer", TYPE_F64: "number", TYPE_BOOL: "bool", TYPE_ENUM: "name",
                TYPE_STRING: "text"}.get(self.type, "value")

    @property
    def values(self):
        """The names an ENUM option accepts, in value order (empty for others)."""
        if self._values is None:
            names = []
            if self.type == TYPE_ENUM:
                for v in range(int(self.min), int(self.max) + 1):
                    n = _L.vramest_option_value_name(self.key, v)
                    if n:
                        names.append(decode(n))
            self._values = tuple(names)
        return self._values

    def bounds(self):
        """The accepted values in words: 'from 1 to 1000000000', 'one of: ...'."""
        if self.type in (TYPE_I64, TYPE_F64):
            return "from %s to %s" % (_num(self.min), _num(self.max))
        if self.type == TYPE_BOOL:
            return "True or False"
        if self.type == TYPE_ENUM:
            vals = self.values
            if len(vals) > _LONG_ENUM:
                return "one of %d names (vramest.option(%r).values lists them)" % (len(vals), self.name)
            return "one of: " + ", ".join(vals)
        return "text of at most %s bytes" % _num(self.max)

    def _refuse(self, value):
        wants = _TYPE_WORDS[self.type]
        if self.type in (TYPE_I64, TYPE_F64):
            wants += " " + self.bounds()
        elif self.type == TYPE_ENUM:
            wants = self.bounds().replace("one of: ", "one of the names ")
        elif self.type == TYPE_STRING:
            wants = "text (or a list of text, joined with commas)"
        fail(E_TYPE, "option '%s' takes %s, not %s" % (self.name, wants, describe(value)))

    def to_c(self, value):
        """(setter kind, C value) for a Python value, or a plain-English error."""
        t = self.type
        if t == TYPE_I64:
            if value.__class__ is not int:
                if isinstance(value, bool) or not hasattr(value, "__index__"):
                    self._refuse(value)
                value = operator.index(value)
            if not INT64_MIN <= value <= INT64_MAX:
                fail(E_RANGE, "option '%s': %d does not fit in a 64-bit integer (it takes a whole number %s)"
                     % (self.name, value, self.bounds()))
            return SET_I64, value
        if t == TYPE_STRING or t == TYPE_ENUM:
            if isinstance(value, (list, tuple)) and t == TYPE_STRING:
                if not all(isinstance(v, str) for v in value):
                    self._refuse(value)
                value = ",".join(value)
            elif not isinstance(value, str):
                self._refuse(value)
            return SET_STR, text_arg(value, "option '%s':" % self.name)
        if t == TYPE_BOOL:
            if value is True or value is False:
                return SET_I64, int(value)
            if not isinstance(value, bool) and hasattr(value, "__index__") and operator.index(value) in (0, 1):
                return SET_I64, operator.index(value)
            self._refuse(value)
        if t == TYPE_F64:
            if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
                self._refuse(value)
            try:
                f = float(value)
            except (OverflowError, ValueError, TypeError):
                f = math.inf
            if not math.isfinite(f):
                fail(E_RANGE, "option '%s' takes a finite number %s, not %s" % (self.name, self.bounds(), value))
            return SET_F64, f
        self._refuse(value)

    def default_value(self):
        """The default as a Python value (None where the option has none)."""
        d = self.default
        if d is None or (d == "" and self.type not in (TYPE_STRING, TYPE_ENUM)):
            return None
        try:
            if self.type == TYPE_I64:
                return int(d)
            if self.type == TYPE_F64:
                return float(d)
        except ValueError:
            return d
        if self.type == TYPE_BOOL:
            return d == "true"
        return d

    def summary(self):
        """'integer from 1 to 1000000000', 'one of: load, train, infer', ..."""
        if self.type in (TYPE_I64, TYPE_F64):
            return "%s %s" % (self.type_name, self.bounds())
        if self.type == TYPE_STRING:
            return "text, at most %s bytes" % _num(self.max)
        return self.bounds()

    def default_text(self):
        if self.type == TYPE_BOOL and self.default in ("true", "false"):
            return str(self.default == "true")
        return self.default if self.default not in (None, "") else "none"

    def help_line(self):
        return "        %s (%s; default %s)\n            %s" % (self.name, self.summary(), self.default_text(),
                                                              self.description)


def _load_table():
    out = []
    key = ctypes.c_int()
    for i in range(_L.vramest_option_count()):
        check(_L.vramest_option_at(i, ctypes.byref(key)))
        out.append(Option(key.value))
    return tuple(out)


OPTIONS = _load_table()
# name -> Option per handle kind; aliases are added as they are first asked for.
_BY_HANDLE = {h: {o.name: o for o in OPTIONS if o.handle == h} for h in HANDLE_NAMES}
_BY_KEY = {o.key: o for o in OPTIONS}
GROUPS = tuple(dict.fromkeys(o.group for o in OPTIONS))


def names(handle):
    return tuple(o.name for o in OPTIONS if o.handle == handle)


def lookup(name, handle):
    """The Option of `handle` named `name` (or an alias the library accepts),
    or an UnknownOption that says what was probably meant."""
    table = _BY_HANDLE[handle]
    opt = table.get(name)
    if opt is not None:
        return opt
    raw = text_arg(name, "an option name")
    key = ctypes.c_int()
    if _L.vramest_option_lookup(handle, raw, ctypes.byref(key)) == 0:
        opt = table[name] = _BY_KEY[key.value]
        return opt
    unknown(name, (handle,))


def unknown(name, handles):
    """Raise UnknownOption for a name no handle in `handles` has, naming the
    handle that does have it, or the closest names."""
    where = " or ".join(HANDLE_NAMES[h] for h in handles)
    for h in HANDLE_NAMES:
        if h not in handles and name in _BY_HANDLE[h]:
            fail(E_UNKNOWN_OPTION, "'%s' is a %s option, not a %s one" % (name, HANDLE_NAMES[h], where))
    pool = [n for h in handles for n in _BY_HANDLE[h]]
    fail(E_UNKNOWN_OPTION, "no %s option is named '%s'%s" % (where, name, did_you_mean(name, pool)))


def option(name, handle=None):
    """The :class:`Option` called ``name``; ``handle`` (HANDLE_MODEL,
    HANDLE_PRECISION, HANDLE_CONFIG) picks among same-named options
    (``kv_cache`` is a precision dtype and a workload switch)."""
    if handle is not None:
        return lookup(name, handle)
    for h in (HANDLE_MODEL, HANDLE_PRECISION, HANDLE_CONFIG):
        if name in _BY_HANDLE[h]:
            return _BY_HANDLE[h][name]
    key = ctypes.c_int()
    if _L.vramest_option_from_name(text_arg(name, "an option name"), ctypes.byref(key)) == 0:
        return _BY_KEY[key.value]
    unknown(name, tuple(HANDLE_NAMES))


def options():
    """Every option the library knows, in its table's order."""
    return list(OPTIONS)


def table(handles):
    """The options of some handles as help text, by job-spec group."""
    lines = []
    for group in GROUPS:
        opts = [o for o in OPTIONS if o.handle in handles and o.group == group]
        if opts:
            lines.append("    %s:" % group)
            lines.extend(o.help_line() for o in opts)
    return "\n".join(lines)
