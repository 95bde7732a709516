"""attn's version, read from the installed package metadata."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def attn_version() -> str:
    """The installed version of attn, or ``"0+unknown"`` when run from an uninstalled tree."""
    try:
        return version("attn")
    except PackageNotFoundError:
        return "0+unknown"
