"""
Local: launchrank without a daemon, by running the ``launchrank`` executable.

A code generator that runs on one machine, in CI, or inside a build needs no service:
each call runs ``launchrank estimate -``, ``launchrank rank -`` or ``launchrank devices``
with the request on standard input and reads the same JSON the daemon would answer. The
executable exits 0 with the answer on stdout, 2 for a bad request with the API's error
object on stderr (mapped to the same exception and HTTP status as over HTTP), and 1 for
other failures. Without ``db`` nothing is cached: each call computes afresh, which for
a single ranking costs the same as a daemon's first answer.
"""

import json
import os
import re
import shutil
import subprocess
from typing import Any, Dict, List, Optional, Sequence

from ._api import _Backend
from .errors import (LaunchrankConnectionError, LaunchrankError, LaunchrankRequestError,
                     LaunchrankResponseError, LaunchrankServerError, LaunchrankTimeoutError,
                     error_for)
from .results import Health, Resources

__all__ = ["Local", "EXECUTABLE"]

EXECUTABLE = "launchrank"


def find_executable(executable: Optional[str] = None) -> str:
    """The launchrank executable: the path given, or a name looked up on PATH
    ("launchrank" by default). Raises LaunchrankConnectionError naming what was
    looked for, since without it this back end cannot answer anything."""
    wanted = executable or EXECUTABLE
    if os.sep in wanted or (os.altsep and os.altsep in wanted):
        if os.path.isfile(wanted) and os.access(wanted, os.X_OK):
            return os.path.abspath(wanted)
        raise LaunchrankConnectionError(wanted, "no executable file there")
    found = shutil.which(wanted)
    if found is None:
        raise LaunchrankConnectionError(
            wanted, "not found on PATH; install launchrank, put it on PATH, or pass "
            "Local(executable='/path/to/launchrank')")
    return found


