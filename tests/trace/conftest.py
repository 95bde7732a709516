"""Shared fixtures for trace tests: the real Claude Code inbox files."""

from __future__ import annotations

from pathlib import Path

import pytest

#: ``../shared`` beside the repository folder; the data is never copied into the repo.
SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
INBOXES = (SHARED / "data" / "claude-team-inboxes").resolve()


@pytest.fixture
def inbox_dir() -> Path:
    if not INBOXES.is_dir():
        pytest.skip(f"real inbox data not found at {INBOXES} (../shared beside the repo folder)")
    return INBOXES
