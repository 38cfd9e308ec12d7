"""
launchrank_build: the PEP 517 build backend of launchrank-client, standard library only.

Why a backend of our own: ``pip install ./clients/python`` has to work offline in a
fresh virtual environment, which has pip but no network and cannot count on setuptools
or wheel. pyproject.toml names this file with ``requires = []`` and ``backend-path``,
so pip needs nothing beyond what it has. The package is pure Python: a wheel is a zip
of ``launchrank_client/`` plus the ``.dist-info`` files (PEP 427, PEP 376 RECORD with
sha256), an sdist a tar.gz of the source (PEP 517/625), an editable wheel a ``.pth``
file naming this folder (PEP 660).

Builds are reproducible: sorted entries, and every timestamp is SOURCE_DATE_EPOCH when
set, else 1980-01-01 (the earliest a zip can say).

Hooks: build_wheel, build_sdist, build_editable, get_requires_for_build_wheel,
get_requires_for_build_sdist, get_requires_for_build_editable,
prepare_metadata_for_build_wheel, prepare_metadata_for_build_editable.
"""

import base64
import gzip
import hashlib
import io
import json
import os
import re
import tarfile
import time
import zipfile
from typing import Any, Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "launchrank_client"
VERSION_FILE = os.path.join(ROOT, PACKAGE, "_version.py")
WHEEL_TAG = "py3-none-any"
# What an sdist carries besides the package: enough to build the wheel again.
SDIST_EXTRA = ["pyproject.toml", "README.md", "_build_backend", "examples"]

Files = List[Tuple[str, bytes]]  # (path in the archive, contents)


# -- project metadata ---------------------------------------------------------------


def _version() -> str:
    """__version__ of launchrank_client/_version.py, read without importing the package
    (the build runs before it is installed, possibly on another Python)."""
    with open(VERSION_FILE, encoding="utf-8") as f:
        m = re.search(r'^__version__\s*=\s*["\']([^"\']+)["\']', f.read(), re.M)
    if m is None:
        raise RuntimeError("%s has no line __version__ = \"X.Y.Z\"" % VERSION_FILE)
    return m.group(1)


def _project() -> Dict[str, Any]:
    """The [project] table of pyproject.toml (tomllib on Python 3.11+, else the small
    reader below, enough for the plain strings and lists that table uses)."""
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        data = f.read()
    try:
        import tomllib  # type: ignore[import-not-found]
    except ImportError:
        return _read_toml_table(data.decode("utf-8"), "project")
    return tomllib.loads(data.decode("utf-8")).get("project", {})


_TOML_VALUE = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _read_toml_table(text: str, table: str) -> Dict[str, Any]:
    """key = "string", key = ["a", ...] and key = {k = "v"} lines of one table: the subset
    pyproject.toml's [project] keeps to, so that Python 3.9 and 3.10 can build too."""
    out: Dict[str, Any] = {}
    current = None
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        header = re.fullmatch(r"\[([^\[\]]+)\]", line)
        if header:
            current = header.group(1).strip()
            continue
        if current != table:
            continue
        key, sep, value = (s.strip() for s in line.partition("="))
        if not sep:
            raise RuntimeError("pyproject.toml line %d: expected key = value" % number)
        out[key] = _toml_value(value, number)
    return out


def _toml_value(value: str, number: int) -> Any:
    # TOML basic strings escape as JSON strings do (\", \\, \n, \uXXXX).
    strings = [json.loads('"%s"' % s) for s in _TOML_VALUE.findall(value)]
    if value.startswith('"'):
        return strings[0]
    if value.startswith("["):
        return strings
    if value.startswith("{"):
        keys = re.findall(r"([A-Za-z0-9_-]+)\s*=", value)
        return dict(zip(keys, strings))
    raise RuntimeError("pyproject.toml line %d: this backend reads only strings, lists "
                       "and inline tables of strings on Python < 3.11" % number)


def _dist_name() -> str:
    """The project name as wheel and sdist file names spell it (PEP 427/625)."""
    return re.sub(r"[-_.]+", "_", _project()["name"]).lower()


def _dist_info() -> str:
    return "%s-%s.dist-info" % (_dist_name(), _version())


def _metadata() -> bytes:
    """Core metadata 2.1 (PKG-INFO, METADATA), the README as description."""
    p = _project()
    lines = ["Metadata-Version: 2.1", "Name: " + p["name"], "Version: " + _version()]
    if p.get("description"):
        lines.append("Summary: " + p["description"])
    if p.get("requires-python"):
        lines.append("Requires-Python: " + p["requires-python"])
    license_ = p.get("license")
    if isinstance(license_, dict) and license_.get("text"):
        lines.append("License: " + license_["text"])
    for dep in p.get("dependencies") or []:
        lines.append("Requires-Dist: " + dep)
    body = ""
    if p.get("readme"):
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(ROOT, p["readme"]), encoding="utf-8") as f:
            body = f.read()
    return ("\n".join(lines) + "\n\n" + body).encode("utf-8")


