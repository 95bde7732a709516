"""Fixtures of the file mailbox tests (seed 003): a run folder under ``tmp_path``,
a clock that ticks, and helpers to look at what is on disk.

``ticks`` moves one millisecond forward on every call, so ``createdAt`` times
are strictly increasing and "oldest first" is decided by the times, not by
which file was read first. Subprocess scripts import attn from the project's
own interpreter (``sys.executable``; the venv installs attn editable).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from attn.filebox import Run, RunMailbox, RunPaths
from attn.filebox.manifest import create_manifest

START = datetime(2026, 12, 2, 3, 0, tzinfo=UTC)


class Ticks:
    """A clock for ``now``: each call returns a time 1 ms after the previous one."""

    def __init__(self, start: datetime = START) -> None:
        self.at = start

    def __call__(self) -> datetime:
        self.at += timedelta(milliseconds=1)
        return self.at


@pytest.fixture
def ticks() -> Ticks:
    return Ticks()


@pytest.fixture
def paths(tmp_path: Path) -> RunPaths:
    """Run ``r1`` under ``tmp_path/runs``; nothing is created yet."""
    return RunPaths(tmp_path / "runs", "r1")


@pytest.fixture
def mailbox(paths: RunPaths, ticks: Ticks) -> RunMailbox:
    return RunMailbox(paths, ticks)


@pytest.fixture
def run(paths: RunPaths, ticks: Ticks) -> Run:
    """Run ``r1`` with a ``run.json`` (no owner), a running task ``build`` and a
    queued one, ``test``."""
    created = create_manifest(
        paths,
        {
            "runId": "r1",
            "createdAt": START.isoformat(),
            "ownerSessionId": None,
            "tasks": {"build": {"status": "running"}, "test": {"status": "queued"}},
            "worker": {},
        },
    )
    assert created
    return Run(paths, ticks)


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` (relative) with a file's bytes, None for a folder."""
    out: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        out[key] = None if path.is_dir() and not path.is_symlink() else _bytes(path)
    return out


def _bytes(path: Path) -> bytes | None:
    if path.is_symlink():
        return b"-> " + os.readlink(path).encode()
    return path.read_bytes()


def lines_of(path: Path) -> list[dict[str, Any]]:
    """Every line of a JSONL file, parsed (the test fails on a line that is not JSON)."""
    data = path.read_bytes()
    assert data.endswith(b"\n"), f"{path} does not end in a newline"
    return [json.loads(line) for line in data.split(b"\n")[:-1]]


def python(script: str, *args: str, **popen: Any) -> subprocess.Popen[str]:
    """Start ``script`` under the project's interpreter with attn importable."""
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        **popen,
    )
