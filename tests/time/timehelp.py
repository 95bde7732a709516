"""Helpers of the time tests: a recording brain, item queries, settling.

(This folder has no ``__init__.py``: a package named ``time`` would shadow the
standard library's, so helpers live in this uniquely named module.)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from attn import Focus, MailboxItem, Reply, Runtime
from attn.config import TimeConfig
from attn.models import ItemStatus
from attn.store.base import ItemQuery, Store
from attn.testing import FakeClock, settle

#: 2026-01-05 07:59:00 UTC, a Monday morning.
START = datetime(2026, 1, 5, 7, 59, tzinfo=UTC)


@dataclass
class Call:
    """One brain call as the brain saw it."""

    item_id: str
    source_type: str
    at: float
    payload: dict[str, Any]
    metadata: dict[str, Any]


class Recorder:
    """A brain recording every call; ``work[source_type]`` scripts per type."""

    def __init__(
        self,
        clock: FakeClock,
        work: dict[str, Callable[[MailboxItem, Focus], Awaitable[Any]]] | None = None,
    ) -> None:
        self.clock = clock
        self.calls: list[Call] = []
        self.work = work or {}

    async def __call__(self, item: MailboxItem, focus: Focus) -> Any:
        self.calls.append(
            Call(
                item.id,
                item.source_type,
                self.clock.monotonic(),
                dict(item.payload),
                dict(item.metadata),
            )
        )
        handler = self.work.get(item.source_type)
        if handler is not None:
            return await handler(item, focus)
        return Reply(f"done: {item.source_type}")

    def of(self, source_type: str) -> list[Call]:
        return [c for c in self.calls if c.source_type == source_type]


def heartbeat_config(**values: Any) -> TimeConfig:
    """Heartbeats for every agent, with the clamp opened for short test intervals."""
    values.setdefault("heartbeats", True)
    values.setdefault("heartbeat_min_s", 1.0)
    return TimeConfig(**values)


async def items(
    store: Store,
    agent: str,
    source_type: str | None = None,
    statuses: tuple[ItemStatus, ...] | None = None,
) -> list[MailboxItem]:
    """The agent's stored items, oldest first, optionally of one type."""
    query = ItemQuery(
        agent,
        statuses=statuses,
        source_types=(source_type,) if source_type else None,
        limit=10_000,
        oldest_first=True,
    )
    return await store.find_items(query)


async def settle_all(runtime: Runtime) -> None:
    """Wait for the timekeeper's sweep and for every agent to be idle."""
    for _ in range(5):
        await runtime.time.drain()
        await runtime.run_until_idle()


async def settle_time(runtime: Runtime) -> None:
    """Wait for the timekeeper's sweep and let the loop settle, without waiting for
    agents to go idle (their brains may be sleeping on the fake clock)."""
    for _ in range(3):
        await runtime.time.drain()
        await settle()
