"""Fixtures of the channel tests: a runtime on each store (memory, SQLite, PostgreSQL),
on a fake clock, with helpers to host scripted agents.

``make_store`` opens the same database again after a restart (A2A-08).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from attn.config import AgentConfig
from attn.core.focus import Focus, Reply
from attn.models import MailboxItem

#: Loop settings for fake-clock tests: no burst window to wait out.
FAST = AgentConfig(coalesce_window_ms=0)

Brain = Callable[[MailboxItem, Focus], Awaitable[Reply | str | None]]


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
