"""
launchrank_client: launchrank from Python.

Code generators (pystencils, lbmpy, ...) describe a GPU kernel's array accesses as
JSON and ask launchrank how fast one launch configuration runs (``estimate``) or which
configurations run fastest (``rank``). Two back ends answer with one API:

* :class:`Client` talks HTTP to a ``launchrank serve`` daemon (URL from the argument,
  else ``$LAUNCHRANK_URL``, else http://127.0.0.1:8080); 503s are retried with backoff.
* :class:`Local` runs the ``launchrank`` executable (on PATH or given), no daemon needed.

:mod:`launchrank_client.kernel_tuner` connects rankings to Kernel Tuner: the predicted
top K of a ``tune_params`` space for ``tune_kernel`` and T4 export (docs/kernel_tuner.md).

Results are typed, read-only dataclasses (:mod:`launchrank_client.results`) that are
also mappings over the JSON, which stays reachable as ``.raw``. Errors are
:class:`LaunchrankError` subclasses that also subclass the matching built-ins
(:mod:`launchrank_client.errors`). Standard library only, Python 3.9+.

Units: data volumes in bytes per lattice update (B/Lup); performance in GLup/s
(10^9 lattice updates per second), ``None`` meaning "no limit from this level". See
docs/api.md for the request format.
"""

from ._api import BaselineSpec, ProgressCallback, field
from ._version import __version__
from .client import DEFAULT_URL, URL_VARIABLE, Client
from .errors import (LaunchrankConnectionError, LaunchrankError, LaunchrankNotFoundError,
                     LaunchrankRequestError, LaunchrankResponseError, LaunchrankServerError,
                     LaunchrankTimeoutError, LaunchrankUnavailableError,
                     LaunchrankUnsupportedError)
from .local import Local
from .results import (Baseline, BaselineAdvice, Choice, Decision, Device, Estimate, Health,
                      Incomplete, KernelResources, Launch, Measurement, MeasureSummary,
                      NotLaunchable, Performance, PlausibilityWarning, RankedConfig, Ranking,
                      Resources, Volumes)

__all__ = [
    "__version__",
    "Client",
    "Local",
    "field",
    "DEFAULT_URL",
    "URL_VARIABLE",
    "BaselineSpec",
    "ProgressCallback",
    # errors
    "LaunchrankError",
    "LaunchrankConnectionError",
    "LaunchrankTimeoutError",
    "LaunchrankRequestError",
    "LaunchrankNotFoundError",
    "LaunchrankServerError",
    "LaunchrankUnavailableError",
    "LaunchrankResponseError",
    "LaunchrankUnsupportedError",
    # results
    "Estimate",
    "Ranking",
    "RankedConfig",
    "Baseline",
    "Decision",
    "Choice",
    "BaselineAdvice",
    "Incomplete",
    "PlausibilityWarning",
    "Launch",
    "Volumes",
    "Performance",
    "Measurement",
    "MeasureSummary",
    "NotLaunchable",
    "Device",
    "Health",
    "Resources",
    "KernelResources",
]
