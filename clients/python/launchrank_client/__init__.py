"""
launchrank_client: the Python client of the launchrank daemon.

Code generators (pystencils, lbmpy, ...) describe a GPU kernel's array accesses as
JSON and ask the daemon to predict how fast one launch configuration runs
(``estimate``) or to rank many of them (``rank``). This module only speaks HTTP and
JSON; the model lives in the daemon. Standard library only (urllib, json), Python 3.9+.

Units in responses (each response also carries them under "units"):

* data volumes ("estimate" and "fields" sections): bytes per lattice update (B/Lup);
* performance ("performance" section): GLup/s, 10^9 lattice updates per second;
  ``null``/``None`` means "no limit from this level";
* "launch": grid and wave in thread blocks, blocks_per_sm in blocks.

Errors the daemon reports raise :class:`LaunchrankError` (code, message, JSON path of
the offending input, HTTP status); a daemon that cannot be reached raises
:class:`LaunchrankConnectionError`. See docs/api.md for the request format.
"""

import http.client
import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterable, List, Optional, Sequence

__all__ = [
    "Client",
    "LaunchrankError",
    "LaunchrankConnectionError",
    "field",
]

DEFAULT_URL = "http://127.0.0.1:8080"


class LaunchrankError(Exception):
    """An error the daemon answered with (HTTP 4xx/5xx), or a reply it could not parse.

    Attributes:
        status:  HTTP status (0 when no HTTP answer came back).
        code:    stable machine-readable code, e.g. "invalid_request",
                 "unsupported_expression", "not_found", "not_launchable".
        message: the daemon's sentence for the user.
        path:    JSON path of the offending input ("kernel.fields[0].loads[3][1]"),
                 or "" when the error is not about one value.
    """

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


class LaunchrankConnectionError(LaunchrankError):
    """The daemon could not be reached (refused, timed out, DNS, ...); code "unreachable"."""

    def __init__(self, url: str, reason: str) -> None:
        self.url = url
        super().__init__(0, "unreachable", "cannot reach the launchrank daemon at %s: %s"
                         % (url, reason))


def field(name: str, dims: Sequence[int], loads: Iterable[Sequence[str]] = (),
          stores: Iterable[Sequence[str]] = (), element_bytes: int = 8,
          base_offset_bytes: int = 0) -> Dict[str, Any]:
    """One array of a kernel description, as the request's ``kernel.fields[i]``.

    Args:
        name:       the array's name (shows up in the per-field volumes of a response).
        dims:       allocated extents in elements, innermost (x) first, halo included.
        loads:      accesses read, one per load; each is a list of affine index
                    expressions in x, y, z, innermost first, e.g. ["x+1", "y", "z-1"].
        stores:     accesses written, same form.
        element_bytes: bytes per element (8 for double, 4 for float).
        base_offset_bytes: bytes from an aligned address to element [0, 0, 0].
    """
    return {
        "name": name,
        "element_bytes": int(element_bytes),
        "dims": [int(d) for d in dims],
        "base_offset_bytes": int(base_offset_bytes),
        "loads": [list(a) for a in loads],
        "stores": [list(a) for a in stores],
    }


def _triple(v: Sequence[int]) -> List[int]:
    return [int(x) for x in v]


