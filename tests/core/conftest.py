"""Fixtures for core tests: the runtime's events and a recording brain.

``clock`` and ``runtime`` come from tests/conftest.py.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from attn import AgentConfig, Focus, MailboxItem, Reply, Runtime
from attn.core.events import Event


@pytest.fixture
def events(runtime: Runtime) -> list[Event]:
    seen: list[Event] = []
    runtime.bus.subscribe(seen.append)
    return seen


class Recorder:
    """A brain that records calls and can be scripted per item by a callback."""

    def __init__(self, work: Callable[[MailboxItem, Focus], Awaitable[Any]] | None = None):
        self.calls: list[tuple[str, str]] = []
        self.work = work

    async def __call__(self, item: MailboxItem, focus: Focus) -> Any:
        self.calls.append((item.id, item.content or item.source_type))
        if self.work is not None:
            return await self.work(item, focus)
        return Reply(f"done: {item.content}")

    @property
    def ids(self) -> list[str]:
        return [c[0] for c in self.calls]


@pytest.fixture
def config() -> AgentConfig:
    return AgentConfig()
