"""
The exceptions of launchrank_client.

Every error is a :class:`LaunchrankError` carrying the API's error object (``status``,
``code``, ``message``, ``path``), whichever back end raised it, so that one ``except``
clause serves both. Each class also subclasses the built-in exception a Python caller
would expect of that failure, so code that knows nothing of launchrank still handles it
sensibly: a daemon that cannot be reached is a :class:`ConnectionError`, a request the
server refuses (4xx) a :class:`ValueError`, an unknown device name a
:class:`LookupError`, a server-side failure (5xx) a :class:`RuntimeError`, a reply too
late a :class:`TimeoutError`.

``status`` is the HTTP status of the error. The local back end (the ``launchrank``
executable) reports errors as the same JSON object without a status, so it is filled in
from the ``code`` with the table of docs/api.md ("Errors"): the same mistake raises the
same class with the same status over HTTP and locally.
"""

from typing import Dict, Optional, Type

__all__ = [
    "LaunchrankError",
    "LaunchrankConnectionError",
    "LaunchrankTimeoutError",
    "LaunchrankRequestError",
    "LaunchrankNotFoundError",
    "LaunchrankServerError",
    "LaunchrankUnavailableError",
    "LaunchrankResponseError",
    "LaunchrankUnsupportedError",
    "error_for",
    "STATUS_OF_CODE",
]

# docs/api.md, "Errors": the HTTP status of each stable error code.
STATUS_OF_CODE: Dict[str, int] = {
    "invalid_json": 400,
    "invalid_request": 400,
    "unsupported_expression": 422,
    "not_launchable": 422,
    "limit_exceeded": 413,
    "budget_exceeded": 422,
    "not_found": 404,
    "method_not_allowed": 405,
    "unavailable": 503,
    "out_of_memory": 503,
    "internal": 500,
}


class LaunchrankError(Exception):
    """An error launchrank answered with, or a failure to get an answer at all.

    Attributes:
        status:  HTTP status (0 when no answer came back).
        code:    stable machine-readable code, e.g. "invalid_request",
                 "unsupported_expression", "not_found", "not_launchable",
                 "unreachable"; switch on this, not on the message.
        message: the sentence for the user.
        path:    JSON path of the offending input ("kernel.fields[0].loads[3][1]"),
                 or "" when the error is not about one value.
        retry_after: seconds the server asked to wait (its Retry-After), else None.
    """

    retry_after: Optional[float] = None

    def __init__(self, status: int, code: str, message: str, path: str = "") -> None:
        self.status = status
        self.code = code
        self.message = message
        self.path = path or ""
        super().__init__(str(self))

    def __str__(self) -> str:
        where = " at " + self.path if self.path else ""
        return "%s%s: %s" % (self.code, where, self.message)

    def __repr__(self) -> str:
        return "%s(status=%r, code=%r, message=%r, path=%r)" % (
            type(self).__name__, self.status, self.code, self.message, self.path)

    def __reduce__(self):
        # OSError-based subclasses would otherwise be pickled with OSError's own
        # arguments; rebuild every class from the four fields instead.
        return (_rebuild, (type(self), self.status, self.code, self.message, self.path,
                           dict(self.__dict__)))


def _rebuild(cls, status, code, message, path, state):
    err = cls.__new__(cls)
    LaunchrankError.__init__(err, status, code, message, path)
    err.__dict__.update(state)
    return err


class LaunchrankConnectionError(LaunchrankError, ConnectionError):
    """The back end could not be reached: the daemon refused, did not answer or could not
    be resolved (HTTP), or the executable is missing or cannot run (local); code
    "unreachable", status 0. ``url`` names the daemon or the executable."""

    def __init__(self, url: str, reason: str, code: str = "unreachable") -> None:
        self.url = url
        what = ("the launchrank daemon at" if "://" in url else "the launchrank executable")
        LaunchrankError.__init__(self, 0, code, "cannot reach %s %s: %s" % (what, url, reason))


class LaunchrankTimeoutError(LaunchrankConnectionError, TimeoutError):
    """No answer within the timeout; code "timeout". A ranking of a large search space,
    or one with measurements, can take longer than the default: raise ``timeout``."""

    def __init__(self, url: str, reason: str) -> None:
        LaunchrankConnectionError.__init__(self, url, reason, code="timeout")


class LaunchrankRequestError(LaunchrankError, ValueError):
    """The request was refused (HTTP 4xx): a missing or wrong value, an expression outside
    the affine language, a configuration that cannot run, a size limit. ``path`` says
    which input; resending the same request will fail the same way."""


class LaunchrankNotFoundError(LaunchrankRequestError, LookupError):
    """No such thing (HTTP 404, code "not_found"): e.g. ``device("GTX-9999")``."""


class LaunchrankServerError(LaunchrankError, RuntimeError):
    """launchrank failed while answering a valid request (HTTP 5xx; local: exit status 1
    or a crash). Code "internal" is a bug worth reporting."""


class LaunchrankUnavailableError(LaunchrankServerError):
    """HTTP 503: the daemon is busy (request queue full), shutting down, out of memory,
    or lacks a backend. The HTTP client retries these with backoff before raising."""


class LaunchrankResponseError(LaunchrankError, RuntimeError):
    """The answer was not the JSON launchrank sends (code "invalid_response"): a proxy's
    error page, a truncated reply, a different program on that port."""


class LaunchrankUnsupportedError(LaunchrankError, NotImplementedError):
    """The back end cannot do this at all (code "unsupported"), e.g. ``stats()`` of the
    local back end, which keeps no counters between runs."""

    def __init__(self, message: str) -> None:
        LaunchrankError.__init__(self, 0, "unsupported", message)


def _class_for(status: int) -> Type[LaunchrankError]:
    """The most specific class for an HTTP status."""
    if status == 404:
        return LaunchrankNotFoundError
    if 400 <= status < 500:
        return LaunchrankRequestError
    if status == 503:
        return LaunchrankUnavailableError
    if status >= 500:
        return LaunchrankServerError
    return LaunchrankError


def error_for(status: int, code: str, message: str, path: str = "") -> LaunchrankError:
    """The exception for an error object of the API; ``status`` 0 takes the status the
    API documents for ``code`` (what the local back end needs)."""
    if not status:
        status = STATUS_OF_CODE.get(code, 0)
    return _class_for(status)(status, code, message, path)
