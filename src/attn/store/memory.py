"""An in-memory :class:`~attn.store.base.Store`: same contract, no persistence.

For unit tests and for users who want no durability. Writes are atomic per
call (they validate every op before applying any) and objects handed in or
out are copies, so callers never share state with the store.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from attn.core.models import Activity, ActivityLog, Decision, ItemStatus, MailboxItem
from attn.errors import StoreClosed, StoreError
from attn.store.base import (
    ACTIVITY_UPDATE_FIELDS,
    ITEM_UPDATE_FIELDS,
    InsertActivity,
    InsertDecision,
    InsertItem,
    InsertLogs,
    ItemQuery,
    StoreStatistics,
    UpdateActivity,
    UpdateItem,
    WriteOp,
)


class MemoryStore:
    """Keeps everything in dicts; lost when the process ends."""

    backend = "memory"

    def __init__(self) -> None:
        self._items: dict[str, MailboxItem] = {}
        self._by_key: dict[tuple[str, str], str] = {}
        self._decisions: list[Decision] = []
        self._activities: dict[str, Activity] = {}
        self._logs: dict[str, list[ActivityLog]] = {}
        self._seq = 0
        self._open = False
        self._closed = False
        self._stats = StoreStatistics(backend=self.backend)

    async def open(self) -> None:
        if self._closed:
            raise StoreClosed("the memory store was closed; create a new one")
        self._open = True

    async def close(self) -> None:
        self._closed = True

    async def acquire_host(self) -> None:
        self._check()

    async def release_host(self) -> None:
        return None

    def _check(self) -> None:
        if self._closed:
            raise StoreClosed("the store is closed")
        if not self._open:
            raise StoreError("the store is not open; call open() first")

    async def write(self, ops: Sequence[WriteOp]) -> list[Any]:
        self._check()
        self._validate(ops)
        self._stats.write_calls += 1
        self._stats.transactions += 1
        self._stats.largest_batch = max(self._stats.largest_batch, 1)
        return [self._apply(op) for op in ops]

    def submit(self, ops: Sequence[WriteOp]) -> asyncio.Future[list[Any]]:
        future: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        try:
            self._check()
            self._validate(ops)
        except Exception as exc:
            future.set_exception(exc)
            return future
        self._stats.write_calls += 1
        self._stats.transactions += 1
        future.set_result([self._apply(op) for op in ops])
        return future

    def _validate(self, ops: Sequence[WriteOp]) -> None:
        new_ids: set[str] = set()
        for op in ops:
            if isinstance(op, InsertItem):
                if op.item.id in self._items or op.item.id in new_ids:
                    raise StoreError(f"mailbox item {op.item.id!r} already exists")
                new_ids.add(op.item.id)
            elif isinstance(op, UpdateItem):
                bad = set(op.values) - ITEM_UPDATE_FIELDS
                if bad:
                    raise StoreError(f"cannot update mailbox item columns {sorted(bad)}")
            elif isinstance(op, UpdateActivity):
                bad = set(op.values) - ACTIVITY_UPDATE_FIELDS
                if bad:
                    raise StoreError(f"cannot update activity columns {sorted(bad)}")
            elif isinstance(op, InsertActivity) and op.activity.id in self._activities:
                raise StoreError(f"activity {op.activity.id!r} already exists")
            elif not isinstance(op, InsertDecision | InsertLogs | InsertActivity):
                raise StoreError(f"unknown write op {type(op).__name__}")

    def _apply(self, op: WriteOp) -> Any:
        if isinstance(op, InsertItem):
            item = op.item
            if item.idempotency_key is not None:
                existing = self._by_key.get((item.agent_id, item.idempotency_key))
                if existing is not None:
                    return (self._items[existing].copy(), False)
            self._seq += 1
            stored = item.copy()
            stored.seq = self._seq
            self._items[stored.id] = stored
            if item.idempotency_key is not None:
                self._by_key[(item.agent_id, item.idempotency_key)] = stored.id
            return (stored.copy(), True)
        if isinstance(op, UpdateItem):
            current = self._items.get(op.item_id)
            if current is None:
                return False
            if op.only_if_status is not None and current.status not in op.only_if_status:
                return False
            for name, value in op.values.items():
                setattr(current, name, dict(value) if isinstance(value, dict) else value)
            return True
        if isinstance(op, InsertDecision):
            self._decisions.append(op.decision)
            return None
        if isinstance(op, InsertActivity):
            self._activities[op.activity.id] = replace(op.activity)
            return None
        if isinstance(op, UpdateActivity):
            activity = self._activities.get(op.activity_id)
            if activity is None:
                return False
            for name, value in op.values.items():
                setattr(activity, name, value)
            return True
        if isinstance(op, InsertLogs):
            for log in op.logs:
                self._logs.setdefault(log.activity_id, []).append(log)
            return None
        raise StoreError(f"unknown write op {type(op).__name__}")

    async def get_item(self, item_id: str) -> MailboxItem | None:
        self._check()
        item = self._items.get(item_id)
        return item.copy() if item is not None else None

    def _matching(self, query: ItemQuery) -> list[MailboxItem]:
        return [
            item
            for item in self._items.values()
            if item.agent_id == query.agent_id
            and (query.statuses is None or item.status in query.statuses)
            and (query.source_types is None or item.source_type in query.source_types)
        ]

    async def find_items(self, query: ItemQuery) -> list[MailboxItem]:
        self._check()
        items = sorted(self._matching(query), key=lambda i: i.seq, reverse=not query.oldest_first)
        return [i.copy() for i in items[query.offset : query.offset + query.limit]]

    async def count_items(self, query: ItemQuery) -> int:
        self._check()
        return len(self._matching(query))

    async def load_queue(self, agent_id: str) -> list[MailboxItem]:
        self._check()
        queued = [
            i for i in self._items.values()
            if i.agent_id == agent_id and i.status == ItemStatus.QUEUED
        ]
        return [i.copy() for i in sorted(queued, key=lambda i: (i.priority, i.seq))]

    async def claim_next(self, agent_id: str, started_at: datetime) -> MailboxItem | None:
        self._check()
        mine = [i for i in self._items.values() if i.agent_id == agent_id]
        if any(i.status == ItemStatus.PROCESSING for i in mine):
            return None
        queued = [i for i in mine if i.status == ItemStatus.QUEUED]
        if not queued:
            return None
        head = min(queued, key=lambda i: (i.priority, i.seq))
        head.status = ItemStatus.PROCESSING
        head.started_at = started_at
        await asyncio.sleep(0)
        return head.copy()

    async def find_decisions(
        self, agent_id: str, item_id: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[Decision]:
        self._check()
        found = [
            d for d in reversed(self._decisions)
            if d.agent_id == agent_id and (item_id is None or d.item_id == item_id)
        ]
        return found[offset : offset + limit]

    async def find_activities(self, agent_id: str, item_ids: Sequence[str]) -> list[Activity]:
        self._check()
        wanted = set(item_ids)
        return [
            replace(a) for a in self._activities.values()
            if a.agent_id == agent_id and a.item_id in wanted
        ]

    async def get_activity(self, activity_id: str) -> Activity | None:
        self._check()
        activity = self._activities.get(activity_id)
        return replace(activity) if activity is not None else None

    async def find_activity_logs(self, activity_id: str) -> list[ActivityLog]:
        self._check()
        return sorted(self._logs.get(activity_id, []), key=lambda log: log.seq)

    async def count_by_status(self, agent_id: str) -> dict[str, int]:
        self._check()
        return dict(Counter(str(i.status) for i in self._items.values() if i.agent_id == agent_id))

    async def agent_ids(self) -> list[str]:
        self._check()
        return sorted({i.agent_id for i in self._items.values()})

    def statistics(self) -> StoreStatistics:
        return replace(self._stats)
