"""
Kernel Tuner interop: rank first, then tune only what matters (docs/kernel_tuner.md).

Kernel Tuner (https://github.com/KernelTuner/kernel_tuner) times every configuration of
a ``tune_params`` space on the GPU. launchrank predicts the same launch configurations
in milliseconds without one. This module connects the two without importing Kernel
Tuner (it is not a dependency):

* :func:`search_space`: the launchrank ``"search"`` of a ``tune_params`` space, so that
  the ranking covers exactly the configurations Kernel Tuner would try;
* :func:`prune`: the ``tune_params`` (and a ``restrictions`` function) for
  ``kernel_tuner.tune_kernel`` that keep only the predicted top K and your default;
* :func:`to_t4`: a ranking in the T4 results format that Kernel Tuner writes
  (``launchrank rank --format t4`` writes the same document).

A *mapping* says which tune_params are the thread block's sides and the lattice points
per thread (launchrank's folding), x first: each item is the name of a tune_param or a
fixed number, e.g. ``block=("block_size_x", "block_size_y", 1)``,
``folding=(1, 1, "tile_size_z")``. Kernel Tuner's defaults are
:data:`BLOCK_NAMES`; with them, a side that is not in ``tune_params`` takes Kernel
Tuner's default (256 threads in x, 1 in y and z). Measured configurations go the other way with
``launchrank import-kt`` (a Kernel Tuner cache file into the measurement log).
"""

import itertools
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .results import Ranking

__all__ = ["BLOCK_NAMES", "DEFAULT_BLOCK", "FOLDING_NAMES", "T4_SCHEMA_VERSION", "Pruned",
           "search_space", "prune", "to_t4"]

#: Kernel Tuner's names of the thread block's sides (its ``block_size_names`` default).
BLOCK_NAMES = ("block_size_x", "block_size_y", "block_size_z")
#: The names :func:`to_t4` and ``launchrank rank --format t4`` give the folding.
FOLDING_NAMES = ("folding_x", "folding_y", "folding_z")
#: Kernel Tuner's block sides when tune_params lacks BLOCK_NAMES (docs/kernel_tuner.md,
#: "The formats").
DEFAULT_BLOCK = (256, 1, 1)
#: The T4 results schema version written (Kernel Tuner writes T4 1.0.0).
T4_SCHEMA_VERSION = "1.0.0"

Side = Union[str, int]
Mapping3 = Sequence[Side]
Triple = Tuple[int, int, int]


def _sides(mapping: Mapping3, what: str) -> Tuple[Side, Side, Side]:
    items = list(mapping)
    if not 1 <= len(items) <= 3 or not all(
            isinstance(s, str) or (isinstance(s, int) and not isinstance(s, bool) and s >= 1)
            for s in items):
        raise ValueError("%s must be 1 to 3 tune_param names or positive integers, x first; "
                         "got %r" % (what, mapping))
    return tuple(items + [1] * (3 - len(items)))  # type: ignore[return-value]


def _resolve(mapping: Mapping3, tune_params: Mapping[str, Sequence[Any]],
             what: str) -> Tuple[Side, Side, Side]:
    """The mapping with every name a tune_param: Kernel Tuner's default block names that
    tune_params lacks become Kernel Tuner's defaults; any other unknown name raises."""
    sides = _sides(mapping, what)
    default_names = what == "block" and tuple(mapping) == BLOCK_NAMES
    out: List[Side] = []
    for d, s in enumerate(sides):
        if isinstance(s, str) and s not in tune_params:
            if not default_names:
                raise KeyError("%s names %r, which is not one of the tune_params (%s)"
                               % (what, s, ", ".join(tune_params)))
            s = DEFAULT_BLOCK[d]
        out.append(s)
    return tuple(out)  # type: ignore[return-value]


def _value(side: Side, params: Mapping[str, Any]) -> int:
    """The side's value in one configuration (sides are resolved: names are params)."""
    return int(params[side]) if isinstance(side, str) else int(side)


def _launch(params: Mapping[str, Any], block: Sequence[Side],
            folding: Sequence[Side]) -> Tuple[Triple, Triple]:
    return (tuple(_value(s, params) for s in block),  # type: ignore[return-value]
            tuple(_value(s, params) for s in folding))


