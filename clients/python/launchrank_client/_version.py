"""The package version, in one place: the build backend (_build_backend) reads it from
this file without importing the package, and it follows meson.build's project version,
so that a client and the launchrank it was released with say the same number
(tests/python/test_package.py checks that they agree)."""

__version__ = "0.1.0"
