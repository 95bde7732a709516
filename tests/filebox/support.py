"""Helpers for the file mailbox tests (seed 003): runs on disk, file snapshots, workers."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from attn.filebox import Run, RunPaths
from attn.filebox.manifest import create_manifest
from attn.filebox.pending import Limits


def now() -> datetime:
    return datetime.now(UTC)


#: The tasks a run made here starts with (a verb refuses a task the run does not have).
TASKS = ("build", "test", "other", "deploy")


def make_run(
    root: Path, run_id: str = "r1", *, owner: str | None = None, limits: Limits | None = None
) -> Run:
    """A new run folder under ``root`` with a run.json (owner optional)."""
    paths = RunPaths(root, run_id)
    queued = {task: {"status": "queued"} for task in TASKS}
    create_manifest(
        paths, {"runId": run_id, "ownerSessionId": owner, "tasks": queued, "worker": {}}
    )
    return Run(paths, now, limits=limits)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative path -> bytes), to prove nothing changed."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


def script(tmp_path: Path, name: str, text: str) -> list[str]:
    """A shell script file; the command that runs it."""
    path = tmp_path / name
    path.write_text(text)
    path.chmod(0o755)
    return [str(path)]


def python_worker(tmp_path: Path, name: str, code: str) -> list[str]:
    """A Python worker script using attn.filebox.client; the command that runs it."""
    path = tmp_path / name
    path.write_text(code)
    return [sys.executable, str(path)]


async def until(check: Callable[[], bool], what: str, timeout_s: float = 20.0) -> None:
    """Wait (polling real time) until ``check()`` holds: a file or process condition."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not check():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


__all__ = ["make_run", "now", "python_worker", "script", "snapshot", "until"]
