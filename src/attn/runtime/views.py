"""Paged, bounded views of one agent's stored data: timeline, decisions, activity logs.

Every listing has a bounded default page, a bounded largest page and a cursor:
the answer's ``nextCursor`` passed back as ``cursor`` continues after the last
entry shown, and is None on the last page. Cursors are keys, not positions, so
a page never repeats or skips an entry because others arrived or completed
meanwhile. A page also ends early once its entries hold about
:data:`PAGE_BUDGET_CHARS` characters of JSON (always at least one entry), so
no answer grows with what the agent stored.

The mailbox timeline is read in one store snapshot
(:meth:`attn.store.base.Store.read_timeline`): each item is in exactly one of
``queued`` and ``history``, also the one the agent is claiming right then.

Spec: 000 §5 (``/mailbox``, ``/decisions``, ``/activity-logs``), §9 ("Load
earlier"), §16 (status filters); acceptance SRV-02, SRV-03; issue 10 C2, C7.
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from attn.core.item_type import Category
from attn.errors import ActivityNotFound, InvalidInput, shown
from attn.jsontext import dumps, dumps_bytes
from attn.limits import check_int
from attn.models import ActivityLog, ItemStatus, MailboxItem
from attn.store.base import ItemQuery

if TYPE_CHECKING:
    from attn.core.registry import TypeRegistry
    from attn.models import PendingCallback
    from attn.store.base import Store

#: Largest page of every listing (entries).
MAX_PAGE = 1000
#: Default page of the mailbox history.
DEFAULT_ITEM_PAGE = 50
#: Default page of the decision timeline.
DEFAULT_DECISION_PAGE = 100
#: Default page of an agent's pending callbacks.
DEFAULT_CALLBACK_PAGE = 100
#: Default page of an activity's log entries.
DEFAULT_LOG_PAGE = 200
#: Most queued (and deferred) items listed in one answer; ``queueDepth`` counts them all.
MAX_QUEUE_SHOWN = 1000
#: A page ends after the entry that takes it past this many characters of JSON.
PAGE_BUDGET_CHARS = 4_000_000
#: Longest log entry ``content`` shown; longer text is cut and marked ``truncated``.
MAX_LOG_CONTENT_CHARS = 1_000_000
#: Largest offset accepted (offset paging is kept for old clients).
MAX_OFFSET = 1_000_000_000
_MAX_SEQ = 2**63 - 1
_MAX_LOG_SEQ = 2**31 - 1

_NOT_QUEUED = tuple(s for s in ItemStatus if s != ItemStatus.QUEUED)


def check_page(limit: object, offset: object = 0) -> None:
    """Raise InvalidInput unless ``limit`` is 1..:data:`MAX_PAGE` and ``offset``
    0..:data:`MAX_OFFSET` (ints, not bools)."""
    check_int(limit, "limit", low=1, high=MAX_PAGE)
    check_int(offset, "offset", low=0, high=MAX_OFFSET)


def _seq_cursor(cursor: object, largest: int) -> int | None:
    """The seq a ``nextCursor`` of an item or log page stands for (None or "": none)."""
    if cursor is None or cursor == "":
        return None
    if (
        not isinstance(cursor, str)
        or not cursor.isascii()
        or not cursor.isdigit()
        or len(cursor) > 19
        or not 0 <= int(cursor) <= largest
    ):
        raise InvalidInput(
            f"cursor must be a nextCursor value of an earlier page, got {shown(cursor)}"
        )
    return int(cursor)


def _time_id_cursor(cursor: object) -> tuple[datetime, str] | None:
    if cursor is None or cursor == "":
        return None
    problem = InvalidInput(
        f"cursor must be a nextCursor value of an earlier page, got {shown(cursor)}"
    )
    if not isinstance(cursor, str) or not cursor.isascii() or len(cursor) > 200:
        raise problem
    try:
        at, decision_id = json.loads(base64.urlsafe_b64decode(cursor.encode() + b"=="))
        when = datetime.fromisoformat(at)
    except (ValueError, TypeError, binascii.Error):
        raise problem from None
    if when.tzinfo is None or not isinstance(decision_id, str):
        raise problem
    return when, decision_id


def _encode_time_id_cursor(at: datetime, decision_id: str) -> str:
    raw = dumps_bytes([at.isoformat(), decision_id])
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def callback_page(
    callbacks: list[PendingCallback], limit: int = DEFAULT_CALLBACK_PAGE, cursor: str | None = None
) -> dict[str, Any]:
    """One page of ``callbacks`` (oldest registration first, as the store lists them).

    Returns:
        ``callbacks`` (dicts), ``count`` (all of them, not just this page) and
        ``nextCursor``.

    Raises:
        InvalidInput: limit outside 1..1000 or a malformed cursor.
    """
    check_page(limit)
    after = _time_id_cursor(cursor)
    rest = [c for c in callbacks if after is None or (c.registered_at, c.id) > after]
    entries = [c.to_dict() for c in rest[:limit]]
    count = _within_budget(entries)
    more = len(rest) > limit or count < len(entries)
    last = rest[count - 1] if entries else None
    return {
        "callbacks": entries[:count],
        "count": len(callbacks),
        "nextCursor": _encode_time_id_cursor(last.registered_at, last.id)
        if more and last is not None
        else None,
    }


def _within_budget(entries: list[dict[str, Any]]) -> int:
    """How many of ``entries`` fit the page budget (at least one)."""
    used = 0
    for count, entry in enumerate(entries, start=1):
        try:
            used += len(dumps(entry))
        except (TypeError, ValueError, RecursionError):  # the response will say so
            used += PAGE_BUDGET_CHARS
        if used > PAGE_BUDGET_CHARS:
            return count
    return len(entries)


def bounded(items: list[MailboxItem]) -> list[dict[str, Any]]:
    """The first of ``items`` as dicts: at most :data:`MAX_QUEUE_SHOWN`, within the budget."""
    shown_items = [i.to_dict() for i in items[:MAX_QUEUE_SHOWN]]
    return shown_items[: _within_budget(shown_items)]


async def mailbox_timeline(
    store: Store,
    registry: TypeRegistry,
    agent_id: str,
    types: list[str] | None = None,
    category: str | None = None,
    statuses: list[str] | None = None,
    limit: int = DEFAULT_ITEM_PAGE,
    offset: int = 0,
    cursor: str | None = None,
) -> dict[str, Any]:
    """See :meth:`attn.runtime.Agent.mailbox_timeline`."""
    check_page(limit, offset)
    before = _seq_cursor(cursor, _MAX_SEQ)
    if before is not None and offset:
        raise InvalidInput("give cursor or offset, not both (cursor replaces offset)")
    wanted: set[str] | None = None
    if types:
        wanted = {registry.get_type(t).name for t in types}
    if category:
        if category not in {c.value for c in Category}:
            allowed = ", ".join(c.value for c in Category)
            raise InvalidInput(f"category must be one of {allowed}, got {shown(category)}")
        in_category = {t.name for t in registry.by_category(category)}
        wanted = in_category if wanted is None else wanted & in_category
    status_filter: tuple[ItemStatus, ...] = _NOT_QUEUED
    if statuses:
        try:
            status_filter = tuple(ItemStatus(s) for s in statuses)
        except ValueError:
            allowed = ", ".join(s.value for s in ItemStatus)
            raise InvalidInput(f"status must be among {allowed}, got {shown(statuses)}") from None
    query = ItemQuery(
        agent_id,
        statuses=status_filter,
        source_types=tuple(sorted(wanted)) if wanted is not None else None,
        limit=limit + 1,
        offset=offset,
        before_seq=before,
    )
    snapshot = await store.read_timeline(query, MAX_QUEUE_SHOWN)
    decisions: dict[str, list[dict[str, Any]]] = {i.id: [] for i in snapshot.history}
    for decision in snapshot.decisions:
        decisions[decision.item_id].append(decision.to_dict())
    activities = {a.item_id: a.to_dict() for a in snapshot.activities}
    history = [
        {**i.to_dict(), "decisions": decisions[i.id], "activity": activities.get(i.id)}
        for i in snapshot.history[:limit]
    ]
    shown_count = _within_budget(history)
    more = len(snapshot.history) > limit or shown_count < len(history)
    history = history[:shown_count]
    return {
        "queued": bounded(snapshot.queued),
        "queueDepth": snapshot.counts_by_status.get(ItemStatus.QUEUED.value, 0),
        "countsByStatus": snapshot.counts_by_status,
        "countsByType": snapshot.counts_by_type,
        "history": history,
        "total": snapshot.total,
        "nextCursor": str(history[-1]["seq"]) if more and history else None,
    }


async def decision_page(
    store: Store,
    agent_id: str,
    limit: int = DEFAULT_DECISION_PAGE,
    offset: int = 0,
    cursor: str | None = None,
) -> dict[str, Any]:
    """See :meth:`attn.runtime.Agent.decision_page`."""
    check_page(limit, offset)
    before = _seq_cursor(cursor, _MAX_SEQ)
    if before is not None and offset:
        raise InvalidInput("give cursor or offset, not both (cursor replaces offset)")
    found = await store.find_decisions(agent_id, None, limit + 1, offset, before)
    page = found[:limit]
    entries = [d.to_dict() for d in page]
    count = _within_budget(entries)
    more = len(found) > limit or count < len(entries)
    last = page[count - 1] if page else None
    return {
        "decisions": entries[:count],
        "nextCursor": str(last.seq) if more and last is not None and last.seq is not None else None,
    }


async def activity_log_page(
    store: Store,
    agent_id: str,
    activity_id: object,
    limit: int = DEFAULT_LOG_PAGE,
    cursor: str | None = None,
) -> dict[str, Any]:
    """See :meth:`attn.runtime.Agent.activity_log_page`."""
    check_page(limit)
    after = _seq_cursor(cursor, _MAX_LOG_SEQ)
    checked = await require_activity(store, agent_id, activity_id)
    found = await store.find_activity_logs(checked, after, limit + 1)
    entries = [_log_view(entry) for entry in found[:limit]]
    count = _within_budget(entries)
    more = len(found) > limit or count < len(entries)
    entries = entries[:count]
    return {"logs": entries, "nextCursor": str(entries[-1]["seq"]) if more and entries else None}


async def require_activity(store: Store, agent_id: str, activity_id: object) -> str:
    """``activity_id`` when it names one of the agent's activities.

    Raises:
        ActivityNotFound: no activity has that id, or it is another agent's.
    """
    activity = await store.get_activity(activity_id) if isinstance(activity_id, str) else None
    if activity is None or activity.agent_id != agent_id:
        raise ActivityNotFound(f"agent {agent_id!r} has no activity {shown(activity_id)}")
    return activity.id


def _log_view(entry: ActivityLog) -> dict[str, Any]:
    view = entry.to_dict()
    content = entry.content
    if len(content) > MAX_LOG_CONTENT_CHARS:
        view["content"] = content[:MAX_LOG_CONTENT_CHARS]
        view["truncated"] = True
        view["contentChars"] = len(content)
    return view


__all__ = [
    "DEFAULT_CALLBACK_PAGE",
    "DEFAULT_DECISION_PAGE",
    "DEFAULT_ITEM_PAGE",
    "DEFAULT_LOG_PAGE",
    "MAX_PAGE",
    "MAX_QUEUE_SHOWN",
    "PAGE_BUDGET_CHARS",
    "activity_log_page",
    "bounded",
    "callback_page",
    "check_page",
    "decision_page",
    "mailbox_timeline",
    "require_activity",
]