def search_space(tune_params: Mapping[str, Sequence[Any]], *,
                 block: Mapping3 = BLOCK_NAMES, folding: Mapping3 = (1, 1, 1)) -> Dict[str, Any]:
    """The launchrank request's ``"search"`` covering every block and folding that the
    ``tune_params`` space holds: ``{"blocks": [...], "foldings": [...]}`` (launchrank
    combines every block with every folding, as Kernel Tuner combines every value of
    every parameter). Other tune_params do not change a prediction and are left out.

    launchrank ranks at most 4096 configurations (blocks x foldings) per request, block
    sides of 1 to 1024 and 1 to 64 foldings of sides 1 to 256 (docs/api.md, "search"); a
    larger space is refused by ``rank()`` with the path of the limit: rank it in parts.

    Raises ValueError for a bad mapping, KeyError for a name that is not a tune_param
    (Kernel Tuner's default block names excepted).
    """
    bsides = _resolve(block, tune_params, "block")
    fsides = _resolve(folding, tune_params, "folding")

    def triples(sides: Sequence[Side]) -> List[List[int]]:
        axes = [list(tune_params[s]) if isinstance(s, str) else [s] for s in sides]
        out: List[List[int]] = []
        for t in itertools.product(*axes):
            v = [int(x) for x in t]
            if v not in out:
                out.append(v)
        return out

    return {"blocks": triples(bsides), "foldings": triples(fsides)}


class KeepOnly:
    """A ``restrictions`` function for ``tune_kernel``: true for the configurations
    whose block and folding are among the kept ones.

    Passed as ``restrictions=`` itself, Kernel Tuner calls it with a dict of one
    configuration's tune_params. Inside a list, recent Kernel Tuner versions call a
    function with the values as separate arguments, in tune_params order, or as keyword
    arguments: it answers those calls too, so it may be combined with restriction
    strings in a list."""

    def __init__(self, kept: Sequence[Tuple[Triple, Triple]], block: Sequence[Side],
                 folding: Sequence[Side], names: Sequence[str]) -> None:
        self.kept = frozenset(kept)
        self.block = tuple(block)
        self.folding = tuple(folding)
        self.names = tuple(names)

    def __call__(self, *values: Any, **named: Any) -> bool:
        if len(values) == 1 and not named and isinstance(values[0], Mapping):
            params: Mapping[str, Any] = values[0]
        elif values and not named:
            if len(values) != len(self.names):
                raise TypeError("restrictions: %d values for the %d tune_params %s"
                                % (len(values), len(self.names), ", ".join(self.names)))
            params = dict(zip(self.names, values))
        else:
            params = dict(zip(self.names, values), **named)
        return _launch(params, self.block, self.folding) in self.kept

    def __repr__(self) -> str:
        return "KeepOnly(%d launch configurations)" % len(self.kept)


@dataclass(frozen=True)
class Pruned:
    """What :func:`prune` keeps.

    Attributes:
        tune_params:  the space for ``tune_kernel``: the block and folding parameters
                      reduced to the values of the kept configurations (in your
                      order), every other parameter as you gave it.
        restrictions: a function for ``tune_kernel(restrictions=...)`` that admits
                      exactly the kept blocks and foldings (the reduced values alone
                      would still combine into configurations nobody chose).
        kept:         the kept launch configurations, best predicted first, each
                      ``{"block", "folding", "rank", "predicted_glups", "params"}``; the
                      default has rank None when it is not among the top K.
        skipped:      ranked configurations not in the tune_params space (rank a
                      :func:`search_space` request to have none).
        full_size, size: configurations in the space before and after, counted over
                      every parameter (what Kernel Tuner would time).
    """

    tune_params: Dict[str, List[Any]]
    restrictions: KeepOnly
    kept: List[Dict[str, Any]]
    skipped: int
    full_size: int
    size: int

    def tune_kernel_kwargs(self) -> Dict[str, Any]:
        """``{"tune_params": ..., "restrictions": ...}`` to pass on with ``**``."""
        return {"tune_params": self.tune_params, "restrictions": self.restrictions}


