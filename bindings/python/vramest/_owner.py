"""One C pointer owned by a Python object, freed exactly once: by close(),
at the end of a with-block, or when the object is collected."""
import threading

_close_lock = threading.RLock()  # re-entrant: a collection may run a __del__ inside close()


class Owner:
    """Base of the handle and result classes; ``_free`` is the C function
    that frees ``_ptr`` (None once freed)."""

    __slots__ = ("_ptr", "__weakref__")
    _free = None

    def close(self):
        """Free the C object now (idempotent, safe from several threads)."""
        with _close_lock:
            ptr, self._ptr = self._ptr, None
        if ptr:
            self._free(ptr)

    def __del__(self):
        # No lock: nothing else refers to an object being collected.
        ptr = getattr(self, "_ptr", None)
        if ptr:
            self._ptr = None
            self._free(ptr)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __reduce_ex__(self, protocol):
        # The default would copy the pointer: two owners, freed twice.
        raise TypeError("a vramest.%s holds a C object and cannot be pickled" % type(self).__name__)

    @property
    def closed(self):
        return getattr(self, "_ptr", None) is None

    @property
    def _as_parameter_(self):
        # A closed object reaches C as NULL, which the library refuses.
        return self._ptr
