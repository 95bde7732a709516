"""Fixtures of the channel tests: a runtime on each store (memory, SQLite, PostgreSQL),
on a fake clock, with helpers to host scripted agents.

``make_store`` opens the same database again after a restart (A2A-08).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from attn import Runtime
from attn.config import AgentConfig
from attn.core.focus import Focus, Reply
from attn.models import MailboxItem
from attn.store.base import Store
from attn.store.memory import MemoryStore
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeClock

#: Loop settings for fake-clock tests: no burst window to wait out.
FAST = AgentConfig(coalesce_window_ms=0)

Brain = Callable[[MailboxItem, Focus], Awaitable[Reply | str | None]]


@pytest.fixture
def make_store(backend: str, tmp_path: Path) -> Callable[[], Store]:
    """Makes a store on the test's database (one memory store, reused)."""
    memory = MemoryStore()

    def make() -> Store:
        if backend == "memory":
            return memory
        if backend == "sqlite":
            return SQLiteStore(tmp_path / "attn.db")
        from attn.store import open_store

        return open_store(backend)

    return make


@pytest.fixture
async def rt(make_store: Callable[[], Store], clock: FakeClock) -> AsyncIterator[Runtime]:
    """A started runtime on the test's store and the fake clock."""
    async with Runtime(make_store(), clock=clock) as runtime:
        yield runtime


def answering(prefix: str = "answer") -> Brain:
    """A brain that answers every item with ``<prefix>: <its text>``."""

    async def brain(item: MailboxItem, focus: Focus) -> Reply:
        return Reply(f"{prefix}: {item.content}")

    return brain


def recording(seen: list[MailboxItem], answer: str | None = None) -> Brain:
    """A brain that records every item it gets (and answers ``answer``, or nothing)."""

    async def brain(item: MailboxItem, focus: Focus) -> Reply | None:
        seen.append(item)
        return Reply(answer) if answer is not None else None

    return brain