class Local(_Backend):
    """launchrank's API answered by the local executable, one process per call.

    Args:
        executable: path or name of the launchrank executable (default: "launchrank"
                    on PATH); checked now, so a missing one fails here, not later.
        timeout:    seconds one call may run (None: no limit); past it the process
                    is killed and LaunchrankTimeoutError raised.
        db:         SQLite file to cache predictions in (``--db``), shared with a
                    daemon or other runs; default: no cache.
        threads:    threads a ranking uses (``--threads``; default: every core).
    """

    def __init__(self, executable: Optional[str] = None, *, timeout: Optional[float] = None,
                 db: Optional[str] = None, threads: Optional[int] = None) -> None:
        self.executable = find_executable(executable)
        self.timeout = timeout
        self.db = db
        self.threads = threads

    def __repr__(self) -> str:
        return "Local(%r)" % self.executable

    # -- the API's transport -------------------------------------------------

    def _post(self, endpoint: str, body: Dict[str, Any]) -> Dict[str, Any]:
        args = [endpoint]
        if self.db is not None:
            args += ["--db", self.db]
        if endpoint == "rank" and self.threads is not None:
            args += ["--threads", str(int(self.threads))]
        return self._run(args + ["-"], json.dumps(body).encode("utf-8"))

    def _get_devices(self, name: Optional[str] = None) -> Dict[str, Any]:
        # "--" so that a name starting with "-" is a name, as in a URL, not an option.
        return self._run(["devices"] + (["--", name] if name is not None else []))

    def health(self) -> Health:
        """That the executable runs (``launchrank --version``) and its model version;
        ``cache`` says whether calls are cached (only with ``db``)."""
        text = self._run_text(["--version"]).strip()
        m = re.search(r"\(model ([^)\s]+)\)", text)
        if m is None:
            raise LaunchrankResponseError(0, "invalid_response",
                                          "%s --version printed %r, not 'launchrank VERSION "
                                          "(model MODEL)'" % (self.executable, text[:200]))
        cache = ("ok" if self.db is not None else
                 "off: Local runs launchrank without a cache unless given db=PATH")
        return Health.from_json({"status": "ok", "cache": cache, "model_version": m.group(1)})

    def registers(self, source: str, device: Optional[str] = None, *,
                  arch: Optional[str] = None, kernel: Optional[str] = None,
                  options: Sequence[str] = ()) -> Resources:
        """``launchrank registers --json``: each kernel's registers, spills and memory as
        ptxas reports them when NVRTC compiles ``source`` (a path, or the CUDA text: it
        has a newline or "__global__") for ``device``'s architecture or ``arch``.
        LaunchrankRequestError when it does not compile or names no such kernel;
        LaunchrankUnavailableError (code "unavailable") without NVRTC or for an
        architecture it cannot target (CUDA 13: the V100's sm_70)."""
        args = ["registers", "--json"]
        if device is not None:
            args += ["--device", str(device)]
        if arch is not None:
            args += ["--arch", str(arch)]
        if kernel is not None:
            args += ["--kernel", str(kernel)]
        args += ["--option=" + str(o) for o in options]
        text = str(source)
        if "\n" in text or "__global__" in text:
            return Resources.from_json(self._run(args + ["-"], text.encode("utf-8")))
        return Resources.from_json(self._run(args + ["--", os.fspath(source)]))

    # -- processes -----------------------------------------------------------

    def _run(self, args: List[str], stdin: Optional[bytes] = None) -> Any:
        """The JSON printed by ``launchrank ARGS``."""
        out = self._run_text(args, stdin)
        try:
            return json.loads(out)
        except ValueError as e:
            raise LaunchrankResponseError(0, "invalid_response", "%s printed no JSON (%s): %r"
                                          % (self._command(args), e, out[:200])) from None

    def _run_text(self, args: List[str], stdin: Optional[bytes] = None) -> str:
        """Standard output of ``launchrank ARGS`` when it exits 0, else its error."""
        try:
            p = subprocess.run([self.executable] + args, input=stdin if stdin else b"",
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=self.timeout)
        except subprocess.TimeoutExpired:
            raise LaunchrankTimeoutError(self.executable, "%s ran longer than %g s; pass a "
                                         "larger timeout to Local()"
                                         % (self._command(args), self.timeout)) from None
        except OSError as e:
            raise LaunchrankConnectionError(self.executable, "cannot run it: %s" % e) from None
        if p.returncode != 0:
            raise self._failure(args, p.returncode, p.stderr.decode("utf-8", "replace"))
        return p.stdout.decode("utf-8", "replace")

    def _failure(self, args: List[str], returncode: int, stderr: str) -> LaunchrankError:
        """The exception of a failed run: the API's error object when the executable
        printed one (a bad request, exit 2), else its own words with the exit status."""
        err = _error_object(stderr)
        if err is not None:
            return error_for(0, str(err.get("code") or "internal"), str(err.get("message", "")),
                             str(err.get("path") or ""))
        said = stderr.strip()[-1000:] or "nothing on stderr"
        if returncode == 2:
            return LaunchrankRequestError(400, "invalid_usage", "%s: %s"
                                          % (self._command(args), said))
        how = ("exited with status %d" % returncode if returncode > 0
               else "was killed by signal %d" % -returncode)
        return LaunchrankServerError(0, "failed" if returncode > 0 else "crashed",
                                     "%s %s: %s" % (self._command(args), how, said))

    def _command(self, args: List[str]) -> str:
        return " ".join([os.path.basename(self.executable)] + args)


def _error_object(stderr: str) -> Optional[Dict[str, Any]]:
    """The {"error": {...}} object on stderr (its last JSON line: warnings, such as an
    unusable cache database, may come first), or None."""
    for line in reversed(stderr.splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            err = json.loads(line).get("error")
        except (ValueError, AttributeError):
            continue
        if isinstance(err, dict):
            return err
    return None
