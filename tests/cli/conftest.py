"""Fixtures for the CLI tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

_ENV = ("ATTN_URL", "ATTN_TOKEN", "ATTN_DEBUG", "ATTN_DATABASE_URL", "ATTN_HOST", "ATTN_PORT")


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CliRunner:
    """A CLI runner with no ATTN_* settings from the environment, in an empty folder
    (no ./attn.toml, no ./attn.db from elsewhere)."""
    for var in _ENV:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    return CliRunner()
