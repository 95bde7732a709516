"""Changes to queued and deferred items asked for by an agent's tools or a person.

Reprioritize, defer and drop one item, and the retry cleanup of stale status
updates; each commits the change with its decision at once. Human chat cannot
be changed by an agent (invariant 9).

Spec: 000 §6.5 (lifecycle), §18 (retry cleanup); DESIGN.md invariants 4 and 9.
"""

from __future__ import annotations

from datetime import datetime

from attn.core.item_type import validate_priority
from attn.core.mailbox.deferred import DeferredItems
from attn.core.mailbox.queue import ReadyQueue
from attn.core.mailbox.transitions import Transitions
from attn.core.registry import TypeRegistry
from attn.core.stimuli import completes_without_model
from attn.errors import InvalidInput, InvalidTransition, ItemNotFound, ProtectedItem
from attn.models import DecisionType, ItemStatus, MailboxItem
from attn.store.base import UpdateItem, WriteOp


class Actions:
    """Reprioritize, defer, drop: the mailbox operations offered to agents and people.

    Args:
        agent_id: the owning agent's name.
        registry: the type registry (which types are protected).
        queue: the mailbox's ready queue.
        deferred: the mailbox's deferred items.
        transitions: the mailbox's transitions, which write each change.
    """

    __slots__ = (
        "_deferred",
        "_queue",
        "_registry",
        "_transitions",
        "agent_id",
    )

    def __init__(
        self,
        agent_id: str,
        registry: TypeRegistry,
        queue: ReadyQueue,
        deferred: DeferredItems,
        transitions: Transitions,
    ) -> None:
        self.agent_id = agent_id
        self._registry = registry
        self._queue = queue
        self._deferred = deferred
        self._transitions = transitions

    def _require(self, item_id: object, *, parked: bool = False) -> MailboxItem:
        item = None
        if isinstance(item_id, str):
            item = self._queue.get(item_id) or self._deferred.get(item_id)
            if item is None and parked:
                item = self._transitions.parked.get(item_id)
        if item is None:
            what = "queued, deferred or parked" if parked else "queued or deferred"
            raise ItemNotFound(f"agent {self.agent_id!r} has no {what} item {item_id!r}")
        return item

    def _guard_protected(self, item: MailboxItem, action: str, by_agent: bool) -> None:
        if by_agent and self._registry.get_type(item.source_type).protected:
            raise ProtectedItem(f"{item.source_type} item {item.id} cannot be {action} by an agent")

    async def reprioritize(
        self, item_id: str, priority: object, *, by_agent: bool = False, reason: str = ""
    ) -> MailboxItem:
        """Change a queued or deferred item's priority (0..4).

        Raises:
            InvalidPriority: priority outside 0..4 (nothing changes).
            ItemNotFound: no queued or deferred item with that id.
            ProtectedItem: ``by_agent`` and the item is human chat.
        """
        new_priority = validate_priority(priority)
        item = self._require(item_id)
        self._guard_protected(item, "reprioritized", by_agent)
        old = item.priority
        item.priority = new_priority
        self._queue.reprioritized(item)
        transitions = self._transitions
        transitions.item_updated(item)
        await transitions.commit(
            [
                UpdateItem(item.id, {"priority": new_priority}),
                transitions.decision_op(
                    item, DecisionType.PRIORITIZE, reason or f"priority {old} -> {new_priority}"
                ),
            ]
        )
        return item

    async def defer(
        self,
        item_id: str,
        until: datetime | None = None,
        *,
        reason: str = "",
        by_agent: bool = False,
    ) -> MailboxItem:
        """Defer a queued item until ``until`` (UTC; None: next idle cycle).

        Raises:
            ItemNotFound, ProtectedItem, InvalidInput (naive datetime).
        """
        if until is not None and (not isinstance(until, datetime) or until.tzinfo is None):
            raise InvalidInput(f"defer until must be a timezone-aware datetime, got {until!r}")
        item = self._require(item_id)
        if item.status != ItemStatus.QUEUED:
            raise InvalidTransition(f"item {item.id} is {item.status}, only queued items defer")
        self._guard_protected(item, "deferred", by_agent)
        reason = reason or "deferred"
        transitions = self._transitions
        ops = transitions.defer_ops(item, until, reason)
        ops.append(transitions.decision_op(item, DecisionType.DEFER, reason))
        await transitions.commit(ops)
        return item

    async def take(self, item_id: str, reason: str) -> MailboxItem:
        """Complete a queued item outside a turn: its record was read another way
        (a RESULT taken by a waiting call or an explicit fetch, seed 002).

        Raises:
            ItemNotFound: the item is not queued (or deferred) here.
        """
        item = self._require(item_id)
        self._queue.remove(item)
        self._deferred.discard(item)
        transitions = self._transitions
        ops = transitions.complete_ops(item, reason)
        ops.append(transitions.decision_op(item, DecisionType.COMPLETE, reason))
        await transitions.commit(ops)
        return item

    async def drop(self, item_id: str, *, reason: str = "", by_agent: bool = False) -> MailboxItem:
        """Drop a queued or deferred item for good; a person may drop a parked one
        too (its approvals are then cancelled).

        Raises:
            ItemNotFound, ProtectedItem.
        """
        item = self._require(item_id, parked=not by_agent)
        self._guard_protected(item, "dropped", by_agent)
        reason = reason or "dropped"
        transitions = self._transitions
        ops = transitions.drop_ops(item, reason)
        ops.append(transitions.decision_op(item, DecisionType.DROP, reason))
        await transitions.commit(ops)
        return item

    async def drop_status_updates(self, task_id: str) -> list[MailboxItem]:
        """Drop queued informational task_status_update items of one task (000 §18)."""
        doomed = [
            i
            for i in self._queue.values()
            if i.source_type == "task_status_update"
            and not i.triggers_execution
            and i.extra("taskId") == task_id
            # one that absorbed a comment (consolidation) carries text: it stays (CORE-70)
            and completes_without_model(i, self._registry)
        ]
        transitions = self._transitions
        ops: list[WriteOp] = []
        for item in doomed:
            ops.extend(transitions.drop_ops(item, f"stale status update: task {task_id} retried"))
            ops.append(transitions.decision_op(item, DecisionType.DROP, "retry cleanup (000 §18)"))
        await transitions.commit(ops)
        return doomed
