"""Changes to queued and deferred items asked for by an agent's tools or a person.

Reprioritize, defer and drop one item, and the retry cleanup of stale status
updates; each commits the change with its decision at once. Human chat cannot
be changed by an agent (invariant 9).

Spec: 000 §6.5 (lifecycle), §18 (retry cleanup); DESIGN.md invariants 4 and 9.
"""

from __future__ import annotations

import heapq
from datetime import datetime

from attn.core.item_type import validate_priority
from attn.core.mailbox.transitions import MailboxTransitions
from attn.core.stimuli import completes_without_model
from attn.errors import InvalidInput, InvalidTransition, ItemNotFound, ProtectedItem
from attn.models import DecisionType, ItemStatus, MailboxItem
from attn.store.base import UpdateItem, WriteOp


class MailboxActions(MailboxTransitions):
    """Reprioritize, defer, drop: the mailbox operations offered to agents and people."""

    def _require(self, item_id: object) -> MailboxItem:
        item = self.find(item_id) if isinstance(item_id, str) else None
        if item is None:
            raise ItemNotFound(
                f"agent {self.agent_id!r} has no queued or deferred item {item_id!r}"
            )
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
        if item.id in self._queued:
            heapq.heappush(self._heap, (item.priority, item.seq, item.id))
        self._updated(item)
        await self.commit(
            [
                UpdateItem(item.id, {"priority": new_priority}),
                self.decision_op(
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
        ops = self.defer_ops(item, until, reason)
        ops.append(self.decision_op(item, DecisionType.DEFER, reason))
        await self.commit(ops)
        return item

    async def drop(self, item_id: str, *, reason: str = "", by_agent: bool = False) -> MailboxItem:
        """Drop a queued or deferred item for good.

        Raises:
            ItemNotFound, ProtectedItem.
        """
        item = self._require(item_id)
        self._guard_protected(item, "dropped", by_agent)
        reason = reason or "dropped"
        ops = self.drop_ops(item, reason)
        ops.append(self.decision_op(item, DecisionType.DROP, reason))
        await self.commit(ops)
        return item

    async def drop_status_updates(self, task_id: str) -> list[MailboxItem]:
        """Drop queued informational task_status_update items of one task (000 §18)."""
        doomed = [
            i
            for i in self._queued.values()
            if i.source_type == "task_status_update"
            and not i.triggers_execution
            and i.extra("taskId") == task_id
            # one that absorbed a comment (consolidation) carries text: it stays (CORE-70)
            and completes_without_model(i, self._registry)
        ]
        ops: list[WriteOp] = []
        for item in doomed:
            ops.extend(self.drop_ops(item, f"stale status update: task {task_id} retried"))
            ops.append(self.decision_op(item, DecisionType.DROP, "retry cleanup (000 §18)"))
        await self.commit(ops)
        return doomed
