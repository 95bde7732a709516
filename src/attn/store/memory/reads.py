"""The read side of :class:`~attn.store.memory.MemoryStore`: queries over its tables.

Every function returns copies, so callers never share state with the store.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from attn.models import (
    Activity,
    ActivityLog,
    Decision,
    ItemStatus,
    MailboxItem,
    Memory,
    PendingCallback,
)
from attn.store.base import ItemQuery, Timeline
from attn.store.memory.tables import Tables


def get_item(tables: Tables, item_id: str) -> MailboxItem | None:
    """The item with that id, or None."""
    item = tables.items.get(item_id)
    return item.copy() if item is not None else None


def get_item_by_key(tables: Tables, agent_id: str, idempotency_key: str) -> MailboxItem | None:
    """The agent's item enqueued with that idempotency key, or None."""
    item_id = tables.by_key.get((agent_id, idempotency_key))
    return tables.items[item_id].copy() if item_id is not None else None


def _matching(tables: Tables, query: ItemQuery) -> list[MailboxItem]:
    return [
        item
        for item in tables.items.values()
        if item.agent_id == query.agent_id
        and (query.statuses is None or item.status in query.statuses)
        and (query.source_types is None or item.source_type in query.source_types)
        and (query.before_seq is None or item.seq < query.before_seq)
        and (query.after_seq is None or item.seq > query.after_seq)
    ]


def find_items(tables: Tables, query: ItemQuery) -> list[MailboxItem]:
    """Items matching ``query``, ordered by seq (newest first unless ``oldest_first``)."""
    items = sorted(_matching(tables, query), key=lambda i: i.seq, reverse=not query.oldest_first)
    return [i.copy() for i in items[query.offset : query.offset + query.limit]]


def count_items(tables: Tables, query: ItemQuery) -> int:
    """How many items match ``query`` (paging and cursors ignored)."""
    return len(_matching(tables, replace(query, before_seq=None, after_seq=None)))


def load_queue(tables: Tables, agent_id: str) -> list[MailboxItem]:
    """The agent's queued items in claim order: priority, then seq."""
    queued = [
        i for i in tables.items.values() if i.agent_id == agent_id and i.status == ItemStatus.QUEUED
    ]
    return [i.copy() for i in sorted(queued, key=lambda i: (i.priority, i.seq))]


def read_timeline(tables: Tables, query: ItemQuery, queue_limit: int) -> Timeline:
    """Queue, a page of items, their decisions and activities, and counts (one view)."""
    history = find_items(tables, query)
    ids = {i.id for i in history}
    return Timeline(
        queued=load_queue(tables, query.agent_id)[:queue_limit],
        history=history,
        total=count_items(tables, query),
        counts_by_status=count_by_status(tables, query.agent_id),
        counts_by_type=dict(
            Counter(i.source_type for i in tables.items.values() if i.agent_id == query.agent_id)
        ),
        decisions=[
            d for d in tables.decisions if d.agent_id == query.agent_id and d.item_id in ids
        ],
        activities=find_activities(tables, query.agent_id, list(ids)),
    )


def find_decisions(
    tables: Tables, agent_id: str, item_id: str | None, limit: int, offset: int, before: int | None
) -> list[Decision]:
    """Decisions newest commit first; only ``item_id``'s, only before seq ``before``."""
    found = [
        d
        for d in reversed(tables.decisions)
        if d.agent_id == agent_id
        and (item_id is None or d.item_id == item_id)
        and (before is None or (d.seq or 0) < before)
    ]
    return found[offset : offset + limit]


def find_activities(tables: Tables, agent_id: str, item_ids: Sequence[str]) -> list[Activity]:
    """The agent's activities linked to any of ``item_ids``."""
    wanted = set(item_ids)
    return [
        replace(a)
        for a in tables.activities.values()
        if a.agent_id == agent_id and a.item_id in wanted
    ]


def get_activity(tables: Tables, activity_id: str) -> Activity | None:
    """The activity with that id, or None."""
    activity = tables.activities.get(activity_id)
    return replace(activity) if activity is not None else None


def find_activity_logs(
    tables: Tables, activity_id: str, after_seq: int | None, limit: int | None
) -> list[ActivityLog]:
    """Log entries of one activity in seq order (after ``after_seq``, at most ``limit``)."""
    logs = sorted(tables.logs.get(activity_id, []), key=lambda log: log.seq)
    if after_seq is not None:
        logs = [log for log in logs if log.seq > after_seq]
    return logs if limit is None else logs[:limit]


def count_by_status(tables: Tables, agent_id: str) -> dict[str, int]:
    """Number of the agent's items per status."""
    return dict(Counter(str(i.status) for i in tables.items.values() if i.agent_id == agent_id))


def agent_ids(tables: Tables) -> list[str]:
    """Every agent id that has items, sorted."""
    return sorted({i.agent_id for i in tables.items.values()})


def get_callback(tables: Tables, agent_id: str, callback_id: str) -> PendingCallback | None:
    """The agent's callback with that id, or None."""
    found = tables.callbacks.get(callback_id)
    if found is None or found.agent_id != agent_id:
        return None
    return replace(found, data=copy.deepcopy(found.data))


def find_callbacks(
    tables: Tables, agent_id: str, types: Sequence[str] | None
) -> list[PendingCallback]:
    """The agent's callbacks, oldest registration first; only ``types`` when given."""
    wanted = None if types is None else set(types)
    found = [
        c
        for c in tables.callbacks.values()
        if c.agent_id == agent_id and (wanted is None or c.type in wanted)
    ]
    found.sort(key=lambda c: (c.registered_at, c.id))
    return [replace(c, data=copy.deepcopy(c.data)) for c in found]


def agent_settings(tables: Tables, agent_id: str) -> dict[str, Any]:
    """Every stored setting of the agent, by name."""
    return {
        name: copy.deepcopy(value)
        for (owner, name), value in tables.settings.items()
        if owner == agent_id
    }


def search_memories(
    tables: Tables, agent_id: str, query_words: list[str], limit: int
) -> list[Memory]:
    """The agent's best ``limit`` entries for ``query_words`` (see ``Store.search_memories``)."""
    wanted = set(query_words)
    scored = []
    for memory in tables.memories.get(agent_id, {}).values():
        score = len(wanted & tables.memory_words[memory.id])
        if score:
            scored.append((score, memory.updated_at, memory.id, memory))
    scored.sort(key=lambda s: (s[0], s[1], s[2]), reverse=True)
    return [s[3] for s in scored[:limit]]
