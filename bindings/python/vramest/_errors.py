"""Exceptions: one class per C status, carrying the status and the library's
message, each also a subclass of the built-in exception a Python caller
would catch for that kind of mistake (ValueError, TypeError, OSError)."""
from ._lib import load

_L, LIBRARY_PATH = load()


class Error(Exception):
    """A libvramest failure: ``status`` is the C status code, ``message`` the
    explanation (the option, the value, the byte offset)."""

    status = None

    def __init__(self, status, message):
        self.status = status
        self.message = message
        name = _L.vramest_status_string(status).decode()
        super().__init__("%s: %s" % (name, message) if message else name)


class InvalidArgument(Error, ValueError): pass      # noqa: E701
class OutOfMemory(Error, MemoryError): pass         # noqa: E701
class FileError(Error, OSError): pass               # noqa: E701
class ParseError(Error, ValueError): pass           # noqa: E701
class Unsupported(Error): pass                      # noqa: E701
class UnknownOption(Error, ValueError): pass        # noqa: E701
class WrongType(Error, TypeError): pass             # noqa: E701
class OutOfRange(Error, ValueError): pass           # noqa: E701
class Conflict(Error, ValueError): pass             # noqa: E701
class IncompleteModel(Error, ValueError): pass      # noqa: E701
class UnknownCategory(Error, ValueError): pass      # noqa: E701
class BufferTooSmall(Error): pass                   # noqa: E701
class WrongHandle(Error, ValueError): pass          # noqa: E701
class UnknownModelType(Error, ValueError): pass     # noqa: E701
class Overflow(Error, OverflowError): pass          # noqa: E701
class InvalidModel(Error, ValueError): pass         # noqa: E701
class UnknownName(Error, ValueError): pass          # noqa: E701
class LimitExceeded(Error, ValueError): pass        # noqa: E701
class DoesNotFit(Error): pass                       # noqa: E701
class InternalError(Error): pass                    # noqa: E701


class NeedMoreData(Error):
    """The buffer is a prefix of a file; ``needed`` is how many bytes to supply."""

    def __init__(self, status, message, needed=0):
        super().__init__(status, message)
        self.needed = needed


E_INVALID_ARG, E_PARSE, E_NEED_MORE_DATA, E_UNSUPPORTED = -1, -4, -5, -6
E_UNKNOWN_OPTION, E_TYPE, E_RANGE, E_UNKNOWN_CATEGORY = -7, -8, -9, -12
E_BUFFER_TOO_SMALL, E_UNKNOWN_NAME, E_INTERNAL = -13, -18, -99

ERRORS = {-1: InvalidArgument, -2: OutOfMemory, -3: FileError, -4: ParseError, -5: NeedMoreData,
          -6: Unsupported, -7: UnknownOption, -8: WrongType, -9: OutOfRange, -10: Conflict,
          -11: IncompleteModel, -12: UnknownCategory, -13: BufferTooSmall, -14: WrongHandle,
          -15: UnknownModelType, -16: Overflow, -17: InvalidModel, -18: UnknownName,
          -19: LimitExceeded, -20: DoesNotFit, -99: InternalError}


def fail(status, message, **extra):
    """Raise the exception of a status with a message written here."""
    raise ERRORS.get(status, Error)(status, message, **extra)


def raise_last(status, **extra):
    # The C message is thread-local and read on the calling thread right after
    # the call, so it is the message of this very failure.
    raw = _L.vramest_last_error_message()
    fail(status, raw.decode("utf-8", "backslashreplace") if raw else "", **extra)


def check(status):
    if status < 0:
        raise_last(status)
    return status
