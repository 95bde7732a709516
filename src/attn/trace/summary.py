"""What a replay did, computed from the store alone (never from replay memory).

Definitions (each is a check in :class:`ReplaySummary`):

* **item of an event**: the stored item of the event's agent whose idempotency
  key is the event's key.
* **settled**: the item is ``completed``, or ``merged`` into an item that is
  (following ``merged_into``) completed and whose payload names it in
  ``mergedItemIds`` or ``messages``, so its text was kept (invariant 8).
* **lost**: an event with no item, or whose item is not settled (still queued,
  processing or deferred after the run, dropped, or merged into something lost).
* **duplicate**: an event key with more than one stored item.
* **reprocessed**: an item picked more often than its recorded restarts explain:
  ``picks > 1 + requeues + resurfaces`` (a preempted item is deferred and
  resurfaces; a stopped or failed one is requeued). ``retried`` counts items
  that were requeued at all.
* **order**: within one (recipient, sender, priority) group, items are picked in
  trace order. A merged item counts as picked when its survivor first was. Only
  one priority class is compared because the mailbox serves a lower priority
  number first by design, which legitimately reorders a sender's messages of
  different priorities. Pick order is the order of the store's pick decisions.
* **latency**: ``started_at - queued_at`` of completed items, in seconds
  (``started_at`` is the last pick); p50 and p99 by nearest rank.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from attn.models import Decision, DecisionType, ItemStatus, MailboxItem
from attn.store.base import ItemQuery, Store
from attn.trace.model import Trace, TraceEvent

_PAGE = 1000


@dataclass(frozen=True, slots=True)
class LostItem:
    """A trace event whose message was not settled (``status`` ``missing``: no item)."""

    agent: str
    key: str
    source_type: str
    status: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "key": self.key,
            "sourceType": self.source_type,
            "status": self.status,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class OrderViolation:
    """Items of one (agent, sender, priority) group picked out of trace order (item ids)."""

    agent: str
    sender: str
    priority: int
    expected: tuple[str, ...]
    actual: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "sender": self.sender,
            "priority": self.priority,
            "expected": list(self.expected),
            "actual": list(self.actual),
        }


@dataclass(frozen=True, slots=True)
class ReplaySummary:
    """The outcome of a replay, read back from the store.

    Attributes:
        events: trace events replayed.
        agents: recipients in the trace.
        items: agent -> source type -> status -> count of the trace's items.
        decisions: decision type -> count, over the trace's items.
        latency_p50_s, latency_p99_s, latency_max_s: enqueue-to-pick seconds of
            completed items (None when there are none).
        latency_samples: how many items the latency figures cover.
        completed, merged: settled items by how.
        lost, duplicates, reprocessed, order_violations: failed checks (see module doc).
        retried: items requeued at least once (failures, stops).
        max_picks: the most picks any one item had.
        elapsed_s: wall time of the replay in seconds (0 when only summarized).
    """

    events: int
    agents: int
    items: dict[str, dict[str, dict[str, int]]]
    decisions: dict[str, int]
    latency_p50_s: float | None
    latency_p99_s: float | None
    latency_max_s: float | None
    latency_samples: int
    completed: int
    merged: int
    lost: tuple[LostItem, ...] = ()
    duplicates: tuple[str, ...] = ()
    reprocessed: tuple[str, ...] = ()
    order_violations: tuple[OrderViolation, ...] = ()
    retried: int = 0
    max_picks: int = 0
    elapsed_s: float = 0.0
    per_type: dict[str, int] = field(default_factory=dict)

    @property
    def exactly_once(self) -> bool:
        """Every event has exactly one item, settled, never reprocessed."""
        return not (self.lost or self.duplicates or self.reprocessed)

    @property
    def in_order(self) -> bool:
        return not self.order_violations

    @property
    def ok(self) -> bool:
        """All checks passed."""
        return self.exactly_once and self.in_order

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (camelCase keys)."""
        return {
            "events": self.events,
            "agents": self.agents,
            "ok": self.ok,
            "exactlyOnce": self.exactly_once,
            "inOrder": self.in_order,
            "completed": self.completed,
            "merged": self.merged,
            "lost": [x.to_dict() for x in self.lost],
            "duplicates": list(self.duplicates),
            "reprocessed": list(self.reprocessed),
            "orderViolations": [v.to_dict() for v in self.order_violations],
            "retried": self.retried,
            "maxPicks": self.max_picks,
            "items": self.items,
            "perType": self.per_type,
            "decisions": self.decisions,
            "latency": {
                "p50S": self.latency_p50_s,
                "p99S": self.latency_p99_s,
                "maxS": self.latency_max_s,
                "samples": self.latency_samples,
            },
            "elapsedS": self.elapsed_s,
        }


