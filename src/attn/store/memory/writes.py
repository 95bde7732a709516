"""The write side of :class:`~attn.store.memory.MemoryStore`: write ops applied to its tables.

The rules every store applies were checked by :func:`attn.store._checks.check_write`;
what is left here is what a database's keys would refuse (a repeated id) and
the changes themselves. Values are copied in, so callers never share state
with the store.
"""

from __future__ import annotations

import copy
import heapq
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from attn.errors import StoreError
from attn.models import MAX_MEMORIES_PER_AGENT, CallbackStatus, Memory, PendingCallback
from attn.store._memories import entry_words
from attn.store._people import PEOPLE_OPS
from attn.store.base import (
    DeleteCallback,
    DeleteMemory,
    InsertActivity,
    InsertCallback,
    InsertChannelMessage,
    InsertDecision,
    InsertItem,
    InsertLogs,
    PutAgentSetting,
    PutChannel,
    PutDelegation,
    PutTreeAgent,
    SaveMemory,
    SetDeliveries,
    UpdateActivity,
    UpdateCallback,
    UpdateItem,
    WriteOp,
)
from attn.store.memory import channels, people, tree
from attn.store.memory.tables import Tables


def check_keys(tables: Tables, ops: Sequence[WriteOp]) -> None:
    """Refuse ops that would repeat the id of a stored (or earlier inserted) row.

    Raises:
        StoreError: naming the record and its id, as a primary key would.
    """
    new_ids: set[str] = set()
    new_keys: set[tuple[str, str]] = set()
    for op in ops:
        if isinstance(op, InsertItem):
            if op.item.id in tables.items or op.item.id in new_ids:
                raise StoreError(f"mailbox item {op.item.id!r} already exists")
            new_ids.add(op.item.id)
        elif isinstance(op, InsertActivity) and op.activity.id in tables.activities:
            raise StoreError(f"activity {op.activity.id!r} already exists")
        elif isinstance(op, InsertCallback):
            callback_id = op.callback.id
            if callback_id in tables.callbacks or callback_id in new_ids:
                raise StoreError(f"pending callback {callback_id!r} already exists")
            new_ids.add(callback_id)
        elif isinstance(op, SaveMemory):
            memory = op.memory
            key = None if memory.key is None else (memory.agent_id, memory.key)
            if key is not None and (key in tables.memory_keys or key in new_keys):
                continue  # replaces the entry under that key: no insert
            if memory.id in tables.memory_agents or memory.id in new_ids:
                raise StoreError(f"memory {memory.id!r} already exists")
            new_ids.add(memory.id)
            if key is not None:
                new_keys.add(key)
    channels.check_keys(tables, ops)
    tree.check_keys(tables, ops)
    people.check_keys(tables, ops)


def apply(tables: Tables, op: WriteOp) -> Any:
    """Apply one checked op; its result as :mod:`attn.store.base` defines it."""
    if isinstance(op, InsertItem):
        item = op.item
        if item.idempotency_key is not None:
            existing = tables.by_key.get((item.agent_id, item.idempotency_key))
            if existing is not None:
                return (tables.items[existing].copy(), False)
        tables.seq += 1
        stored = item.copy()
        stored.seq = tables.seq
        tables.items[stored.id] = stored
        if item.idempotency_key is not None:
            tables.by_key[(item.agent_id, item.idempotency_key)] = stored.id
        return (stored.copy(), True)
    if isinstance(op, UpdateItem):
        current = tables.items.get(op.item_id)
        if current is None:
            return False
        if op.only_if_status is not None and current.status not in op.only_if_status:
            return False
        for name, value in op.values.items():
            setattr(current, name, dict(value) if isinstance(value, dict) else value)
        return True
    if isinstance(op, InsertDecision):
        tables.decisions.append(replace(op.decision, seq=len(tables.decisions) + 1))
        return None
    if isinstance(op, InsertActivity):
        tables.activities[op.activity.id] = replace(op.activity)
        return None
    if isinstance(op, UpdateActivity):
        activity = tables.activities.get(op.activity_id)
        if activity is None:
            return False
        for name, value in op.values.items():
            setattr(activity, name, value)
        return True
    if isinstance(op, InsertLogs):
        for log in op.logs:
            tables.logs.setdefault(log.activity_id, []).append(log)
        return None
    return _apply_time(tables, op)


