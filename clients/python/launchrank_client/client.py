"""
Client: launchrank over HTTP, talking to a ``launchrank serve`` daemon.

One daemon serves many code generators and caches predictions across them. Stateless:
one HTTP request per call (urllib, standard library only). A 503 (queue full, daemon
restarting) is retried with exponential backoff, since it says "later", not "never".
"""

import copy
import hashlib
import http.client
import json
import os
import socket
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from array import array
from typing import Any, Callable, Dict, Iterable, Optional, Union

from ._api import _Backend
from .errors import (LaunchrankConnectionError, LaunchrankError, LaunchrankNotFoundError,
                     LaunchrankResponseError, LaunchrankTimeoutError, LaunchrankUnavailableError,
                     error_for)
from .results import Health

__all__ = ["Client", "DEFAULT_URL", "URL_VARIABLE"]

DEFAULT_URL = "http://127.0.0.1:8080"
URL_VARIABLE = "LAUNCHRANK_URL"


def default_url() -> str:
    """$LAUNCHRANK_URL when set and not empty, else http://127.0.0.1:8080."""
    return os.environ.get(URL_VARIABLE) or DEFAULT_URL


class Client(_Backend):
    """A connection to one launchrank daemon.

    Args:
        url:      the daemon's base URL, e.g. "http://127.0.0.1:8080"; default
                  $LAUNCHRANK_URL, else http://127.0.0.1:8080.
        timeout:  seconds to wait for a reply (ranking a large search space, or
                  measuring, can take a while).
        retries:  how many times a 503 answer is retried before it is raised.
        backoff:  seconds before the first retry; each further retry waits twice as
                  long, at most ``max_backoff``. A Retry-After header takes precedence
                  (also capped by ``max_backoff``).
    """

    def __init__(self, url: Optional[str] = None, timeout: float = 60.0, *,
                 retries: int = 3, backoff: float = 0.5, max_backoff: float = 8.0) -> None:
        self.url = (url or default_url()).rstrip("/")
        self.timeout = timeout
        self.retries = max(0, int(retries))
        self.backoff = backoff
        self.max_backoff = max_backoff

    def __repr__(self) -> str:
        return "Client(%r)" % self.url

    # -- the API's transport -------------------------------------------------

    def _post(self, endpoint: str, body: Dict[str, Any]) -> Dict[str, Any]:
        return self._call("POST", "/v1/" + endpoint, self._uploaded(body))

    def _post_rank(self, body: Dict[str, Any],
                   on_progress: Optional[Callable[[int, int], None]]) -> Dict[str, Any]:
        """With on_progress, asks for progress lines (Accept: application/x-ndjson,
        docs/api.md "Progress of a ranking"); ``timeout`` then bounds the wait for each
        line, not the whole ranking."""
        return self._call("POST", "/v1/rank", self._uploaded(body), on_progress)

    # -- arrays (docs/api.md, "Arrays") ----------------------------------------

    def upload_array(self, data_or_path: Union[bytes, bytearray, memoryview, str,
                                               "os.PathLike[str]", Iterable[int]],
                     format: str = "int32-le") -> str:
        """PUT /v1/arrays/{sha256}: uploads an index field's integers once and returns
        their SHA-256, which a request then names as ``"values": {"sha256": ...}``
        instead of sending them inline. data_or_path: the little-endian bytes
        (bytes-like), a path to a file of them, or the integers themselves (packed
        here in format). format: "int32-le" (default) or "int64-le". An array the
        daemon holds already is not sent again (a HEAD request asks first)."""
        width = {"int32-le": 4, "int64-le": 8}.get(format)
        if width is None:
            raise ValueError("format %r: the formats are 'int32-le' and 'int64-le'" % (format,))
        if isinstance(data_or_path, (str, os.PathLike)):
            with open(data_or_path, "rb") as f:
                raw = f.read()
        elif isinstance(data_or_path, (bytes, bytearray, memoryview)):
            raw = bytes(data_or_path)
        else:
            packed = array("i" if width == 4 else "q", data_or_path)  # 4 and 8 bytes
            if sys.byteorder != "little":
                packed.byteswap()
            raw = packed.tobytes()
        digest = hashlib.sha256(raw).hexdigest()
        try:
            self._call("HEAD", "/v1/arrays/" + digest, binary=True)
            return digest  # stored already (in this format or not: the request says)
        except LaunchrankNotFoundError:
            pass
        query = "" if format == "int32-le" else "?format=" + format
        self._call("PUT", "/v1/arrays/" + digest + query, raw=raw)
        return digest

    def download_array(self, sha256: str) -> bytes:
        """GET /v1/arrays/{sha256}: the stored bytes: an uploaded array as it was sent,
        or a ranking's permutation (``orderings[i]["permutation_sha256"]``: the new
        number of each cell, int64-le; ``array("q", data)`` reads it)."""
        return self._call("GET", "/v1/arrays/" + urllib.parse.quote(sha256, safe=""),
                          binary=True)

    def _uploaded(self, body: Dict[str, Any]) -> Dict[str, Any]:
        """body with each index field's {"file": PATH, "format": F} values uploaded and
        named by {"sha256": ...}: the daemon reads no files of its machine, so the
        file is read here, as the Local back end would read it (a copy; body is kept)."""
        fields = (body.get("kernel") or {}).get("fields") if isinstance(body, dict) else None
        if not isinstance(fields, list) or not any(
                isinstance(f, dict) and isinstance(f.get("values"), dict)
                and "file" in f["values"] for f in fields):
            return body
        body = copy.deepcopy(body)
        for f in body["kernel"]["fields"]:
            v = f.get("values") if isinstance(f, dict) else None
            if isinstance(v, dict) and "file" in v:
                f["values"] = {"sha256": self.upload_array(v["file"],
                                                           v.get("format", "int32-le"))}
        return body

    def _get_devices(self, name: Optional[str] = None) -> Dict[str, Any]:
        if name is None:
            return self._call("GET", "/v1/devices")
        return self._call("GET", "/v1/devices/" + urllib.parse.quote(name, safe=""))

    def health(self) -> Health:
        """GET /healthz: status "ok", cache "ok" or why not, model_version."""
        return Health.from_json(self._call("GET", "/healthz"))

    def stats(self) -> Dict[str, Any]:
        """GET /v1/stats: request and error counters, cache hits/misses, uptime_s (a plain
        dict: its counters are keyed by route and grow with the daemon)."""
        return self._call("GET", "/v1/stats")

    # -- HTTP ----------------------------------------------------------------

    def _call(self, method: str, path: str, body: Optional[Dict[str, Any]] = None,
              on_progress: Optional[Callable[[int, int], None]] = None, *,
              raw: Optional[bytes] = None, binary: bool = False) -> Any:
        """One API call, retrying 503s with backoff (also one that ends a stream of
        progress lines: the server shutting down). raw: a body of bytes sent as
        application/octet-stream; binary: the reply's bytes are returned as they are."""
        attempt = 0
        while True:
            try:
                return self._call_once(method, path, body, on_progress, raw, binary)
            except LaunchrankUnavailableError as e:
                if attempt >= self.retries:
                    raise
                time.sleep(self._delay(attempt, getattr(e, "retry_after", None)))
                attempt += 1

    def _delay(self, attempt: int, retry_after: Optional[float]) -> float:
        """Seconds before retry number attempt+1: the server's Retry-After if it sent
        one, else backoff * 2^attempt; never more than max_backoff."""
        wanted = retry_after if retry_after is not None else self.backoff * (2 ** attempt)
        return max(0.0, min(self.max_backoff, wanted))

    def _call_once(self, method: str, path: str, body: Optional[Dict[str, Any]],
                   on_progress: Optional[Callable[[int, int], None]] = None,
                   raw_body: Optional[bytes] = None, binary: bool = False) -> Any:
        data = None
        headers = {"Accept": "application/x-ndjson" if on_progress else "application/json"}
        if binary:
            headers["Accept"] = "application/octet-stream"
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if raw_body is not None:
            data = raw_body
            headers["Content-Type"] = "application/octet-stream"
        req = urllib.request.Request(self.url + path, data=data, headers=headers,
                                     method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                status = resp.status
                ndjson = (resp.headers.get("Content-Type") or "").startswith(
                    "application/x-ndjson")
                if on_progress is not None and ndjson:
                    return _read_stream(resp, on_progress, method, path)
                raw = resp.read()
        except urllib.error.HTTPError as e:
            raise _error_from_reply(e) from None
        except urllib.error.URLError as e:
            if isinstance(e.reason, (socket.timeout, TimeoutError)):
                raise self._timeout(e.reason) from None
            raise LaunchrankConnectionError(self.url, str(e.reason)) from None
        except (socket.timeout, TimeoutError) as e:
            raise self._timeout(e) from None
        except (OSError, http.client.HTTPException) as e:
            raise LaunchrankConnectionError(self.url, "%s: %s" % (type(e).__name__, e)) from None
        if binary:
            return raw
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise LaunchrankResponseError(status, "invalid_response",
                                          "the daemon's reply to %s %s is not JSON (%s)"
                                          % (method, path, e)) from None

    def _timeout(self, e: BaseException) -> LaunchrankTimeoutError:
        return LaunchrankTimeoutError(self.url, "no reply within %g s (%s); pass a larger "
                                      "timeout to Client()" % (self.timeout, e))


def _read_stream(resp: Any, on_progress: Callable[[int, int], None], method: str,
                 path: str) -> Any:
    """The last line of a newline-delimited JSON answer, calling on_progress(done, of)
    for each progress line before it; an {"error": ...} last line is raised as the
    error its code names (the status was 200, sent before the error happened)."""
    last = None
    for line in resp:
        if not line.strip():
            continue
        try:
            obj = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise LaunchrankResponseError(200, "invalid_response",
                                          "a line of the daemon's reply to %s %s is not "
                                          "JSON (%s)" % (method, path, e)) from None
        p = obj.get("progress") if isinstance(obj, dict) and len(obj) == 1 else None
        if isinstance(p, dict):
            on_progress(int(p.get("done") or 0), int(p.get("of") or 0))
        else:
            last = obj
    if not isinstance(last, dict):
        raise LaunchrankResponseError(200, "invalid_response",
                                      "the daemon's reply to %s %s ended without an answer "
                                      "line" % (method, path))
    err = last.get("error")
    if isinstance(err, dict) and len(last) <= 2:
        raise error_for(0, str(err.get("code") or "internal"), str(err.get("message") or ""),
                        str(err.get("path") or ""))
    return last


def _error_from_reply(e: urllib.error.HTTPError) -> LaunchrankError:
    """The exception of an HTTP error reply, with Retry-After (seconds) when sent. The
    body is read before the reply is closed: it holds the daemon's error object."""
    try:
        raw = e.read()
    except (OSError, http.client.HTTPException):
        raw = b""
    finally:
        e.close()
    err = _error_from_body(e.code, raw)
    err.retry_after = _seconds(e.headers.get("Retry-After") if e.headers else None)
    return err


def _seconds(value: Optional[str]) -> Optional[float]:
    """Retry-After in its delta-seconds form; an HTTP date or garbage counts as absent."""
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _error_from_body(status: int, raw: bytes) -> LaunchrankError:
    """The error of an HTTP error reply; falls back to the raw text when the body is not
    the daemon's {"error": {...}} object (e.g. a proxy's page)."""
    try:
        err = json.loads(raw.decode("utf-8"))["error"]
        return error_for(status, str(err.get("code", "http_%d" % status)),
                         str(err.get("message", "")), str(err.get("path") or ""))
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
        text = raw.decode("utf-8", "replace").strip()[:500]
        return error_for(status, "http_%d" % status,
                         text or "HTTP %d with an empty body" % status)