def percentile(values: list[float], fraction: float) -> float | None:
    """Nearest-rank percentile (``fraction`` in 0..1) of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


async def summarize(trace: Trace, store: Store, *, elapsed_s: float = 0.0) -> ReplaySummary:
    """Check what the store holds for ``trace``'s events; see the module doc.

    Args:
        trace: the replayed trace.
        store: an open store holding the replay's items and decisions.
        elapsed_s: wall time of the replay, reported as is.

    Returns:
        The summary.
    """
    by_agent: dict[str, list[TraceEvent]] = defaultdict(list)
    for event in sorted(trace.events, key=lambda e: e.at):  # stable: file order breaks ties
        by_agent[event.agent].append(event)
    items: dict[str, dict[str, dict[str, int]]] = {}
    decisions: Counter[str] = Counter()
    per_type: Counter[str] = Counter()
    latencies: list[float] = []
    lost: list[LostItem] = []
    duplicates: list[str] = []
    reprocessed: list[str] = []
    violations: list[OrderViolation] = []
    completed = merged = retried = max_picks = 0
    for agent, events in by_agent.items():
        stored = await _all_items(store, agent)
        by_id = {i.id: i for i in stored}
        by_key: dict[str, list[MailboxItem]] = defaultdict(list)
        for item in stored:
            if item.idempotency_key is not None:
                by_key[item.idempotency_key].append(item)
        history = await _all_decisions(store, agent)  # chronological
        counts: dict[str, Counter[DecisionType]] = defaultdict(Counter)
        first_pick: dict[str, int] = {}
        for position, decision in enumerate(history):
            counts[decision.item_id][decision.decision_type] += 1
            if decision.decision_type == DecisionType.PICK:
                first_pick.setdefault(decision.item_id, position)
        table = items.setdefault(agent, {})
        groups: dict[tuple[str, int], list[tuple[str, int | None]]] = defaultdict(list)
        for event in events:
            found = by_key.get(event.key, [])
            if len(found) > 1:
                duplicates.append(f"{agent} {event.key}")
            if not found:
                lost.append(
                    LostItem(
                        agent,
                        event.key,
                        event.source_type,
                        "missing",
                        "no stored item has this key",
                    )
                )
                continue
            item = found[0]
            row = table.setdefault(item.source_type, {})
            row[str(item.status)] = row.get(str(item.status), 0) + 1
            per_type[item.source_type] += 1
            seen = counts.get(item.id, Counter())
            for kind, n in seen.items():
                decisions[str(kind)] += n
            picks = seen[DecisionType.PICK]
            max_picks = max(max_picks, picks)
            restarts = seen[DecisionType.REQUEUE] + seen[DecisionType.RESURFACE]
            if seen[DecisionType.REQUEUE]:
                retried += 1
            if picks > 1 + restarts:
                reprocessed.append(item.id)
            survivor, problem = _settle(item, by_id)
            if problem is not None:
                lost.append(LostItem(agent, event.key, item.source_type, str(item.status), problem))
            elif item.status == ItemStatus.COMPLETED:
                completed += 1
                if item.started_at is not None:
                    latencies.append((item.started_at - item.queued_at).total_seconds())
            else:
                merged += 1
            pick_of = survivor.id if survivor is not None else item.id
            groups[(event.sender, item.priority)].append((item.id, first_pick.get(pick_of)))
        for (sender, priority), members in groups.items():
            positions = [p for _, p in members if p is not None]
            if positions != sorted(positions):
                actual = sorted((m for m in members if m[1] is not None), key=lambda m: m[1] or 0)
                violations.append(
                    OrderViolation(
                        agent,
                        sender,
                        priority,
                        tuple(i for i, p in members if p is not None),
                        tuple(i for i, _ in actual),
                    )
                )
    return ReplaySummary(
        events=len(trace.events),
        agents=len(by_agent),
        items=items,
        decisions=dict(sorted(decisions.items())),
        latency_p50_s=percentile(latencies, 0.50),
        latency_p99_s=percentile(latencies, 0.99),
        latency_max_s=max(latencies) if latencies else None,
        latency_samples=len(latencies),
        completed=completed,
        merged=merged,
        lost=tuple(lost),
        duplicates=tuple(duplicates),
        reprocessed=tuple(reprocessed),
        order_violations=tuple(violations),
        retried=retried,
        max_picks=max_picks,
        elapsed_s=elapsed_s,
        per_type=dict(sorted(per_type.items())),
    )


def _settle(
    item: MailboxItem, by_id: dict[str, MailboxItem]
) -> tuple[MailboxItem | None, str | None]:
    """(final survivor for merged items, why the item is not settled or None)."""
    if item.status == ItemStatus.COMPLETED:
        return None, None
    if item.status != ItemStatus.MERGED:
        return None, f"ended {item.status}" + (f": {item.reason}" if item.reason else "")
    current, hops = item, 0
    while current.status == ItemStatus.MERGED and hops < 100:
        target = by_id.get(current.merged_into or "")
        if target is None:
            return None, f"merged into {current.merged_into!r}, which is not stored"
        if not _names(target, current.id):
            return target, f"merged into {target.id}, whose payload lost its text"
        current, hops = target, hops + 1
    if current.status != ItemStatus.COMPLETED:
        return current, f"merged into {current.id}, which ended {current.status}"
    return current, None


def _names(survivor: MailboxItem, item_id: str) -> bool:
    payload = survivor.payload
    for key in ("mergedItemIds", "supersededItemIds"):  # merged, or superseded (CORE-76)
        ids = payload.get(key)
        if isinstance(ids, list) and item_id in ids:
            return True
    messages = payload.get("messages")
    return isinstance(messages, list) and any(
        isinstance(m, dict) and m.get("mailboxItemId") == item_id for m in messages
    )


async def _all_items(store: Store, agent: str) -> list[MailboxItem]:
    found: list[MailboxItem] = []
    while True:
        page = await store.find_items(
            ItemQuery(agent, limit=_PAGE, offset=len(found), oldest_first=True)
        )
        found.extend(page)
        if len(page) < _PAGE:
            return found


async def _all_decisions(store: Store, agent: str) -> list[Decision]:
    found: list[Decision] = []
    while True:
        page = await store.find_decisions(agent, limit=_PAGE, offset=len(found))
        found.extend(page)
        if len(page) < _PAGE:
            return found[::-1]
