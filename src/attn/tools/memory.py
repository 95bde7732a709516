"""The memory toolset: a brain saves and searches its long-term memory and recalls its past work.

Long-term memory is kept in the store (``memories``; see
:meth:`~attn.store.base.Store.search_memories`): ``memory_save`` adds an
entry, or replaces the one saved under the same key; ``memory_search`` finds
entries by their words. Episodic memory is what the agent did:
``recall_activity`` lists its recent activities or reads one's log, only
ever the agent's own. The docstrings' descriptions and ``Args:`` are what the
model reads.

Spec: 000 §8 (episodic memory via recall_activity; long-term memory), §13.3
(recall_activity to review past execution), §21 (memory_save, memory_search
and recall_activity during deliberation), §24 (the episodic buffer).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from attn.clock import Clock
from attn.errors import ActivityNotFound, MemoryFull, shown
from attn.ids import new_id
from attn.limits import MAX_ID_CHARS, check_id, check_int, check_optional_text, check_text
from attn.models import (
    MAX_MEMORIES_PER_AGENT,
    MAX_MEMORY_CHARS,
    MAX_MEMORY_KEY_CHARS,
    MAX_MEMORY_QUERY_CHARS,
    MAX_MEMORY_RESULTS,
    Activity,
    ActivityLog,
    ItemStatus,
    Memory,
)
from attn.store.base import ItemQuery, SaveMemory, Store
from attn.tools._function import FunctionToolset, tool
from attn.tools._schema import Param
from attn.types import JSON

#: Most activities, or log entries of one, that ``recall_activity`` answers.
MAX_RECALL = 50
#: Characters of one log entry's content shown; the rest is cut.
LOG_CONTENT_CHARS = 2_000
#: Characters of an item's summary shown with its activity.
_SUMMARY_CHARS = 200
#: Every status but queued: the items the agent has worked on (or begun to).
_WORKED_ON = tuple(s for s in ItemStatus if s != ItemStatus.QUEUED)


def memory_entry(agent_id: str, content: object, key: object, now: datetime) -> Memory:
    """A new memory entry of ``agent_id`` saved ``now``, its content and key checked.

    Raises:
        InvalidInput: content not 1..4,000 characters of text, or a key given
            that is not 1..100 characters (blank ones included).
    """
    text = check_text(content, "content", max_len=MAX_MEMORY_CHARS)
    label = check_optional_text(key, "key", max_len=MAX_MEMORY_KEY_CHARS)
    if label is not None:
        label = check_text(label, "key", max_len=MAX_MEMORY_KEY_CHARS)
    return Memory(new_id("mem"), agent_id, text, now, now, label)


async def save_memory(
    store: Store, clock: Clock, agent_id: str, content: object, key: object = None
) -> tuple[Memory, bool]:
    """Save one long-term memory entry of ``agent_id``.

    Args:
        store: where it is kept.
        clock: stamps ``created_at`` and ``updated_at``.
        agent_id: whose entry it is.
        content: the text, 1..4,000 characters, not blank.
        key: None, or a label of 1..100 characters; an entry already saved
            under it is replaced.

    Returns:
        ``(entry as stored, replaced)``: ``replaced`` is True when an entry
        under ``key`` was overwritten.

    Raises:
        InvalidInput: bad content or key (nothing is saved).
        MemoryFull: the agent keeps 10,000 entries and ``key`` names none of
            them (nothing is saved).
    """
    entry = memory_entry(agent_id, content, key, clock.now())
    [stored] = await store.write([SaveMemory(entry)])
    if stored is None:
        raise MemoryFull(
            f"agent {agent_id!r} keeps {MAX_MEMORIES_PER_AGENT:,} memory entries, the most"
            " allowed; save under the key of an entry to replace it instead"
        )
    return stored, stored.id != entry.id


class MemoryToolset(FunctionToolset):
    """The memory tools bound to one agent.

    Args:
        store: the runtime's store (memories, activities and their logs).
        agent_id: the agent the tools act for; it sees only its own records.
        clock: stamps saved entries.
    """

    def __init__(self, store: Store, agent_id: str, clock: Clock) -> None:
        self.store = store
        self.agent_id = agent_id
        self.clock = clock

    @tool
    async def memory_save(
        self,
        content: Annotated[str, Param(min_length=1, max_length=MAX_MEMORY_CHARS)],
        key: Annotated[str | None, Param(min_length=1, max_length=MAX_MEMORY_KEY_CHARS)] = None,
    ) -> JSON:
        """Save something to your long-term memory, kept across conversations and restarts:
        a fact, a preference, a commitment, a decision. Give a key to name the entry;
        saving again under the same key replaces it (use this to update a memory).

        Args:
            content: What to remember, in words you will understand later.
            key: A short name for the entry, e.g. "alice-deploy-preference".

        Returns:
            ``{"memory": {"id", "content", "key", "createdAt", "updatedAt", ...},
            "replaced"}``.

        Raises:
            InvalidInput: blank or too long content, a bad key.
            MemoryFull: 10,000 entries are kept already.
        """
        stored, replaced = await save_memory(self.store, self.clock, self.agent_id, content, key)
        return {"memory": stored.to_dict(), "replaced": replaced}

    @tool(read_only=True)
    async def memory_search(
        self,
        query: Annotated[str, Param(min_length=1, max_length=MAX_MEMORY_QUERY_CHARS)],
        limit: Annotated[int, Param(minimum=1, maximum=MAX_MEMORY_RESULTS)] = 5,
    ) -> JSON:
        """Search your long-term memory by words: entries sharing the most words with the
        query come first, then the newest.

        Args:
            query: Words to look for (case does not matter; whole words only).
            limit: Most entries to return.

        Returns:
            ``{"query", "memories": [{"id", "content", "key", "createdAt",
            "updatedAt", ...}]}``, best first; empty when nothing matches.

        Raises:
            InvalidInput: a blank or too long query, a limit outside 1..50.
        """
        text = check_text(query, "query", max_len=MAX_MEMORY_QUERY_CHARS)
        count = check_int(limit, "limit", low=1, high=MAX_MEMORY_RESULTS)
        found = await self.store.search_memories(self.agent_id, text, count)
        return {"query": text, "memories": [m.to_dict() for m in found]}

    @tool(read_only=True)
    async def recall_activity(
        self,
        activity_id: Annotated[str | None, Param(min_length=1, max_length=MAX_ID_CHARS)] = None,
        limit: Annotated[int, Param(minimum=1, maximum=MAX_RECALL)] = 10,
    ) -> JSON:
        """Review your past work. Without an activity_id: your most recent activities
        (what item each was for, when, tokens and tools used, how it ended). With an
        activity_id: that activity's log (your turns, tool calls and their results).

        Args:
            activity_id: The id of one of your activities, from the list.
            limit: Most activities, or log entries, to return.

        Returns:
            ``{"activities": [...]}`` newest first, or ``{"activity", "logs",
            "more"}``: the log entries in order, each one's content cut to
            2,000 characters (``truncated``, ``contentChars``), ``more`` when
            the activity has further entries.

        Raises:
            ActivityNotFound: you have no activity with that id.
            InvalidInput: a limit outside 1..50, or an id that is not a
                non-blank string of at most 200 characters.
        """
        count = check_int(limit, "limit", low=1, high=MAX_RECALL)
        if activity_id is None:
            return {"activities": await self._recent(count)}
        return await self._logs(check_id(activity_id, "activity_id"), count)

    async def _recent(self, limit: int) -> list[JSON]:
        query = ItemQuery(self.agent_id, statuses=_WORKED_ON, limit=min(2 * limit, 100))
        items = {i.id: i for i in await self.store.find_items(query)}
        activities = await self.store.find_activities(self.agent_id, list(items))
        activities.sort(key=lambda a: (a.started_at, a.id), reverse=True)
        views = []
        for activity in activities[:limit]:
            item = items.get(activity.item_id or "")
            views.append(
                {
                    **_activity_view(activity),
                    "itemType": item.source_type if item else None,
                    "itemSummary": item.summary[:_SUMMARY_CHARS] if item else None,
                    "itemStatus": str(item.status) if item else None,
                }
            )
        return views

    async def _logs(self, activity_id: object, limit: int) -> JSON:
        found = await self.store.get_activity(activity_id) if isinstance(activity_id, str) else None
        if found is None or found.agent_id != self.agent_id:
            raise ActivityNotFound(f"you have no activity {shown(activity_id)}")
        logs = await self.store.find_activity_logs(found.id, limit=limit + 1)
        return {
            "activity": _activity_view(found),
            "logs": [_log_view(entry) for entry in logs[:limit]],
            "more": len(logs) > limit,
        }


def _activity_view(activity: Activity) -> JSON:
    if activity.ended_at is None:
        status = "running"
    else:
        status = "succeeded" if activity.success else "failed"
    return {
        "activityId": activity.id,
        "type": activity.type,
        "label": activity.label,
        "mailboxItemId": activity.item_id,
        "startedAt": activity.started_at.isoformat(),
        "endedAt": activity.ended_at.isoformat() if activity.ended_at else None,
        "totalTokens": activity.total_tokens,
        "totalTools": activity.total_tools,
        "status": status,
    }


def _log_view(entry: ActivityLog) -> JSON:
    view: JSON = {
        "seq": entry.seq,
        "type": str(entry.type),
        "content": entry.content[:LOG_CONTENT_CHARS],
        "createdAt": entry.created_at.isoformat(),
    }
    if len(entry.content) > LOG_CONTENT_CHARS:
        view["truncated"] = True
        view["contentChars"] = len(entry.content)
    return view