def prune(ranking: Ranking, tune_params: Mapping[str, Sequence[Any]], *, top: int = 10,
          default: Optional[Mapping[str, Any]] = None, block: Mapping3 = BLOCK_NAMES,
          folding: Mapping3 = (1, 1, 1)) -> Pruned:
    """The ``tune_params`` space cut down to the ``top`` best predicted configurations of
    ``ranking`` that it holds, plus ``default`` (your usual choice, as tune_params values,
    e.g. ``{"block_size_x": 32, "block_size_y": 4}``), so Kernel Tuner times those only.

    Args:
        ranking:  the answer of ``rank()`` for the kernel (best first); rank a request
                  whose ``"search"`` is :func:`search_space` of the same tune_params.
        tune_params: Kernel Tuner's space, parameter name -> list of values.
        top:      how many of the best predicted configurations to keep (>= 1).
        default:  the configuration to keep whatever its rank (None: none).
        block, folding: the mapping of tune_params to the launch (module docstring).

    Raises ValueError for a bad ``top``, mapping or default (a value not in the
    space) and when nothing is left to tune (no ranked configuration in the space and
    no default), KeyError for a name that is not a tune_param.
    """
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ValueError("top must be a positive number of configurations, got %r" % (top,))
    bsides = _resolve(block, tune_params, "block")
    fsides = _resolve(folding, tune_params, "folding")
    mapped = [s for s in bsides + fsides if isinstance(s, str)]

    def params_of(b: Triple, f: Triple) -> Optional[Dict[str, Any]]:
        """The tune_params values of a launch, or None when the space lacks it."""
        out: Dict[str, Any] = {}
        for sides, values in ((bsides, b), (fsides, f)):
            for s, v in zip(sides, values):
                if isinstance(s, str):
                    match = [x for x in tune_params[s] if x == v]
                    if not match or out.get(s, match[0]) != match[0]:
                        return None
                    out[s] = match[0]
                elif s != v:
                    return None
        return out

    kept: List[Dict[str, Any]] = []
    skipped = 0
    for r in ranking.results:
        if len(kept) == top:
            break
        p = params_of(r.block, r.folding)
        if p is None:
            skipped += 1
            continue
        kept.append({"block": r.block, "folding": r.folding, "rank": r.rank,
                     "predicted_glups": r.predicted, "params": p})
    if default is not None:
        missing = [s for s in mapped if s not in default]
        if missing:
            raise ValueError("default lacks %s (it needs every block and folding "
                             "parameter)" % ", ".join(missing))
        b, f = _launch(default, bsides, fsides)
        p = params_of(b, f)
        if p is None:
            raise ValueError("default %r is not in the tune_params space" % (dict(default),))
        if all((k["block"], k["folding"]) != (b, f) for k in kept):
            kept.append({"block": b, "folding": f, "rank": None,
                         "predicted_glups": next((r.predicted for r in ranking.results
                                                  if (r.block, r.folding) == (b, f)), None),
                         "params": p})
    if not kept:
        raise ValueError("none of the %d ranked configurations is in the tune_params space "
                         "and no default was given: rank a request whose \"search\" is "
                         "search_space(tune_params)" % len(ranking.results))
    pruned = {name: ([v for v in values if any(k["params"][name] == v for k in kept)]
                     if name in mapped else list(values))
              for name, values in tune_params.items()}
    others = 1
    for name, values in tune_params.items():
        if name not in mapped:
            others *= len(values)
    full = 1
    for values in tune_params.values():
        full *= len(values)
    keep = KeepOnly([(k["block"], k["folding"]) for k in kept], bsides, fsides, list(tune_params))
    return Pruned(pruned, keep, kept, skipped, full, len(kept) * others)


def _measurement(name: str, value: Any, unit: str) -> Dict[str, Any]:
    return {"name": name, "value": value, "unit": unit}


def _configuration(block: Sequence[int], folding: Sequence[int], block_names: Sequence[str],
                   folding_names: Sequence[str]) -> Dict[str, int]:
    cfg = {n: int(v) for n, v in zip(block_names, block)}
    cfg.update({n: int(v) for n, v in zip(folding_names, folding)})
    return cfg