def _wheel_file() -> bytes:
    return ("Wheel-Version: 1.0\nGenerator: launchrank_build %s\nRoot-Is-Purelib: true\n"
            "Tag: %s\n" % (_version(), WHEEL_TAG)).encode("utf-8")


def _dist_info_files() -> Files:
    d = _dist_info()
    return [(d + "/METADATA", _metadata()), (d + "/WHEEL", _wheel_file()),
            (d + "/top_level.txt", (PACKAGE + "\n").encode("utf-8"))]


# -- source files -------------------------------------------------------------------


def _tree(rel: str) -> Files:
    """Every file under ROOT/rel (or the file rel), sorted, without caches and bytecode."""
    top = os.path.join(ROOT, rel)
    if os.path.isfile(top):
        with open(top, "rb") as f:
            return [(rel, f.read())]
    out: Files = []
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith((".pyc", ".pyo")) or name.startswith("."):
                continue
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                out.append((os.path.relpath(path, ROOT).replace(os.sep, "/"), f.read()))
    return out


def _timestamp() -> int:
    """SOURCE_DATE_EPOCH (reproducible builds), else 1980-01-01 00:00 UTC."""
    return max(315532800, int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")))


# -- wheels -------------------------------------------------------------------------


def _record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _record(files: Files) -> bytes:
    """RECORD: path,sha256=...,size per file and RECORD itself without either. Our paths
    never need CSV quoting; one that would is refused rather than written wrongly."""
    rows = []
    for path, data in files:
        if any(c in path for c in ',"\r\n'):
            raise RuntimeError("cannot write %r into RECORD without CSV quoting" % path)
        rows.append("%s,%s,%d" % (path, _record_hash(data), len(data)))
    rows.append(_dist_info() + "/RECORD,,")
    return ("\n".join(rows) + "\n").encode("utf-8")


def _write_wheel(directory: str, files: Files) -> str:
    """A wheel of files plus .dist-info in directory; returns its file name."""
    files = files + _dist_info_files()
    files.append((_dist_info() + "/RECORD", _record(files)))
    name = "%s-%s-%s.whl" % (_dist_name(), _version(), WHEEL_TAG)
    stamp = time.gmtime(_timestamp())[:6]
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files:
            info = zipfile.ZipInfo(path, date_time=stamp)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return name


def _write_metadata(metadata_directory: str) -> str:
    """The .dist-info folder a wheel will have, for prepare_metadata_*."""
    d = _dist_info()
    for path, data in _dist_info_files():
        target = os.path.join(metadata_directory, *path.split("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
    return d


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                metadata_directory: Optional[str] = None) -> str:
    """PEP 517: the wheel of launchrank_client, pure Python (py3-none-any)."""
    return _write_wheel(wheel_directory, _tree(PACKAGE))


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                   metadata_directory: Optional[str] = None) -> str:
    """PEP 660: a wheel whose .pth file puts this source folder on sys.path, so edits
    to launchrank_client/ take effect without reinstalling."""
    pth = ("_%s_editable.pth" % PACKAGE, (ROOT + "\n").encode("utf-8"))
    return _write_wheel(wheel_directory, [pth])


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    """PEP 517: NAME-VERSION.tar.gz with PKG-INFO, the package, the backend and examples."""
    base = "%s-%s" % (_dist_name(), _version())
    files = [("PKG-INFO", _metadata())] + _tree(PACKAGE)
    for extra in SDIST_EXTRA:
        if os.path.exists(os.path.join(ROOT, extra)):
            files += _tree(extra)
    name = base + ".tar.gz"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path, data in sorted(files):
            info = tarfile.TarInfo(base + "/" + path)
            info.size, info.mtime, info.mode = len(data), _timestamp(), 0o644
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    with open(os.path.join(sdist_directory, name), "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=_timestamp()) as gz:
            gz.write(buf.getvalue())
    return name


def prepare_metadata_for_build_wheel(metadata_directory: str,
                                     config_settings: Optional[Dict[str, Any]] = None) -> str:
    """PEP 517: the .dist-info folder without building the wheel."""
    return _write_metadata(metadata_directory)


def prepare_metadata_for_build_editable(metadata_directory: str,
                                        config_settings: Optional[Dict[str, Any]] = None
                                        ) -> str:
    """PEP 660: same metadata as the wheel."""
    return _write_metadata(metadata_directory)


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    """Nothing: the build uses the standard library only."""
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[Dict[str, Any]] = None
                                    ) -> List[str]:
    return []
