"""
Typed views of launchrank's answers.

Each result is a frozen dataclass of the fields a code generator uses (a
PlausibilityWarning, also a Python warning category, a plain class), built from the
JSON the API returns (docs/api.md). The JSON itself stays reachable, unchanged, as
``.raw``, and every result is also a read-only mapping over it, so ``r["performance"]
["predicted"]`` works as it did when the client returned plain dicts (and keeps working
for keys this version of the client does not know yet). Serialise with
``json.dumps(r.raw)``.

Units: volumes (``Volumes``) are bytes per lattice update (B/Lup), ``l1_cycles`` L1
cycles per lattice update per SM, performance (``Performance``) GLup/s with ``None``
for "no limit from this level", measured times milliseconds; ``occupancy`` and
``idle_threads`` are shares (0 to 1), ``gain`` a share (0.05 = 5 % faster).

Fields that a daemon older than this client does not send (``warnings``,
``decision``, ``occupancy``, ``idle_threads``) are empty or None.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple

__all__ = [
    "Triple",
    "Volumes",
    "Performance",
    "Launch",
    "Measurement",
    "MeasureSummary",
    "NotLaunchable",
    "PlausibilityWarning",
    "Choice",
    "BaselineAdvice",
    "Decision",
    "Incomplete",
    "Estimate",
    "RankedConfig",
    "Baseline",
    "Ranking",
    "Device",
    "Health",
]

Triple = Tuple[int, int, int]


def _triple(v: Any) -> Triple:
    """[x, y, z] of the JSON as a tuple (hashable, comparable), trailing 1s filled in."""
    v = list(v or [])
    return tuple(int(x) for x in (v + [1, 1, 1])[:3])  # type: ignore[return-value]


def _num(v: Any) -> Optional[float]:
    return None if v is None else float(v)


def _int(v: Any) -> Optional[int]:
    return None if v is None else int(v)


class _Raw(Mapping):
    """Read-only mapping over ``raw``: keeps dict-style access of the plain-dict API."""

    raw: Dict[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.raw[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.raw)

    def __len__(self) -> int:
        return len(self.raw)

    # Mapping defines __eq__ over items and so drops hashing; dataclasses compare by
    # fields, which are derived from raw, so comparing raw says the same.
    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Raw):
            return self.raw == other.raw
        if isinstance(other, dict):
            return self.raw == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


_VIEW = dict(frozen=True, eq=False)


def _raw_field() -> Any:
    """The ``raw`` field: the JSON itself, left out of repr (it repeats every value)."""
    return field(repr=False)


@dataclass(**_VIEW)
class Volumes(_Raw):
    """Data volumes in B/Lup (``estimate`` of a response, or one field's share)."""

    l1_cycles: Optional[float]
    smx_load: Optional[float]
    l1_load: Optional[float]
    l2_load: Optional[float]
    l2_store: Optional[float]
    dram_load: Optional[float]
    dram_store: Optional[float]
    raw: Dict[str, Any] = _raw_field()

    @property
    def dram_bytes(self) -> float:
        """DRAM load plus store, B/Lup: what a bandwidth-bound kernel pays for."""
        return (self.dram_load or 0.0) + (self.dram_store or 0.0)

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Volumes":
        return cls(*(_num(d.get(k)) for k in ("l1_cycles", "smx_load", "l1_load", "l2_load",
                                              "l2_store", "dram_load", "dram_store")),
                   raw=d)


@dataclass(**_VIEW)
class Performance(_Raw):
    """GLup/s each level allows (None: no limit from it), the prediction and its limiter."""

    predicted: float
    limiter: str
    flops: Optional[float]
    l1: Optional[float]
    l2: Optional[float]
    dram: Optional[float]
    latency: Optional[float]
    blocks: Optional[float]
    stores: Optional[float]
    l2_requests: Optional[float]
    l1_requests: Optional[float]
    raw: Dict[str, Any] = _raw_field()

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Performance":
        return cls(float(d.get("predicted") or 0.0), str(d.get("limiter") or ""),
                   *(_num(d.get(k)) for k in ("flops", "l1", "l2", "dram", "latency",
                                              "blocks", "stores", "l2_requests",
                                              "l1_requests")),
                   raw=d)


@dataclass(**_VIEW)
class Launch(_Raw):
    """How a configuration runs: grid and wave in thread blocks, occupancy."""

    block: Triple
    folding: Triple
    grid: Triple
    threads_per_block: int
    blocks_per_sm: int
    launchable: bool
    raw: Dict[str, Any] = _raw_field()

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Launch":
        return cls(_triple(d.get("block")), _triple(d.get("folding")), _triple(d.get("grid")),
                   int(d.get("threads_per_block") or 0), int(d.get("blocks_per_sm") or 0),
                   bool(d.get("launchable", True)), raw=d)


@dataclass(**_VIEW)
class Measurement(_Raw):
    """One timed configuration (``results[].measured``): milliseconds per kernel run and
    GLup/s from the median, or ``error`` when it could not be timed."""

    ms_median: Optional[float]
    glups: Optional[float]
    predicted_over_measured: Optional[float]
    gpu: Optional[str]
    error: Optional[Dict[str, Any]]
    raw: Dict[str, Any] = _raw_field()

    @property
    def ok(self) -> bool:
        return self.error is None and self.glups is not None

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Measurement":
        return cls(_num(d.get("ms_median")), _num(d.get("glups")),
                   _num(d.get("predicted_over_measured")), d.get("gpu"), d.get("error"), raw=d)


@dataclass(**_VIEW)
class MeasureSummary(_Raw):
    """The ``measure`` object of a ranking: status "ok" with how many were timed and the
    fastest, or "unavailable" with the reason (no GPU, driver or NVRTC)."""

    status: str
    measured: int
    reason: Optional[str]
    fastest: Optional[Dict[str, Any]]
    raw: Dict[str, Any] = _raw_field()

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "MeasureSummary":
        return cls(str(d.get("status") or ""), int(d.get("measured") or 0), d.get("reason"),
                   d.get("fastest"), raw=d)


@dataclass(**_VIEW)
class NotLaunchable(_Raw):
    """A configuration of the search space that cannot run, and why."""

    block: Triple
    folding: Triple
    reason: str
    raw: Dict[str, Any] = _raw_field()

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "NotLaunchable":
        return cls(_triple(d.get("block")), _triple(d.get("folding")),
                   str(d.get("reason") or ""), raw=d)


class PlausibilityWarning(_Raw, UserWarning):
    """One entry of ``warnings`` (docs/api.md, "Warnings"): the request is valid, but the
    prediction may not describe the kernel its author runs.

    Also a Python warning category: ``estimate`` warns (``warnings.warn``) with each of
    an answer's warnings and ``rank`` with each of the ranking's top-level ones (those
    of the request, and "configurations_with_warnings" with how many ranked
    configurations have some), so they reach a person who reads only ``.predicted``.
    Python's default filter shows each distinct message once per call site. The
    standard filters change that::

        import warnings
        from launchrank_client import PlausibilityWarning
        warnings.simplefilter("error", PlausibilityWarning)   # raise instead
        warnings.simplefilter("ignore", PlausibilityWarning)  # read .warnings only

    Under "error" the call raises the first one, and the answer is not returned.

    Attributes:
        code:    stable kind: "domain_dimensions", "access_outside_field",
                 "stores_do_not_cover_domain", "below_compulsory_traffic",
                 "load_not_folded" or (a ranking's top level)
                 "configurations_with_warnings".
        message: a sentence with the numbers.
        path:    JSON path of the input concerned (``kernel.fields[0].loads[0][0]``),
                 "" for the whole kernel.
        raw:     the JSON object.
    """

    def __init__(self, code: str, message: str, path: str, raw: Dict[str, Any]) -> None:
        self.code = code
        self.message = message
        self.path = path
        self.raw = raw
        UserWarning.__init__(self, "%s%s: %s" % (code, " at " + path if path else "",
                                                   message))

    def __repr__(self) -> str:
        return "PlausibilityWarning(code=%r, message=%r, path=%r)" % (
            self.code, self.message, self.path)

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""

    def __reduce__(self):
        return (type(self), (self.code, self.message, self.path, self.raw))

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "PlausibilityWarning":
        return cls(str(d.get("code") or ""), str(d.get("message") or ""),
                   str(d.get("path") or ""), raw=d)


def _warnings(v: Any) -> List[PlausibilityWarning]:
    return [PlausibilityWarning.from_json(w) for w in v or [] if isinstance(w, dict)]


@dataclass(**_VIEW)
class Choice(_Raw):
    """A configuration the decision names: ``best``, ``median``, ``worst``, a member of
    ``tie_group`` or ``recommended``.

    Attributes:
        rank:         its place in the whole ranking (1 = best predicted), also beyond
                      ``search.top``.
        block, folding: the configuration.
        predicted:    predicted GLup/s.
        occupancy:    resident threads per SM over the device's maximum (0 to 1);
                      None for best/median/worst, which do not carry it.
        idle_threads: share of launched threads that update no lattice point; None as
                      for occupancy.
        reason:       ``recommended`` only: one line, why this configuration.
    """

    rank: int
    block: Triple
    folding: Triple
    predicted: float
    occupancy: Optional[float]
    idle_threads: Optional[float]
    reason: Optional[str]
    raw: Dict[str, Any] = _raw_field()

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Choice":
        return cls(int(d.get("rank") or 0), _triple(d.get("block")), _triple(d.get("folding")),
                   float(d.get("predicted") or 0.0), _num(d.get("occupancy")),
                   _num(d.get("idle_threads")), d.get("reason"), raw=d)


def _choice(v: Any) -> Optional[Choice]:
    return Choice.from_json(v) if isinstance(v, dict) else None


@dataclass(**_VIEW)
class BaselineAdvice(_Raw):
    """``decision.baseline``: the request's ``search.baseline`` (the launch the code
    generator uses today) against the recommendation, as launchrank judges it.

    Attributes:
        block, folding: the baseline.
        rank:      its place in the whole ranking; None when it cannot run.
        predicted: its predicted GLup/s; None when it cannot run.
        gain:      the recommendation's prediction over the baseline's, minus 1 (0.05:
                   5 % faster); None when it cannot run.
        advice:    "keep" (the gain lies inside the device's precision and the baseline
                   has no warnings) or "switch".
        reason:    one line: the advice and the numbers behind it.
    """

    block: Triple
    folding: Triple
    rank: Optional[int]
    predicted: Optional[float]
    gain: Optional[float]
    advice: str
    reason: str
    raw: Dict[str, Any] = _raw_field()

    @property
    def keep(self) -> bool:
        """True when launchrank advises keeping the baseline."""
        return self.advice == "keep"

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "BaselineAdvice":
        return cls(_triple(d.get("block")), _triple(d.get("folding")), _int(d.get("rank")),
                   _num(d.get("predicted")), _num(d.get("gain")), str(d.get("advice") or ""),
                   str(d.get("reason") or ""), raw=d)


@dataclass(**_VIEW)
class Decision(_Raw):
    """A ranking's ``decision`` (docs/api.md, "The decision"): the configurations the
    model cannot tell apart from the best, the one to use among them and why.
    Configurations with warnings are left out (unless every one has some).

    Attributes:
        precision:   the device's rank precision: predictions within this share of
                     the best are a tie.
        considered:  how many configurations the decision looked at.
        best, median, worst: of the considered ones (None when nothing can run).
        tie_group:   every considered configuration within ``precision`` of the best,
                     in rank order, with occupancy and idle threads.
        recommended: the preferred member of the tie group, with its ``reason``; None
                     when every configuration has warnings (``note`` says so).
        baseline:    only when the request had ``search.baseline`` (``rank(...,
                     baseline=...)`` sends it): a :class:`BaselineAdvice`.
        note:        why there is no recommendation, when there is none.
        incomplete:  only when the ranking ran past its time limit: a sentence saying
                     the decision covers the N of M configurations evaluated before it.
    """

    precision: float
    considered: int
    best: Optional[Choice]
    median: Optional[Choice]
    worst: Optional[Choice]
    tie_group: List[Choice]
    recommended: Optional[Choice]
    baseline: Optional[BaselineAdvice]
    note: Optional[str]
    raw: Dict[str, Any] = _raw_field()
    incomplete: Optional[str] = None

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Decision":
        b = d.get("baseline")
        return cls(float(d.get("precision") or 0.0), int(d.get("considered") or 0),
                   _choice(d.get("best")), _choice(d.get("median")), _choice(d.get("worst")),
                   [Choice.from_json(x) for x in d.get("tie_group") or []
                    if isinstance(x, dict)],
                   _choice(d.get("recommended")),
                   BaselineAdvice.from_json(b) if isinstance(b, dict) else None,
                   d.get("note"), raw=d, incomplete=d.get("incomplete"))


@dataclass(**_VIEW)
class Incomplete(_Raw):
    """Why a ranking covers only part of its search space (docs/api.md, "A ranking
    past its time limit"): ``reason`` ("time_limit"), ``evaluated`` of ``of``
    configurations (cached or estimated) before the limit of ``time_limit`` seconds,
    and a one-line ``message`` saying what to do. The ranking's results, decision and
    not_launchable cover those configurations only."""

    reason: str
    evaluated: int
    of: int
    time_limit: float
    message: str
    raw: Dict[str, Any] = _raw_field()

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Incomplete":
        return cls(str(d.get("reason") or ""), int(d.get("evaluated") or 0),
                   int(d.get("of") or 0), float(d.get("time_limit") or 0.0),
                   str(d.get("message") or ""), raw=d)


@dataclass(**_VIEW)
class Estimate(_Raw):
    """The prediction for one launch configuration (``estimate()``)."""

    model_version: str
    device: str
    domain: Triple
    launch: Launch
    estimate: Volumes
    performance: Performance
    fields: Dict[str, Volumes]
    cached: bool
    raw: Dict[str, Any] = _raw_field()
    #: plausibility warnings of the request and this configuration (empty: none)
    warnings: List[PlausibilityWarning] = field(default_factory=list)

    @property
    def predicted(self) -> float:
        """Predicted GLup/s."""
        return self.performance.predicted

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Estimate":
        return cls(str(d.get("model_version") or ""), str(d.get("device") or ""),
                   _triple(d.get("domain")), Launch.from_json(d.get("launch") or {}),
                   Volumes.from_json(d.get("estimate") or {}),
                   Performance.from_json(d.get("performance") or {}),
                   {k: Volumes.from_json(v) for k, v in (d.get("fields") or {}).items()},
                   bool(d.get("cached")), raw=d, warnings=_warnings(d.get("warnings")))


@dataclass(**_VIEW)
class RankedConfig(_Raw):
    """One entry of a ranking's ``results``, best first (rank 1). ``occupancy``:
    resident threads per SM over the device's maximum; ``idle_threads``: share of the
    launched threads that update no lattice point (both 0 to 1, None from a daemon
    that does not send them); ``warnings``: this configuration's plausibility
    warnings (the decision leaves configurations with warnings out)."""

    rank: int
    block: Triple
    folding: Triple
    launch: Launch
    estimate: Volumes
    performance: Performance
    measured: Optional[Measurement]
    raw: Dict[str, Any] = _raw_field()
    occupancy: Optional[float] = None
    idle_threads: Optional[float] = None
    warnings: List[PlausibilityWarning] = field(default_factory=list)

    @property
    def predicted(self) -> float:
        """Predicted GLup/s."""
        return self.performance.predicted

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "RankedConfig":
        m = d.get("measured")
        return cls(int(d.get("rank") or 0), _triple(d.get("block")), _triple(d.get("folding")),
                   Launch.from_json(d.get("launch") or {}),
                   Volumes.from_json(d.get("estimate") or {}),
                   Performance.from_json(d.get("performance") or {}),
                   Measurement.from_json(m) if isinstance(m, dict) else None, raw=d,
                   occupancy=_num(d.get("occupancy")), idle_threads=_num(d.get("idle_threads")),
                   warnings=_warnings(d.get("warnings")))


@dataclass(frozen=True)
class Baseline:
    """The configuration a code generator would use without launchrank (``rank(...,
    baseline=...)``), predicted by an extra estimate the client makes, compared with the
    ranking's best. The same call sends it as the request's ``search.baseline``, so
    launchrank also ranks it and judges it against its recommendation:
    ``Ranking.decision.baseline`` (a :class:`BaselineAdvice`, with "keep" or "switch").

    Attributes:
        block, folding: the baseline configuration.
        estimate:  its prediction (an :class:`Estimate`).
        predicted: its predicted GLup/s.
        speedup:   best predicted GLup/s over the baseline's (> 1: the ranking found
                   something faster); None when the ranking returned no result.
        rank:      the baseline's rank among the returned results when it is one of
                   them, else None (below ``top``); its rank in the whole ranking is
                   ``decision.baseline.rank``.
    """

    block: Triple
    folding: Triple
    estimate: Estimate
    predicted: float
    speedup: Optional[float]
    rank: Optional[int]


@dataclass(**_VIEW)
class Ranking(_Raw):
    """The answer of ``rank()``: launchable configurations best first, those that cannot
    run with the reason, measurements when asked for, and the baseline when given;
    ``decision`` (a :class:`Decision`: tie group, recommendation, baseline advice) and
    ``warnings`` (about the request, and how many configurations have some);
    ``incomplete`` (an :class:`Incomplete`) only when the time limit ran out first, so
    that the ranking covers part of the space: test ``ranking.incomplete is None``."""

    model_version: str
    device: str
    domain: Triple
    evaluated: int
    launchable: int
    cached_results: int
    results: List[RankedConfig]
    not_launchable: List[NotLaunchable]
    measure: Optional[MeasureSummary]
    cached: bool
    raw: Dict[str, Any] = _raw_field()
    baseline: Optional[Baseline] = None
    decision: Optional[Decision] = None
    warnings: List[PlausibilityWarning] = field(default_factory=list)
    incomplete: Optional[Incomplete] = None

    @property
    def best(self) -> Optional[RankedConfig]:
        """The best predicted configuration (None when nothing can run)."""
        return self.results[0] if self.results else None

    @property
    def recommended(self) -> Optional[Choice]:
        """``decision.recommended``: the configuration to use, with its ``reason`` (None
        when every configuration has warnings, or without a decision)."""
        return self.decision.recommended if self.decision is not None else None

    @classmethod
    def from_json(cls, d: Dict[str, Any], baseline: Optional[Baseline] = None) -> "Ranking":
        m = d.get("measure")
        dec = d.get("decision")
        inc = d.get("incomplete")
        return cls(str(d.get("model_version") or ""), str(d.get("device") or ""),
                   _triple(d.get("domain")), int(d.get("evaluated") or 0),
                   int(d.get("launchable") or 0), int(d.get("cached_results") or 0),
                   [RankedConfig.from_json(r) for r in d.get("results") or []],
                   [NotLaunchable.from_json(r) for r in d.get("not_launchable") or []],
                   MeasureSummary.from_json(m) if isinstance(m, dict) else None,
                   bool(d.get("cached")), raw=d, baseline=baseline,
                   decision=Decision.from_json(dec) if isinstance(dec, dict) else None,
                   warnings=_warnings(d.get("warnings")),
                   incomplete=Incomplete.from_json(inc) if isinstance(inc, dict) else None)


@dataclass(**_VIEW)
class Device(_Raw):
    """A GPU model: the figures that drive the model most; every figure is in ``raw``
    (and ``units`` and ``sources`` say their units and where they come from)."""

    name: str
    sm_count: int
    clock_ghz: float
    l2_bytes: int
    l2_bw_gbs: float
    dram_bw_gbs: float
    raw: Dict[str, Any] = _raw_field()

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Device":
        return cls(str(d.get("name") or ""), int(d.get("sm_count") or 0),
                   float(d.get("clock_ghz") or 0.0), int(d.get("l2_bytes") or 0),
                   float(d.get("l2_bw_gbs") or 0.0), float(d.get("dram_bw_gbs") or 0.0), raw=d)


@dataclass(**_VIEW)
class Health(_Raw):
    """``status`` "ok", ``cache`` "ok" or why predictions are not cached, and the model
    version the numbers come from."""

    status: str
    cache: str
    model_version: str
    raw: Dict[str, Any] = _raw_field()

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Health":
        return cls(str(d.get("status") or ""), str(d.get("cache") or ""),
                   str(d.get("model_version") or ""), raw=d)


@dataclass(**_VIEW)
class KernelResources(_Raw):
    """One kernel's resources as ptxas reports them (``registers()``): registers per
    thread; spill stores, spill loads and the stack frame (local memory) in bytes per
    thread; static shared memory in bytes per block; the constant banks ptxas lists in
    bytes (None when it lists none, as for sm_90)."""

    name: str
    registers: int
    spill_store_bytes: int
    spill_load_bytes: int
    stack_bytes: int
    shared_bytes: int
    constant_bytes: Optional[int]
    raw: Dict[str, Any] = _raw_field()

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "KernelResources":
        return cls(str(d["name"]), int(d["registers"]), int(d["spill_store_bytes"]),
                   int(d["spill_load_bytes"]), int(d["stack_bytes"]), int(d["shared_bytes"]),
                   _int(d.get("constant_bytes")), raw=d)


@dataclass(**_VIEW)
class Resources(_Raw):
    """What ``launchrank registers`` printed: the architecture compiled for, NVRTC's
    version ("13.0") and each kernel's resources, in the order ptxas compiled them."""

    arch: str
    nvrtc: str
    kernels: List[KernelResources]
    raw: Dict[str, Any] = _raw_field()

    def kernel(self, name: str) -> KernelResources:
        """The kernel of that name: ptxas's (mangled) or, for a C++ kernel, its bare name
        when only one kernel has it. KeyError otherwise."""
        if any(k.name == name for k in self.kernels):
            return next(k for k in self.kernels if k.name == name)
        bare = [k for k in self.kernels if k.name.startswith("_Z%d%s" % (len(name), name))]
        if len(bare) == 1:
            return bare[0]
        raise KeyError("%s: the kernels are %s" % (name, ", ".join(k.name for k in
                                                                      self.kernels)))

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Resources":
        return cls(str(d["arch"]), str(d["nvrtc"]),
                   [KernelResources.from_json(k) for k in d["kernels"]], raw=d)
