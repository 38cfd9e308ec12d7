#!/usr/bin/env python3
"""
test_package: launchrank_client as a package.

- its version is meson.build's project version, kept in one place;
- the in-tree PEP 517 backend (clients/python/_build_backend) builds a valid wheel
  (RECORD hashes, metadata, py.typed, no bytecode), an sdist that builds the same wheel
  again, reproducibly, and needs nothing installed;
- `pip install --no-index ./clients/python` into a fresh virtual environment without
  system site packages, setuptools or wheel installs it, and the installed copy (not the
  source tree) imports and runs the local back end; an editable install works too.
  Skipped, saying why, when this Python cannot make a virtual environment with pip;
- the public surface: exception classes and the built-ins they subclass, results as
  read-only mappings over .raw.

    python3 tests/python/test_package.py [PATH/TO/launchrank]
"""

import base64
import hashlib
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(HERE))
PACKAGE_ROOT = os.path.join(SOURCE_ROOT, "clients", "python")
sys.path.insert(0, PACKAGE_ROOT)

import launchrank_client  # noqa: E402
from launchrank_client import errors, results  # noqa: E402

LAUNCHRANK_BIN = os.environ.get("LAUNCHRANK_BIN", "")
VENV_TIMEOUT_S = 120


def load_backend(root=PACKAGE_ROOT):
    """The build backend of the package at root, imported as pip would (backend-path)."""
    path = os.path.join(root, "_build_backend")
    sys.path.insert(0, path)
    try:
        sys.modules.pop("launchrank_build", None)
        return importlib.import_module("launchrank_build")
    finally:
        sys.path.remove(path)


def meson_version():
    with open(os.path.join(SOURCE_ROOT, "meson.build"), encoding="utf-8") as f:
        m = re.search(r"project\([^)]*?version\s*:\s*'([^']+)'", f.read(), re.S)
    return m.group(1)