class Client:
    """A connection to one launchrank daemon (stateless: one HTTP request per call).

    Args:
        url:     the daemon's base URL, e.g. "http://127.0.0.1:8080".
        timeout: seconds to wait for a reply (ranking a large search space can take
                 seconds).
    """

    def __init__(self, url: str = DEFAULT_URL, timeout: float = 60.0) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout

    # -- predictions ---------------------------------------------------------

    def estimate(self, request: Dict[str, Any]) -> Dict[str, Any]:
        """POST /v1/estimate: the prediction for one launch configuration.

        ``request`` holds "device", "kernel", "domain" and "launch"
        ({"block": [bx, by, bz], "folding": [fx, fy, fz]}). The reply has "launch"
        (grid, blocks_per_sm, launchable, ...), "estimate" (volumes in B/Lup),
        "performance" (GLup/s per level, "predicted" and the "limiter"), "fields"
        (per-array volumes, B/Lup), "details", "units" and "cached" (True when the
        prediction came from the daemon's cache).
        """
        return self._call("POST", "/v1/estimate", request)

    def estimate_kernel(self, device: Any, kernel: Dict[str, Any], domain: Sequence[int],
                        block: Sequence[int],
                        folding: Sequence[int] = (1, 1, 1)) -> Dict[str, Any]:
        """:meth:`estimate` from parts.

        Args:
            device: a built-in device name (see :meth:`devices`) or a device object.
            kernel: {"fields": [field(...), ...], "flops": ...}.
            domain: lattice points updated, [nx, ny, nz] (fewer for 1-D/2-D).
            block:  thread-block size [bx, by, bz].
            folding: lattice points per thread in each dimension.
        """
        return self.estimate({
            "device": device,
            "kernel": kernel,
            "domain": _triple(domain),
            "launch": {"block": _triple(block), "folding": _triple(folding)},
        })

    def rank(self, request: Dict[str, Any]) -> Dict[str, Any]:
        """POST /v1/rank: launch configurations ranked by predicted GLup/s, best first.

        ``request`` holds "device", "kernel", "domain" and optionally "search"
        ({blocks, foldings, min_threads, max_threads, max_bz, top}). The reply has
        "results" (each with "rank", "block", "folding", "launch", "estimate" in
        B/Lup and "performance" in GLup/s), "evaluated", "launchable",
        "not_launchable", "cached_results", "units" and "cached".
        """
        return self._call("POST", "/v1/rank", request)

    def rank_kernel(self, device: Any, kernel: Dict[str, Any], domain: Sequence[int], *,
                    blocks: Optional[Iterable[Sequence[int]]] = None,
                    foldings: Optional[Iterable[Sequence[int]]] = None,
                    top: Optional[int] = None, min_threads: Optional[int] = None,
                    max_threads: Optional[int] = None,
                    max_bz: Optional[int] = None) -> Dict[str, Any]:
        """:meth:`rank` from parts; options left at None take the daemon's defaults.

        Args:
            blocks:   block sizes to try, [[bx, by, bz], ...] (default: the daemon's
                      space of power-of-two blocks).
            foldings: foldings to try, [[fx, fy, fz], ...] (default: [[1, 1, 1]]).
            top:      results to return (0 or None: all).
            min_threads, max_threads: bounds on threads per block of the default space.
            max_bz:   largest bz of the default space.
        """
        search: Dict[str, Any] = {}
        if blocks is not None:
            search["blocks"] = [_triple(b) for b in blocks]
        if foldings is not None:
            search["foldings"] = [_triple(f) for f in foldings]
        for key, value in (("top", top), ("min_threads", min_threads),
                           ("max_threads", max_threads), ("max_bz", max_bz)):
            if value is not None:
                search[key] = int(value)
        request: Dict[str, Any] = {"device": device, "kernel": kernel,
                                   "domain": _triple(domain)}
        if search:
            request["search"] = search
        return self.rank(request)

    # -- devices and service -------------------------------------------------

    def devices(self) -> List[Dict[str, Any]]:
        """GET /v1/devices: the built-in devices (name, bandwidths in GB/s, cache sizes
        in bytes, ...; each has its own "units" and "sources")."""
        return self._call("GET", "/v1/devices")["devices"]

    def device(self, name: str) -> Dict[str, Any]:
        """GET /v1/devices/{name}: one built-in device; LaunchrankError with status
        404 (code "not_found") when there is none of that name."""
        return self._call("GET", "/v1/devices/" + urllib.parse.quote(name, safe=""))["device"]

    def health(self) -> Dict[str, Any]:
        """GET /healthz: {"status": "ok", "cache": "ok" or why not, "model_version"}."""
        return self._call("GET", "/healthz")

    def stats(self) -> Dict[str, Any]:
        """GET /v1/stats: request and error counters, cache hits/misses, uptime_s."""
        return self._call("GET", "/v1/stats")

    # -- transport -----------------------------------------------------------

    def _call(self, method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Any:
        url = self.url + path
        data = None
        headers = {"Accept": "application/json"}
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                status = resp.status
                raw = resp.read()
        except urllib.error.HTTPError as e:
            # Read the body before closing: it holds the daemon's error object.
            try:
                raw = e.read()
            except (OSError, http.client.HTTPException):
                raw = b""
            finally:
                e.close()
            raise _error_from_body(e.code, raw) from None
        except urllib.error.URLError as e:
            raise LaunchrankConnectionError(self.url, str(e.reason)) from None
        except (socket.timeout, TimeoutError) as e:
            raise LaunchrankConnectionError(
                self.url, "no reply within %g s (%s)" % (self.timeout, e)) from None
        except (OSError, http.client.HTTPException) as e:
            raise LaunchrankConnectionError(self.url, "%s: %s" % (type(e).__name__, e)) from None
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise LaunchrankError(status, "invalid_response",
                                  "the daemon's reply to %s %s is not JSON (%s)"
                                  % (method, path, e)) from None


def _error_from_body(status: int, raw: bytes) -> LaunchrankError:
    """The LaunchrankError of an HTTP error reply; falls back to the raw text when the
    body is not the daemon's {"error": {...}} object (e.g. a proxy's page)."""
    try:
        err = json.loads(raw.decode("utf-8"))["error"]
        return LaunchrankError(status, str(err.get("code", "http_%d" % status)),
                               str(err.get("message", "")), str(err.get("path") or ""))
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
        text = raw.decode("utf-8", "replace").strip()[:500]
        return LaunchrankError(status, "http_%d" % status,
                               text or "HTTP %d with an empty body" % status)
