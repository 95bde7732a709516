"""attn's version, read once from the installed package metadata."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    #: The installed version of attn (PEP 440), ``"0+unknown"`` from an uninstalled tree.
    __version__ = version("attn")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