def clean_env():
    """The environment for a venv's processes: no PYTHONPATH (meson points it at the
    source tree, which would hide whether the installed copy works), no index."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_"))}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1",
               PIP_NO_INPUT="1")
    return env


class VersionTest(unittest.TestCase):
    def test_version_is_mesons_project_version(self):
        self.assertEqual(launchrank_client.__version__, meson_version())

    def test_the_backend_reads_the_same_version(self):
        self.assertEqual(load_backend()._version(), launchrank_client.__version__)


class BackendTest(unittest.TestCase):
    def setUp(self):
        self.backend = load_backend()
        self.tmp = tempfile.mkdtemp(prefix="launchrank-py-build-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def test_pyproject_needs_nothing_to_build(self):
        with open(os.path.join(PACKAGE_ROOT, "pyproject.toml"), encoding="utf-8") as f:
            text = f.read()
        self.assertRegex(text, r"(?m)^requires = \[\]$")
        self.assertRegex(text, r'(?m)^build-backend = "launchrank_build"$')
        self.assertRegex(text, r'(?m)^backend-path = \["_build_backend"\]$')
        for hook in ("get_requires_for_build_wheel", "get_requires_for_build_sdist",
                     "get_requires_for_build_editable"):
            self.assertEqual(getattr(self.backend, hook)(), [], hook)

    def test_the_fallback_toml_reader_agrees_with_tomllib(self):
        try:
            import tomllib
        except ImportError:
            self.skipTest("tomllib needs Python 3.11")
        with open(os.path.join(PACKAGE_ROOT, "pyproject.toml"), "rb") as f:
            data = f.read()
        self.assertEqual(self.backend._read_toml_table(data.decode(), "project"),
                         tomllib.loads(data.decode())["project"])

    def wheel(self, build=None, directory=None):
        directory = directory or self.tmp
        name = (build or self.backend.build_wheel)(directory)
        return os.path.join(directory, name)

    def test_the_wheel_is_valid_and_complete(self):
        path = self.wheel()
        version = launchrank_client.__version__
        self.assertEqual(os.path.basename(path),
                         "launchrank_client-%s-py3-none-any.whl" % version)
        info = "launchrank_client-%s.dist-info" % version
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            self.assertIn("launchrank_client/py.typed", names)
            self.assertIn("launchrank_client/__init__.py", names)
            self.assertIn("launchrank_client/_version.py", names)
            self.assertFalse([n for n in names if "__pycache__" in n or n.endswith(".pyc")])
            self.assertFalse([n for n in names if n.startswith(("_build_backend", "examples"))])
            record = z.read(info + "/RECORD").decode().splitlines()
            listed = {}
            for row in record:
                p, digest, size = row.split(",")
                listed[p] = (digest, size)
            self.assertEqual(set(listed), set(names))
            self.assertEqual(listed[info + "/RECORD"], ("", ""))
            for n in names:
                if n == info + "/RECORD":
                    continue
                data = z.read(n)
                want = "sha256=" + base64.urlsafe_b64encode(
                    hashlib.sha256(data).digest()).rstrip(b"=").decode()
                self.assertEqual(listed[n], (want, str(len(data))), n)
            meta = z.read(info + "/METADATA").decode()
            wheel = z.read(info + "/WHEEL").decode()
        self.assertIn("\nName: launchrank-client\n", meta)
        self.assertIn("\nVersion: %s\n" % version, meta)
        self.assertIn("\nRequires-Python: >=3.9\n", meta)
        self.assertIn("\nLicense: MIT\n", meta)
        self.assertIn("# launchrank_client", meta)  # the README as description
        self.assertIn("Root-Is-Purelib: true\n", wheel)
        self.assertIn("Tag: py3-none-any\n", wheel)

    def test_prepared_metadata_is_the_wheels(self):
        name = self.backend.prepare_metadata_for_build_wheel(self.tmp)
        with open(os.path.join(self.tmp, name, "METADATA"), "rb") as f:
            prepared = f.read()
        with zipfile.ZipFile(self.wheel()) as z:
            self.assertEqual(z.read(name + "/METADATA"), prepared)

    def test_builds_are_reproducible(self):
        first = self.wheel()
        with open(first, "rb") as f:
            a = f.read()
        os.remove(first)
        with open(self.wheel(), "rb") as f:
            self.assertEqual(f.read(), a)

    def test_the_sdist_builds_the_same_wheel(self):
        name = self.backend.build_sdist(self.tmp)
        base = "launchrank_client-%s" % launchrank_client.__version__
        self.assertEqual(name, base + ".tar.gz")
        with tarfile.open(os.path.join(self.tmp, name)) as tar:
            members = tar.getnames()
            for want in ("PKG-INFO", "pyproject.toml", "README.md",
                         "_build_backend/launchrank_build.py", "launchrank_client/py.typed",
                         "examples/pick_block_size.py"):
                self.assertIn(base + "/" + want, members)
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(self.tmp, **safe)
        unpacked = os.path.join(self.tmp, base)
        out = os.path.join(self.tmp, "from-sdist")
        os.mkdir(out)
        # In a separate process, as pip would: the backend must find everything there.
        code = ("import sys; sys.path.insert(0, '_build_backend'); import launchrank_build as b; "
                "print(b.build_wheel(sys.argv[1]))")
        p = subprocess.run([sys.executable, "-c", code, out], cwd=unpacked,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout.decode())
        with open(os.path.join(out, p.stdout.decode().strip()), "rb") as f:
            from_sdist = f.read()
        with open(self.wheel(), "rb") as f:
            self.assertEqual(from_sdist, f.read())

    def test_the_editable_wheel_points_at_the_source(self):
        with zipfile.ZipFile(self.wheel(self.backend.build_editable)) as z:
            pth = [n for n in z.namelist() if n.endswith(".pth")]
            self.assertEqual(len(pth), 1)
            self.assertEqual(z.read(pth[0]).decode().strip(), PACKAGE_ROOT)


class OfflineInstallTest(unittest.TestCase):
    """pip install ./clients/python in a fresh venv, with no index and no build tools."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="launchrank-py-venv-")
        cls.venv = os.path.join(cls.tmp, "venv")
        cls.python = os.path.join(cls.venv, "bin", "python")
        try:
            p = subprocess.run([sys.executable, "-m", "venv", cls.venv],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=VENV_TIMEOUT_S, env=clean_env())
        except (OSError, subprocess.TimeoutExpired) as e:
            p = None
            why = str(e)
        if p is None or p.returncode != 0 or not os.path.exists(cls.python):
            shutil.rmtree(cls.tmp, ignore_errors=True)
            why = p.stdout.decode("utf-8", "replace").strip()[-300:] if p else why
            raise unittest.SkipTest("cannot make a virtual environment with pip here "
                                    "(%s -m venv: %s); on Debian install python3-venv"
                                    % (sys.executable, why))
        p = subprocess.run([cls.python, "-m", "pip", "--version"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=VENV_TIMEOUT_S, env=clean_env())
        if p.returncode != 0:
            shutil.rmtree(cls.tmp, ignore_errors=True)
            raise unittest.SkipTest("the virtual environment has no pip (%s); on Debian "
                                    "install python3-venv"
                                    % p.stdout.decode("utf-8", "replace").strip()[-200:])
        # Take away what a bare venv may or may not have, so the build provably needs
        # neither setuptools nor wheel.
        cls.pip("uninstall", "-y", "setuptools", "wheel", check=False)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def pip(cls, *args, check=True):
        p = subprocess.run([cls.python, "-m", "pip"] + list(args), cwd=cls.tmp,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=VENV_TIMEOUT_S, env=clean_env())
        out = p.stdout.decode("utf-8", "replace")
        if check and p.returncode != 0:
            raise AssertionError("pip %s failed (%d):\n%s" % (" ".join(args), p.returncode, out))
        return out

    def run_in_venv(self, code, *args):
        p = subprocess.run([self.python, "-c", code] + list(args), cwd=self.tmp,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=VENV_TIMEOUT_S, env=clean_env())
        out = p.stdout.decode("utf-8", "replace")
        self.assertEqual(p.returncode, 0, out)
        return out

    def test_the_venv_is_isolated_and_has_no_build_tools(self):
        with open(os.path.join(self.venv, "pyvenv.cfg")) as f:
            self.assertIn("include-system-site-packages = false", f.read())
        listed = self.pip("list", "--format=json")
        names = {p["name"].lower() for p in json.loads(listed[listed.index("["):])}
        self.assertFalse(names & {"setuptools", "wheel"}, names)

    def test_pip_install_offline_then_use_the_installed_copy(self):
        self.pip("install", "--no-index", PACKAGE_ROOT)
        try:
            out = self.run_in_venv(INSTALLED_CHECK, LAUNCHRANK_BIN)
            got = json.loads(out.strip().splitlines()[-1])
            self.assertEqual(got["version"], launchrank_client.__version__)
            self.assertTrue(got["file"].startswith(self.venv), got["file"])
            self.assertTrue(got["typed"])
            if LAUNCHRANK_BIN:
                self.assertGreater(got["predicted"], 0)
        finally:
            self.pip("uninstall", "-y", "launchrank-client")

    def test_editable_install_uses_the_source_tree(self):
        self.pip("install", "--no-index", "--editable", PACKAGE_ROOT)
        try:
            out = self.run_in_venv("import launchrank_client as m; print(m.__file__)")
            self.assertEqual(os.path.dirname(out.strip()),
                             os.path.join(PACKAGE_ROOT, "launchrank_client"))
        finally:
            self.pip("uninstall", "-y", "launchrank-client")


# Run by the venv's Python: what a user would do right after installing.
INSTALLED_CHECK = r"""
import json, os, sys
import launchrank_client as m
from launchrank_client import Local
out = {"version": m.__version__, "file": m.__file__,
       "typed": os.path.exists(os.path.join(os.path.dirname(m.__file__), "py.typed"))}
if sys.argv[1:] and sys.argv[1]:
    k = {"fields": [m.field("a", [1024, 1024], loads=[["x", "y"]]),
                    m.field("b", [1024, 1024], stores=[["x", "y"]])]}
    out["predicted"] = Local(sys.argv[1]).estimate_kernel("K20m", k, [1024, 1024],
                                                          [32, 4, 1]).predicted
print(json.dumps(out))
"""


class SurfaceTest(unittest.TestCase):
    def test_errors_subclass_the_matching_builtins(self):
        cases = [
            (errors.LaunchrankConnectionError("http://h:1", "refused"), ConnectionError),
            (errors.LaunchrankTimeoutError("http://h:1", "slow"), TimeoutError),
            (errors.error_for(400, "invalid_request", "m"), ValueError),
            (errors.error_for(404, "not_found", "m"), LookupError),
            (errors.error_for(0, "unsupported_expression", "m", "p"), ValueError),
            (errors.error_for(500, "internal", "m"), RuntimeError),
            (errors.error_for(503, "unavailable", "m"), RuntimeError),
            (errors.LaunchrankUnsupportedError("m"), NotImplementedError),
        ]
        for err, builtin in cases:
            self.assertIsInstance(err, builtin, repr(err))
            self.assertIsInstance(err, launchrank_client.LaunchrankError, repr(err))
        self.assertEqual(errors.error_for(0, "unsupported_expression", "m").status, 422)
        self.assertEqual(errors.error_for(0, "limit_exceeded", "m").status, 413)

    def test_the_first_clients_names_and_constructor_still_work(self):
        e = launchrank_client.LaunchrankError(422, "x", "y", "p")
        self.assertEqual(str(e), "x at p: y")
        self.assertEqual((e.status, e.code, e.message, e.path), (422, "x", "y", "p"))
        c = launchrank_client.LaunchrankConnectionError("http://h:1", "refused")
        self.assertEqual((c.status, c.code, c.url), (0, "unreachable", "http://h:1"))
        self.assertIn("http://h:1", str(c))

    def test_results_are_read_only_mappings_over_raw(self):
        raw = {"status": "ok", "cache": "ok", "model_version": "1", "new_key": [1]}
        h = results.Health.from_json(raw)
        self.assertIs(h.raw, raw)
        self.assertEqual(h["new_key"], [1])
        self.assertEqual(dict(h), raw)
        self.assertEqual(h, raw)
        with self.assertRaises(TypeError):
            h["status"] = "down"
        with self.assertRaises(AttributeError):
            h.status = "down"
        self.assertNotIn("raw", repr(h))

    def test_missing_optional_keys_do_not_break_parsing(self):
        r = results.Ranking.from_json({"results": [{"rank": 1, "block": [32],
                                                    "performance": {"predicted": 5}}]})
        self.assertEqual(r.best.block, (32, 1, 1))
        self.assertEqual(r.best.predicted, 5.0)
        self.assertIsNone(r.best.measured)
        self.assertIsNone(r.best.performance.dram)


def main():
    global LAUNCHRANK_BIN
    args = sys.argv[1:]
    if args and not args[0].startswith("-"):
        LAUNCHRANK_BIN = os.path.abspath(args.pop(0))
    prog = unittest.main(argv=[sys.argv[0]] + args, exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
