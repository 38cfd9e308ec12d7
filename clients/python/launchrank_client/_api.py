"""
The API both back ends share: requests built from parts, typed results, the baseline
comparison and progress reports. A back end (``Client`` over HTTP, ``Local`` with the
executable) only moves JSON: it implements ``_post`` and ``_get_devices``, and the same
call returns the same result from either.
"""

import os
import sys
import warnings
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from .errors import LaunchrankUnsupportedError
from .results import (Baseline, Device, Estimate, Health, PlausibilityWarning, Ranking,
                      Resources)

__all__ = ["field", "ProgressCallback", "BaselineSpec"]

# progress(stage, done, total): stage is what starts now ("baseline", "rank") or "done",
# and done of total stages are finished; or, during the ranking through a daemon,
# stage "configurations" and done of total configurations evaluated.
ProgressCallback = Callable[[str, int, int], None]

# A baseline launch: {"block": [bx, by, bz], "folding": [fx, fy, fz]} (folding optional;
# a ranked result or an Estimate's launch works too), or just the block [bx, by, bz].
BaselineSpec = Union[Mapping[str, Any], Sequence[int]]


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _caller_stacklevel() -> int:
    """The stacklevel of warnings.warn, called from _warn, that names the first frame
    outside this package: the caller's line, whether it called estimate, rank,
    rank_kernel or the Kernel Tuner helpers."""
    level, frame = 2, sys._getframe(2)
    while frame is not None and \
            os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == _PACKAGE_DIR:
        level += 1
        frame = frame.f_back
    return level


def _warn(found: Sequence[PlausibilityWarning]) -> None:
    """Emits each plausibility warning of an answer (the warnings module's filters
    decide: shown once per message and place by default, raised under "error")."""
    if found:
        level = _caller_stacklevel()
        for w in found:
            warnings.warn(w, stacklevel=level)


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


def _with_measure(request: Dict[str, Any], measure: Optional[int]) -> Dict[str, Any]:
    """The request with ``measure.top`` = measure (other measure options kept); the
    caller's dict is not modified."""
    if measure is None:
        return request
    if isinstance(measure, bool) or not isinstance(measure, int) or measure < 0:
        raise ValueError("measure must be a count of configurations to time (0 to 32), "
                         "got %r" % (measure,))
    out = dict(request)
    out["measure"] = dict(request.get("measure") or {}, top=measure)
    return out


def _baseline_launch(baseline: BaselineSpec) -> Dict[str, List[int]]:
    """{"block", "folding"} of a baseline given as a launch mapping or as a block."""
    if isinstance(baseline, Mapping):
        if "block" not in baseline:
            raise ValueError("baseline needs a 'block' ({'block': [bx, by, bz], "
                             "'folding': [fx, fy, fz]}), got keys %s" % sorted(baseline))
        return {"block": _triple(baseline["block"]),
                "folding": _triple(baseline.get("folding") or (1, 1, 1))}
    if isinstance(baseline, (str, bytes)) or not all(isinstance(x, int) for x in baseline):
        raise ValueError("baseline must be a block [bx, by, bz] or {'block': ..., "
                         "'folding': ...}, got %r" % (baseline,))
    return {"block": _triple(baseline), "folding": [1, 1, 1]}


def _with_baseline(request: Dict[str, Any], launch: Optional[Dict[str, List[int]]]
                   ) -> Dict[str, Any]:
    """The request with ``search.baseline`` = launch (other search options kept; a
    ``search.baseline`` already there is replaced); the caller's dict is not modified."""
    if launch is None:
        return request
    out = dict(request)
    out["search"] = dict(request.get("search") or {}, baseline=launch)
    return out


def _baseline_request(request: Dict[str, Any], launch: Dict[str, List[int]]) -> Dict[str, Any]:
    """The estimate request of the baseline: the rank request's kernel, device, domain and
    model with the baseline launch (search and measure are of no use to an estimate)."""
    out = {k: v for k, v in request.items() if k not in ("search", "measure", "launch")}
    out["launch"] = launch
    return out


def _compare(ranking: Ranking, estimate: Estimate) -> Baseline:
    """The baseline's prediction set against the ranking's best."""
    block, folding = estimate.launch.block, estimate.launch.folding
    best = ranking.best
    speedup = (best.predicted / estimate.predicted
               if best is not None and estimate.predicted > 0 else None)
    rank = next((r.rank for r in ranking.results
                 if r.block == block and r.folding == folding), None)
    return Baseline(block, folding, estimate, estimate.predicted, speedup, rank)


