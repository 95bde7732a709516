"""An in-memory :class:`~attn.store.base.Store`: same contract, no persistence.

For unit tests and for users who want no durability. Writes are atomic per
call (they validate every op before applying any) and objects handed in or
out are copies, so callers never share state with the store.
"""

from __future__ import annotations

import asyncio
import copy
import heapq
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from attn.errors import InvalidInput, StoreClosed, StoreError
from attn.models import (
    Activity,
    ActivityLog,
    CallbackStatus,
    Decision,
    ItemStatus,
    MailboxItem,
    PendingCallback,
)
from attn.store.base import (
    ACTIVITY_UPDATE_FIELDS,
    CALLBACK_UPDATE_FIELDS,
    ITEM_UPDATE_FIELDS,
    DeleteCallback,
    InsertActivity,
    InsertCallback,
    InsertDecision,
    InsertItem,
    InsertLogs,
    ItemQuery,
    PutAgentSetting,
    StoreStatistics,
    Timeline,
    UpdateActivity,
    UpdateCallback,
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
        self._callbacks: dict[str, PendingCallback] = {}
        # (due_at, id) of callbacks that were pending with that due time; entries
        # that no longer match the stored callback are skipped (lazy deletion).
        self._due: list[tuple[datetime, str]] = []
        self._settings: dict[tuple[str, str], Any] = {}
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
            elif isinstance(op, InsertCallback):
                callback = op.callback
                if callback.id in self._callbacks or callback.id in new_ids:
                    raise StoreError(f"pending callback {callback.id!r} already exists")
                _check_callback(callback)
                new_ids.add(callback.id)
            elif isinstance(op, UpdateCallback):
                _check_callback_values(op.callback_id, op.values)
                _check_statuses(op.callback_id, op.only_if_status)
                if op.only_if_due_at is not None:
                    _check_aware(op.only_if_due_at, f"pending callback {op.callback_id!r} guard")
            elif isinstance(op, DeleteCallback):
                _check_statuses(op.callback_id, op.only_if_status)
            elif isinstance(op, PutAgentSetting):
                _check_aware(op.updated_at, "agent setting updated_at")
                _check_json(op.value, f"agent setting {op.name!r}")
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
            self._decisions.append(replace(op.decision, seq=len(self._decisions) + 1))
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
        if isinstance(op, InsertCallback):
            stored_cb = replace(op.callback, data=copy.deepcopy(op.callback.data))
            self._callbacks[stored_cb.id] = stored_cb
            self._index_due(stored_cb)
            return None
        if isinstance(op, UpdateCallback):
            found = self._callbacks.get(op.callback_id)
            if found is None or found.agent_id != op.agent_id:
                return False
            if op.only_if_status is not None and found.status not in op.only_if_status:
                return False
            if op.only_if_due_at is not None and found.due_at != op.only_if_due_at:
                return False
            values = dict(op.values)
            if "status" in values:
                values["status"] = CallbackStatus(values["status"])
            if "data" in values:
                values["data"] = copy.deepcopy(values["data"])
            changed = replace(found, **values)
            self._callbacks[changed.id] = changed
            self._index_due(changed)
            return True
        if isinstance(op, DeleteCallback):
            found = self._callbacks.get(op.callback_id)
            if found is None or found.agent_id != op.agent_id:
                return False
            if op.only_if_status is not None and found.status not in op.only_if_status:
                return False
            del self._callbacks[op.callback_id]
            return True
        if isinstance(op, PutAgentSetting):
            self._settings[(op.agent_id, op.name)] = copy.deepcopy(op.value)
            return None
        raise StoreError(f"unknown write op {type(op).__name__}")

    def _index_due(self, callback: PendingCallback) -> None:
        if callback.due_at is not None and callback.status == CallbackStatus.PENDING:
            heapq.heappush(self._due, (callback.due_at, callback.id))

    async def get_item(self, item_id: str) -> MailboxItem | None:
        self._check()
        item = self._items.get(item_id)
        return item.copy() if item is not None else None

    async def get_item_by_key(self, agent_id: str, idempotency_key: str) -> MailboxItem | None:
        """The agent's item enqueued with that idempotency key, or None."""
        self._check()
        item_id = self._by_key.get((agent_id, idempotency_key))
        return self._items[item_id].copy() if item_id is not None else None

    def _matching(self, query: ItemQuery) -> list[MailboxItem]:
        return [
            item
            for item in self._items.values()
            if item.agent_id == query.agent_id
            and (query.statuses is None or item.status in query.statuses)
            and (query.source_types is None or item.source_type in query.source_types)
            and (query.before_seq is None or item.seq < query.before_seq)
        ]

    async def find_items(self, query: ItemQuery) -> list[MailboxItem]:
        self._check()
        items = sorted(self._matching(query), key=lambda i: i.seq, reverse=not query.oldest_first)
        return [i.copy() for i in items[query.offset : query.offset + query.limit]]

    async def count_items(self, query: ItemQuery) -> int:
        self._check()
        return len(self._matching(replace(query, before_seq=None)))

    async def read_timeline(self, query: ItemQuery, queue_limit: int) -> Timeline:
        # Nothing below awaits anything that suspends: one consistent view.
        _check_page(query.limit, query.offset, queue_limit)
        history = await self.find_items(query)
        ids = {i.id for i in history}
        return Timeline(
            queued=(await self.load_queue(query.agent_id))[:queue_limit],
            history=history,
            total=await self.count_items(query),
            counts_by_status=await self.count_by_status(query.agent_id),
            counts_by_type=await self.count_by_type(query.agent_id),
            decisions=[
                d for d in self._decisions if d.agent_id == query.agent_id and d.item_id in ids
            ],
            activities=await self.find_activities(query.agent_id, list(ids)),
        )

    async def load_queue(self, agent_id: str) -> list[MailboxItem]:
        self._check()
        queued = [
            i
            for i in self._items.values()
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
        self,
        agent_id: str,
        item_id: str | None = None,
        limit: int = 100,
        offset: int = 0,
        before: int | None = None,
    ) -> list[Decision]:
        self._check()
        found = [
            d
            for d in reversed(self._decisions)
            if d.agent_id == agent_id
            and (item_id is None or d.item_id == item_id)
            and (before is None or (d.seq or 0) < before)
        ]
        return found[offset : offset + limit]

    async def find_activities(self, agent_id: str, item_ids: Sequence[str]) -> list[Activity]:
        self._check()
        wanted = set(item_ids)
        return [
            replace(a)
            for a in self._activities.values()
            if a.agent_id == agent_id and a.item_id in wanted
        ]

    async def get_activity(self, activity_id: str) -> Activity | None:
        self._check()
        activity = self._activities.get(activity_id)
        return replace(activity) if activity is not None else None

    async def find_activity_logs(
        self, activity_id: str, after_seq: int | None = None, limit: int | None = None
    ) -> list[ActivityLog]:
        self._check()
        logs = sorted(self._logs.get(activity_id, []), key=lambda log: log.seq)
        if after_seq is not None:
            logs = [log for log in logs if log.seq > after_seq]
        return logs if limit is None else logs[:limit]

    async def count_by_status(self, agent_id: str) -> dict[str, int]:
        self._check()
        return dict(Counter(str(i.status) for i in self._items.values() if i.agent_id == agent_id))

    async def count_by_type(self, agent_id: str) -> dict[str, int]:
        self._check()
        return dict(Counter(i.source_type for i in self._items.values() if i.agent_id == agent_id))

    async def agent_ids(self) -> list[str]:
        self._check()
        return sorted({i.agent_id for i in self._items.values()})

    def statistics(self) -> StoreStatistics:
        return replace(self._stats)

    # -- time -------------------------------------------------------------------------

    async def get_callback(self, agent_id: str, callback_id: str) -> PendingCallback | None:
        self._check()
        found = self._callbacks.get(callback_id)
        if found is None or found.agent_id != agent_id:
            return None
        return replace(found, data=copy.deepcopy(found.data))

    async def find_callbacks(
        self, agent_id: str, types: Sequence[str] | None = None
    ) -> list[PendingCallback]:
        self._check()
        wanted = None if types is None else set(types)
        found = [
            c
            for c in self._callbacks.values()
            if c.agent_id == agent_id and (wanted is None or c.type in wanted)
        ]
        found.sort(key=lambda c: (c.registered_at, c.id))
        return [replace(c, data=copy.deepcopy(c.data)) for c in found]

    async def claim_due_callbacks(
        self,
        now: datetime,
        claimed_by: str,
        *,
        agent_ids: Sequence[str] | None = None,
        limit: int = 100,
        stale_before: datetime | None = None,
    ) -> list[PendingCallback]:
        self._check()
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InvalidInput(f"limit must be a positive integer, got {limit!r}")
        _check_aware(now, "now")
        if stale_before is not None:
            _check_aware(stale_before, "stale_before")
        hosted = None if agent_ids is None else set(agent_ids)
        due: list[PendingCallback] = []
        if stale_before is not None:
            due += [
                c
                for c in self._callbacks.values()
                if c.status == CallbackStatus.CLAIMED
                and c.due_at is not None
                and c.claimed_at is not None
                and c.claimed_at < stale_before
                and (hosted is None or c.agent_id in hosted)
            ]
        skipped: list[tuple[datetime, str]] = []
        heap = self._due
        while heap and heap[0][0] <= now and len(due) < limit:
            due_at, callback_id = heapq.heappop(heap)
            found = self._callbacks.get(callback_id)
            if found is None or found.status != CallbackStatus.PENDING or found.due_at != due_at:
                continue  # stale entry
            if hosted is not None and found.agent_id not in hosted:
                skipped.append((due_at, callback_id))
                continue
            due.append(found)
        for entry in skipped:
            heapq.heappush(heap, entry)
        due.sort(key=lambda c: (c.due_at, c.id))
        claimed = []
        for callback in due[:limit]:
            changed = replace(
                callback, status=CallbackStatus.CLAIMED, claimed_by=claimed_by, claimed_at=now
            )
            self._callbacks[changed.id] = changed
            claimed.append(replace(changed, data=copy.deepcopy(changed.data)))
        for callback in due[limit:]:
            self._index_due(callback)
        return claimed

    async def get_agent_settings(self, agent_id: str) -> dict[str, Any]:
        self._check()
        return {
            name: copy.deepcopy(value)
            for (owner, name), value in self._settings.items()
            if owner == agent_id
        }


def _check_page(limit: int, offset: int, queue_limit: int) -> None:
    if min(limit, offset, queue_limit) < 0:
        raise InvalidInput(
            f"limit, offset and queue limit must be >= 0, got {limit}, {offset} and {queue_limit}"
        )


def _check_aware(value: object, what: str) -> None:
    if not isinstance(value, datetime) or value.tzinfo is None or value.utcoffset() is None:
        raise StoreError(f"{what} must be a timezone-aware datetime, got {value!r}")


def _check_json(value: object, what: str) -> None:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{what} is not JSON-serializable: {exc}") from exc


def _check_callback(callback: PendingCallback) -> None:
    what = f"pending callback {callback.id!r}"
    _check_aware(callback.registered_at, f"{what}.registered_at")
    for name in ("due_at", "claimed_at"):
        value = getattr(callback, name)
        if value is not None:
            _check_aware(value, f"{what}.{name}")
    if not isinstance(callback.data, dict):
        raise StoreError(f"{what}.data must be a JSON object")
    _check_json(callback.data, f"{what}.data")
    try:
        CallbackStatus(callback.status)
    except ValueError as exc:
        raise StoreError(f"{what}.status: unknown value {callback.status!r}") from exc


def _check_statuses(callback_id: str, statuses: tuple[str, ...] | None) -> None:
    for status in statuses or ():
        try:
            CallbackStatus(status)
        except ValueError as exc:
            raise StoreError(
                f"pending callback {callback_id!r}: unknown status {status!r}"
            ) from exc


def _check_callback_values(callback_id: str, values: dict[str, Any]) -> None:
    what = f"pending callback {callback_id!r}"
    bad = set(values) - CALLBACK_UPDATE_FIELDS
    if bad:
        raise StoreError(f"cannot update {what} columns {sorted(bad)}")
    for name in ("due_at", "claimed_at"):
        if values.get(name) is not None:
            _check_aware(values[name], f"{what}.{name}")
    if "status" in values:
        try:
            CallbackStatus(values["status"])
        except ValueError as exc:
            raise StoreError(f"{what}.status: unknown value {values['status']!r}") from exc
    if "data" in values:
        if not isinstance(values["data"], dict):
            raise StoreError(f"{what}.data must be a JSON object")
        _check_json(values["data"], f"{what}.data")