def _result(cfg: Dict[str, int], timestamp: str, invalidity: str, correct: int,
            measurements: List[Dict[str, Any]]) -> Dict[str, Any]:
    return {"configuration": cfg, "timestamp": timestamp, "objectives": ["predicted_time"],
            "times": {}, "invalidity": invalidity, "correctness": correct,
            "measurements": measurements}


def to_t4(ranking: Union[Ranking, Mapping[str, Any]], *, timestamp: Optional[str] = None,
          block_names: Sequence[str] = BLOCK_NAMES,
          folding_names: Sequence[str] = FOLDING_NAMES) -> Dict[str, Any]:
    """The ranking as a T4 results document (``{"schema_version", "results"}``), the
    format Kernel Tuner writes (docs/kernel_tuner.md, "The formats"),
    as ``launchrank rank --format t4`` writes it.

    One result per ranked configuration, best first, then one per configuration that
    cannot run (``"invalidity": "constraints"``, the reason as a measurement). The
    configuration is named by ``block_names`` and ``folding_names`` (rename them to your
    tune_params). The objective is ``predicted_time``: ms per run, the domain's lattice
    updates at the predicted GLup/s. Measurements: ``predicted_time`` (ms),
    ``predicted_glups`` (GLup/s), ``limiter``, ``rank``; for a configuration timed on the
    GPU also ``time`` (ms, the median run), ``time_min``, ``time_max`` (ms),
    ``measured_glups`` (GLup/s) and ``predicted_over_measured``; one that could not be
    timed has ``"invalidity": "runtime"`` and ``measure_error``. ``times`` stays empty:
    launchrank keeps the median, fastest and slowest run, not every run.

    Args:
        ranking:   a :class:`Ranking` or the rank response as a dict.
        timestamp: written on every result (ISO 8601); default: now, UTC.
    """
    d = ranking.raw if isinstance(ranking, Ranking) else ranking
    if len(block_names) != 3 or len(folding_names) != 3:
        raise ValueError("block_names and folding_names need three names each, x first")
    stamp = timestamp or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    points = 1.0
    for n in d.get("domain") or []:
        points *= n
    results = []
    for r in d.get("results") or []:
        perf = r.get("performance") or {}
        measured = r.get("measured")
        failed = isinstance(measured, dict) and isinstance(measured.get("error"), dict)
        ms: List[Dict[str, Any]] = []
        predicted = perf.get("predicted")
        if isinstance(predicted, (int, float)) and predicted > 0:
            # ms per run: points / (GLup/s * 1e9) s = points / (GLup/s * 1e6) ms
            ms.append(_measurement("predicted_time", points / (predicted * 1e6), "ms"))
        if isinstance(predicted, (int, float)):
            ms.append(_measurement("predicted_glups", predicted, "GLup/s"))
        if isinstance(perf.get("limiter"), str):
            ms.append(_measurement("limiter", perf["limiter"], ""))
        if isinstance(r.get("rank"), int):
            ms.append(_measurement("rank", r["rank"], ""))
        if isinstance(measured, dict) and not failed:
            for name, key, unit in (("time", "ms_median", "ms"), ("time_min", "ms_min", "ms"),
                                    ("time_max", "ms_max", "ms"),
                                    ("measured_glups", "glups", "GLup/s"),
                                    ("predicted_over_measured", "predicted_over_measured", "")):
                if isinstance(measured.get(key), (int, float)):
                    ms.append(_measurement(name, measured[key], unit))
        elif failed:
            ms.append(_measurement("measure_error",
                                   str(measured["error"].get("message") or "?"), ""))
        results.append(_result(_configuration(r["block"], r["folding"], block_names,
                                              folding_names), stamp,
                               "runtime" if failed else "correct", 0 if failed else 1, ms))
    for r in d.get("not_launchable") or []:
        results.append(_result(_configuration(r["block"], r["folding"], block_names,
                                              folding_names), stamp, "constraints", 0,
                               [_measurement("reason", str(r.get("reason") or ""), "")]))
    return {"results": results, "schema_version": T4_SCHEMA_VERSION}