class _Progress:
    """Calls the user's progress callback between the stages of one call."""

    def __init__(self, callback: Optional[ProgressCallback], stages: List[str]) -> None:
        self.callback = callback
        self.stages = stages
        self.done = 0

    def start(self, stage: str) -> None:
        if self.callback is not None:
            self.callback(stage, self.done, len(self.stages))

    def finish(self) -> None:
        self.done += 1
        if self.done == len(self.stages) and self.callback is not None:
            self.callback("done", self.done, len(self.stages))

    def configurations(self, done: int, total: int) -> None:
        """A progress line of the daemon's ranking: done of total configurations."""
        if self.callback is not None:
            self.callback("configurations", done, total)


class _Backend:
    """The calls of launchrank's API with typed results, over any transport."""

    # -- transport, per back end ---------------------------------------------

    def _post(self, endpoint: str, body: Dict[str, Any]) -> Dict[str, Any]:
        """The answer to POST /v1/<endpoint> ("estimate" or "rank")."""
        raise NotImplementedError

    def _post_rank(self, body: Dict[str, Any],
                   on_progress: Optional[Callable[[int, int], None]]) -> Dict[str, Any]:
        """The answer to POST /v1/rank; a back end that can report progress within the
        ranking calls on_progress(done, total) (configurations) meanwhile."""
        return self._post("rank", body)

    def _get_devices(self, name: Optional[str] = None) -> Dict[str, Any]:
        """{"devices": [...]} or, with a name, {"device": {...}}."""
        raise NotImplementedError

    # -- predictions ---------------------------------------------------------

    def estimate(self, request: Dict[str, Any]) -> Estimate:
        """The prediction for one launch configuration (POST /v1/estimate).

        ``request`` holds "device", "kernel", "domain" and "launch"
        ({"block": [bx, by, bz], "folding": [fx, fy, fz]}), as in docs/api.md. The
        result has ``launch`` (grid, blocks_per_sm, launchable, ...), ``estimate``
        (volumes in B/Lup), ``performance`` (GLup/s per level, ``predicted``,
        ``limiter``), ``fields`` (per-array volumes), ``cached``; ``raw`` is the JSON.

        Each of the answer's plausibility ``warnings`` is also emitted as a
        :class:`PlausibilityWarning` through ``warnings.warn`` (an error under
        ``warnings.simplefilter("error", PlausibilityWarning)``).
        """
        estimate = Estimate.from_json(self._post("estimate", request))
        _warn(estimate.warnings)
        return estimate

    def estimate_kernel(self, device: Any, kernel: Dict[str, Any], domain: Sequence[int],
                        block: Sequence[int], folding: Sequence[int] = (1, 1, 1)) -> Estimate:
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

    def rank(self, request: Dict[str, Any], *, measure: Optional[int] = None,
             baseline: Optional[BaselineSpec] = None,
             progress: Optional[ProgressCallback] = None) -> Ranking:
        """Launch configurations ranked by predicted GLup/s, best first (POST /v1/rank).

        Args:
            request:  "device", "kernel", "domain" and optionally "search", "measure",
                      "model", as in docs/api.md.
            measure:  time the K best predicted configurations on the GPU of the daemon
                      (HTTP) or of this machine (local): sets the request's
                      "measure": {"top": K}. Without a usable GPU the ranking comes back
                      all the same, with ``measure.status`` "unavailable".
            baseline: the configuration you would use without launchrank, e.g.
                      {"block": [128, 1, 1], "folding": [1, 1, 1]} or [128, 1, 1]. It
                      is sent as the request's "search.baseline" (replacing one
                      already there): launchrank ranks it with the space and judges it
                      against its recommendation in ``Ranking.decision.baseline``
                      (rank, predicted, gain, advice "keep"/"switch", reason). The
                      client also estimates it first, with one more request, and puts
                      that in ``Ranking.baseline`` (its ``estimate``, speedup of the
                      best over it, its rank when it is among the returned results).
                      It is predicted, not measured.
            progress: ``progress(stage, done, total)``, called as each stage starts
                      ("baseline", then "rank") and with "done" at the end (done and
                      total count stages). Through the daemon (:class:`Client`) also
                      within the ranking, at most every 0.5 s: ``progress(
                      "configurations", done, total)``, configurations evaluated of
                      the search space (the daemon's progress lines, docs/api.md). The
                      executable (:class:`Local`) reports stages only.

        Raises a :class:`LaunchrankError` subclass; a baseline that cannot run raises
        its ``not_launchable`` error before the ranking starts. Each of the ranking's
        top-level ``warnings`` (about the request, and how many configurations have
        some) is emitted as a :class:`PlausibilityWarning` through ``warnings.warn``.
        """
        request = _with_measure(request, measure)
        launch = _baseline_launch(baseline) if baseline is not None else None
        request = _with_baseline(request, launch)
        report = _Progress(progress, (["baseline"] if launch else []) + ["rank"])
        base_estimate = None
        if launch is not None:
            report.start("baseline")
            # not warned about: the ranking's own warnings name the request's problems
            base_estimate = Estimate.from_json(
                self._post("estimate", _baseline_request(request, launch)))
            report.finish()
        report.start("rank")
        ranking = Ranking.from_json(
            self._post_rank(request, report.configurations if progress else None))
        if base_estimate is not None:
            ranking = Ranking.from_json(ranking.raw, _compare(ranking, base_estimate))
        report.finish()
        _warn(ranking.warnings)
        return ranking

    def rank_kernel(self, device: Any, kernel: Dict[str, Any], domain: Sequence[int], *,
                    blocks: Optional[Iterable[Sequence[int]]] = None,
                    foldings: Optional[Iterable[Sequence[int]]] = None,
                    top: Optional[int] = None, min_threads: Optional[int] = None,
                    max_threads: Optional[int] = None, max_bz: Optional[int] = None,
                    model: Optional[str] = None, measure: Optional[int] = None,
                    baseline: Optional[BaselineSpec] = None,
                    progress: Optional[ProgressCallback] = None) -> Ranking:
        """:meth:`rank` from parts; options left at None take launchrank's defaults.

        Args:
            blocks:   block sizes to try, [[bx, by, bz], ...] (default: the space of
                      power-of-two blocks).
            foldings: foldings to try, [[fx, fy, fz], ...] (default: [[1, 1, 1]]).
            top:      results to return (0 or None: all).
            min_threads, max_threads: bounds on threads per block of the default space.
            max_bz:   largest bz of the default space.
            model:    "v2" (default) or "warpspeed".
            measure, baseline, progress: as for :meth:`rank`.
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
        if model is not None:
            request["model"] = model
        return self.rank(request, measure=measure, baseline=baseline, progress=progress)

    # -- devices and service -------------------------------------------------

    def devices(self) -> List[Device]:
        """The built-in devices (name, bandwidths in GB/s, cache sizes in bytes, ...;
        each has its own "units" and "sources" in ``raw``)."""
        return [Device.from_json(d) for d in self._get_devices()["devices"]]

    def device(self, name: str) -> Device:
        """One built-in device (matched case-insensitively); LaunchrankNotFoundError
        (status 404, code "not_found", also a LookupError) when there is none."""
        return Device.from_json(self._get_devices(name)["device"])

    def health(self) -> Health:
        """Whether the back end answers, its cache status and model version."""
        raise NotImplementedError

    def registers(self, source: str, device: Optional[str] = None, *,
                  arch: Optional[str] = None, kernel: Optional[str] = None,
                  options: Sequence[str] = ()) -> Resources:
        """Registers, spills and memory of each kernel of a CUDA source, compiled with
        NVRTC for ``device``'s architecture (or ``arch``, "sm_90"): ``launchrank
        registers``, Local only (it compiles on this machine; no GPU needed). ``source``
        is a file's path, or the CUDA text itself (anything with a newline or
        "__global__" in it). Through the daemon, send the text as the request's
        ``kernel.source`` instead (docs/api.md): it compiles it and fills
        ``kernel.registers``."""
        raise LaunchrankUnsupportedError(
            "%s cannot compile CUDA: registers() runs NVRTC on this machine through Local; "
            "through the daemon, send the source as the request's kernel.source"
            % type(self).__name__)

    def stats(self) -> Dict[str, Any]:
        """Request, error and cache counters (the daemon's only)."""
        raise LaunchrankUnsupportedError("%s keeps no counters; stats() needs the daemon "
                                         "(Client)" % type(self).__name__)