def _apply_time(tables: Tables, op: WriteOp) -> Any:
    if isinstance(op, InsertCallback):
        stored = replace(op.callback, data=copy.deepcopy(op.callback.data))
        tables.callbacks[stored.id] = stored
        tables.index_due(stored)
        return None
    if isinstance(op, UpdateCallback):
        found = tables.callbacks.get(op.callback_id)
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
        tables.callbacks[changed.id] = changed
        tables.index_due(changed)
        return True
    if isinstance(op, DeleteCallback):
        found = tables.callbacks.get(op.callback_id)
        if found is None or found.agent_id != op.agent_id:
            return False
        if op.only_if_status is not None and found.status not in op.only_if_status:
            return False
        del tables.callbacks[op.callback_id]
        return True
    if isinstance(op, PutAgentSetting):
        tables.settings[(op.agent_id, op.name)] = copy.deepcopy(op.value)
        return None
    if isinstance(op, SaveMemory):
        return _save_memory(tables, op.memory)
    if isinstance(op, DeleteMemory):
        return _delete_memory(tables, op.agent_id, op.memory_id)
    if isinstance(op, PutChannel | InsertChannelMessage | SetDeliveries | PutDelegation):
        return channels.apply(tables, op)
    if isinstance(op, PutTreeAgent):
        return tree.put(tables, op.agent)
    if isinstance(op, PEOPLE_OPS):
        return people.apply(tables, op)
    raise StoreError(f"unknown write op {type(op).__name__}")


def _save_memory(tables: Tables, memory: Memory) -> Memory | None:
    entries = tables.memories.setdefault(memory.agent_id, {})
    if memory.key is not None:
        existing = tables.memory_keys.get((memory.agent_id, memory.key))
        if existing is not None:
            old = entries[existing]
            memory = replace(memory, id=old.id, created_at=old.created_at)
    if memory.id not in entries:
        if len(entries) >= MAX_MEMORIES_PER_AGENT:
            return None
        tables.memory_agents[memory.id] = memory.agent_id
        if memory.key is not None:
            tables.memory_keys[(memory.agent_id, memory.key)] = memory.id
    entries[memory.id] = memory
    tables.memory_words[memory.id] = entry_words(memory)
    return memory


def _delete_memory(tables: Tables, agent_id: str, memory_id: str) -> bool:
    entries = tables.memories.get(agent_id, {})
    memory = entries.pop(memory_id, None)
    if memory is None:
        return False
    del tables.memory_agents[memory_id]
    del tables.memory_words[memory_id]
    if memory.key is not None:
        del tables.memory_keys[(agent_id, memory.key)]
    return True


def claim_callbacks(
    tables: Tables,
    now: datetime,
    claimed_by: str,
    agent_ids: Sequence[str] | None,
    limit: int,
    stale_before: datetime | None,
) -> list[PendingCallback]:
    """Claim due (and stale claimed) callbacks, earliest due first (see the protocol).

    Pending ones come off the due-time heap, so a claim costs what is due, not
    what is stored.
    """
    hosted = None if agent_ids is None else set(agent_ids)
    due: list[PendingCallback] = []
    if stale_before is not None:
        due += [
            c
            for c in tables.callbacks.values()
            if c.status == CallbackStatus.CLAIMED
            and c.due_at is not None
            and c.claimed_at is not None
            and c.claimed_at < stale_before
            and (hosted is None or c.agent_id in hosted)
        ]
    skipped: list[tuple[datetime, str]] = []
    heap = tables.due
    while heap and heap[0][0] <= now and len(due) < limit:
        due_at, callback_id = heapq.heappop(heap)
        found = tables.callbacks.get(callback_id)
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
        tables.callbacks[changed.id] = changed
        claimed.append(replace(changed, data=copy.deepcopy(changed.data)))
    for callback in due[limit:]:
        tables.index_due(callback)
    return claimed
