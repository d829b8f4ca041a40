"""The exceptions of trit: one class per trit_status of the C API.

Every failed library call raises the class of its status with the C API's
message (trit_last_error()), which names what was wrong. Each class also
derives from the built-in exception a Python program would expect to catch
(a bad argument is a ValueError, a missing file a LookupError, ...).
"""

from __future__ import annotations


class Error(Exception):
    """A failed trit call. ``status`` is the C API's trit_status (an int) and
    ``status_name`` its name ("invalid argument", ...)."""

    status: int = -1
    status_name: str = "error"


class InvalidArgumentError(Error, ValueError):
    """A bad option, an id outside the vocabulary, an engine that cannot run the file."""

    status, status_name = 1, "invalid argument"


class NotFoundError(Error, LookupError):
    """A file, store name or metadata key that is not there."""

    status, status_name = 2, "not found"


class IoError(Error, OSError):
    """The operating system refused (open, read, map)."""

    status, status_name = 3, "i/o error"


class CorruptError(Error, ValueError):
    """Bytes that do not follow their format (a truncated or damaged GGUF file)."""

    status, status_name = 4, "corrupt"


class UnsupportedError(Error, NotImplementedError):
    """Well-formed, but beyond what this library implements (yet)."""

    status, status_name = 5, "unsupported"


class BufferTooSmallError(Error):
    """A buffer too small; the bindings size their buffers, so seeing this is a bug."""

    status, status_name = 6, "buffer too small"


class OutOfMemoryError(Error, MemoryError):
    """The library could not allocate what the call needs."""

    status, status_name = 7, "out of memory"


class InternalError(Error, RuntimeError):
    """A bug in trit: please report the message."""

    status, status_name = 8, "internal error"


_BY_STATUS = {
    cls.status: cls
    for cls in (
        InvalidArgumentError,
        NotFoundError,
        IoError,
        CorruptError,
        UnsupportedError,
        BufferTooSmallError,
        OutOfMemoryError,
        InternalError,
    )
}


def from_status(status: int, message: str) -> Error:
    """The exception for a trit_status and its message (the native module's
    one way of raising). An unknown status (a newer library) is a plain Error."""
    cls = _BY_STATUS.get(status)
    if cls is None:
        error = Error(message)
        error.status = status
        return error
    return cls(message)
