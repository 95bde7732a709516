"""Triage: what the attention loop does between dequeuing a head and processing it.

1. Burst window: a head that later mail could merge into waits (at most
   ``coalesce_window_ms``, counted from the latest arrival) so the rest of a
   burst joins it; never a human chat head, never with an empty queue.
2. Pre-triage upkeep: stale informational items are dropped, and queued items
   about one task or requirement are consolidated into one (any type, the
   absorbed text labelled with its type, the best priority kept).
3. Tiers: tier 0 (nothing else queued, or one clearly less urgent item)
   picks the head; tier 2 asks the :class:`~attn.core.deliberation.Deliberator`
   when one is configured and applies its :class:`DeliberationResult`.
   (Tier 1, the interrupt judge, works at yield points: see attention/yields.py.)

Spec: 000 §14 (burst window), §21 (consolidation, stale purge, tiers,
deliberation, batch processing), §24; acceptance COAL-10..13, COAL-20..25.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from attn.clock import Clock
from attn.config import AgentConfig
from attn.core.deliberation import DeliberationResult, Deliberator
from attn.core.heuristics import is_user_interaction
from attn.core.mailbox import Mailbox
from attn.core.mailbox.merge import has_room
from attn.core.registry import TypeRegistry
from attn.core.stimuli import every_type
from attn.models import DecisionType, ItemStatus, MailboxItem
from attn.store.base import WriteOp

log = logging.getLogger("attn.triage")
#: Seconds between two stale-item scans of one mailbox.
STALE_SCAN_INTERVAL_S = 60.0


@dataclass(slots=True)
class Selection:
    """The item to process now, how it was chosen, and its batch siblings."""

    item: MailboxItem
    decision: DecisionType
    reasoning: str
    tier: int
    siblings: list[MailboxItem] = field(default_factory=list)
    batch_context: str | None = None
    result: DeliberationResult | None = None


class Triage:
    """Runs steps 1–3 above for one agent's attention loop."""

    def __init__(
        self,
        mailbox: Mailbox,
        registry: TypeRegistry,
        clock: Clock,
        config: AgentConfig,
        deliberator: Deliberator | None = None,
    ) -> None:
        self.mailbox = mailbox
        self.registry = registry
        self.clock = clock
        self.config = config
        self.deliberator = deliberator
        #: Called with every applied DeliberationResult (see :meth:`subscribe`).
        self._listeners: list[Callable[[DeliberationResult], None]] = []
        #: The last applied deliberation and when (clock time), for the mind view.
        self.last: tuple[DeliberationResult, datetime] | None = None
        self._wake: asyncio.Future[None] | None = None
        self._deliberation: asyncio.Task[DeliberationResult | None] | None = None
        self._aborted = False
        self._last_scan = float("-inf")

    def subscribe(self, listener: Callable[[DeliberationResult], None]) -> Callable[[], None]:
        """Call ``listener`` with every deliberation result triage applies (000 §21).

        Working memory and the server's ``triage`` event listen here.

        Args:
            listener: called synchronously, in the attention loop, after the
                result chose the next item; it must not raise.

        Returns:
            A function that unsubscribes ``listener`` (idempotent).
        """
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def on_arrival(self, item: MailboxItem) -> None:
        """A new item arrived: a person cuts the burst window short and aborts deliberation."""
        if not is_user_interaction(item, self.registry):
            return
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)
        if self._deliberation is not None and not self._deliberation.done():
            self._aborted = True
            self._deliberation.cancel()

    async def select(
        self, head: MailboxItem, ops: list[WriteOp], *, chosen: bool = False
    ) -> Selection | None:
        """Choose what to process now; ``head`` was just taken from the mailbox.

        Appends the write ops of everything it changed (drops, merges, defers)
        to ``ops``. Returns None when the choice must be made again (the head
        went back to the queue, e.g. a person's chat arrived meanwhile).
        ``chosen`` marks a head the loop took out of priority order (the item
        that preempted the work just paused): upkeep keeps it as the head.
        """
        mailbox = self.mailbox
        if not mailbox.depth:
            return Selection(head, DecisionType.PICK, "Idle — picked from queue (tier 0)", 0)
        if await self._burst_wait(head):
            return None
        if self._purge_due() or mailbox.queue.has_entities:
            # Upkeep sees the head too (it may survive a consolidation), then
            # the head is chosen again. With nothing to purge and no task or
            # requirement items queued, upkeep would change nothing: skipped.
            mailbox.queue.push(head)
            ops += self._purge_stale()
            ops += self._consolidate()
            again = (mailbox.queue.take(head.id) if chosen else None) or mailbox.queue.pop_nowait()
            if again is None:
                return None
            head = again
        if is_user_interaction(head, self.registry):  # people first: no deliberation (000 §24)
            return Selection(head, DecisionType.PICK, "A person is waiting: picked first", 0)
        nxt = mailbox.queue.peek()
        if nxt is None or (mailbox.depth == 1 and nxt.priority > head.priority):
            return Selection(
                head, DecisionType.PICK, "Picked from queue (tier 0: clear priority)", 0
            )
        if self.deliberator is None:
            return Selection(
                head,
                DecisionType.PICK,
                f"Picked by priority from {mailbox.depth + 1} queued items",
                0,
            )
        return await self._deliberate(head, ops)

    # ----------------------------------------------------------------- window

    async def _burst_wait(self, head: MailboxItem) -> bool:
        """Wait for the rest of a burst; True when the head went back to the queue."""
        window_s = self.config.coalesce_window_ms / 1000
        if not window_s or is_user_interaction(head, self.registry):
            return False
        if not self.mailbox.queue.has_merge_key(head):
            return False
        remaining_s = self.mailbox.last_arrival_at + window_s - self.clock.monotonic()
        if remaining_s <= 0:
            return False
        self.mailbox.queue.push(head)
        loop = asyncio.get_running_loop()
        wake: asyncio.Future[None] = loop.create_future()
        self._wake = wake

        def expire() -> None:
            if not wake.done():
                wake.set_result(None)

        timer = self.clock.call_later(remaining_s, expire)
        try:
            await wake
        finally:
            timer.cancel()
            self._wake = None
        # The head waited once; mark the window spent so a chatty channel
        # cannot hold it back for ever.
        self.mailbox.forget_arrivals()
        return True

    # ----------------------------------------------------------------- upkeep

    def _purge_due(self) -> bool:
        return self.clock.monotonic() - self._last_scan >= STALE_SCAN_INTERVAL_S

    def _purge_stale(self) -> list[WriteOp]:
        if not self._purge_due():
            return []
        self._last_scan = self.clock.monotonic()
        now = self.clock.now()
        limit_s = self.config.stale_after_s
        ops: list[WriteOp] = []
        for item in self.mailbox.queued_items():
            # Every stimulus merged into it must be informational too: a status
            # update that absorbed a comment is never aged out (COAL-13, CORE-70).
            if item.triggers_execution or not every_type(
                item, self.registry, lambda spec: spec.informational
            ):
                continue
            age_s = (now - item.queued_at).total_seconds()
            if age_s > limit_s:
                reason = f"stale: informational item queued {age_s:.0f} s (limit {limit_s:.0f} s)"
                ops += self.mailbox.transitions.drop_ops(item, reason)
                ops.append(self.mailbox.transitions.decision_op(item, DecisionType.DROP, reason))
        return ops

    def _consolidate(self) -> list[WriteOp]:
        if not self.config.consolidate:
            return []
        ops: list[WriteOp] = []
        for group in self.mailbox.queue.entity_groups():
            survivor, *rest = group
            for item in sorted(rest, key=lambda i: i.seq):
                if not has_room(survivor, item.payload, self.config):
                    survivor = item  # full: this one gathers the entity's later items
                    continue
                ops += self.mailbox.transitions.merge_ops(item, survivor, labelled=True)
                ops.append(
                    self.mailbox.transitions.decision_op(
                        item,
                        DecisionType.MERGE,
                        f"consolidated into {survivor.id}: same entity before triage",
                    )
                )
        return ops

    # ------------------------------------------------------------ deliberation

    async def _deliberate(self, head: MailboxItem, ops: list[WriteOp]) -> Selection | None:
        assert self.deliberator is not None
        queued = self.mailbox.queued_items()
        context: dict[str, Any] = {
            "queueDepth": len(queued) + 1,
            "queuedTypes": self.mailbox.queued_types(),
        }
        self._aborted = False
        task = asyncio.get_running_loop().create_task(
            self.deliberator.deliberate(head, queued, context),
            name=f"attn:{self.mailbox.agent_id}:deliberation",
        )
        self._deliberation = task
        result: DeliberationResult | None = None
        try:
            result = await asyncio.shield(task)
        except asyncio.CancelledError:
            if not self._aborted:
                task.cancel()
                raise
        except Exception:
            log.exception("deliberation of %s failed; processing the head", self.mailbox.agent_id)
        finally:
            self._deliberation = None
        if self._aborted:
            self.mailbox.queue.push(head)  # a person's chat arrived: the result is discarded
            return None
        if not isinstance(result, DeliberationResult):
            if result is not None:
                log.error("deliberation returned %r, not a DeliberationResult", type(result))
            return Selection(
                head, DecisionType.PICK, "Deliberation gave no usable result; picked by priority", 2
            )
        return self._apply(head, result, ops)

    def _protected(self, item: MailboxItem) -> bool:
        spec = self.registry.get(item.source_type)
        return (
            (spec is not None and spec.protected)
            or item.triggers_execution
            or (item.source_type == "mention")
        )

    def _apply(
        self, head: MailboxItem, result: DeliberationResult, ops: list[WriteOp]
    ) -> Selection:
        mailbox = self.mailbox
        chosen_id = result.process_item_id
        queued = {i.id: i for i in mailbox.queued_items()}
        if chosen_id != head.id and chosen_id not in queued:
            log.warning(
                "deliberation of %s chose %r, which is not queued; processing the head",
                mailbox.agent_id,
                chosen_id,
            )
            return Selection(
                head,
                DecisionType.PICK,
                f"Deliberation chose {chosen_id!r}, not queued; picked by priority",
                2,
            )
        everyone = {head.id: head, **queued}
        busy = {chosen_id, *(result.process_item_ids or ())}
        for item_ids, action in (
            (result.inline_completed_ids, "complete"),
            (result.defer_item_ids, "defer"),
            (result.drop_item_ids, "drop"),
        ):
            for item_id in item_ids:
                item = everyone.get(item_id)
                if item is None or item_id in busy or item.status != ItemStatus.QUEUED:
                    continue
                if self._protected(item):
                    log.info("deliberation may not %s protected item %s", action, item_id)
                    continue
                if item is head:
                    head = None  # type: ignore[assignment]
                else:
                    mailbox.queue.take(item_id)
                reason = f"deliberation: {result.reasoning}".strip()
                if action == "complete":
                    ops += mailbox.transitions.complete_ops(
                        item, "handled inline during deliberation"
                    )
                    ops.append(mailbox.transitions.decision_op(item, DecisionType.COMPLETE, reason))
                elif action == "defer":
                    ops += mailbox.transitions.defer_ops(item, None, reason)
                    ops.append(mailbox.transitions.decision_op(item, DecisionType.DEFER, reason))
                else:
                    ops += mailbox.transitions.drop_ops(item, reason)
                    ops.append(mailbox.transitions.decision_op(item, DecisionType.DROP, reason))
        if chosen_id == (head.id if head is not None else None):
            chosen = head
        else:
            if head is not None:
                mailbox.queue.push(head)
            chosen = mailbox.queue.take(chosen_id)  # type: ignore[assignment]
        siblings: list[MailboxItem] = []
        for item_id in result.process_item_ids or ():
            if item_id != chosen.id:
                sibling = mailbox.queue.take(item_id)
                if sibling is not None:
                    siblings.append(sibling)
        self.last = (result, self.clock.now())
        for listener in tuple(self._listeners):
            listener(result)
        return Selection(
            chosen,
            DecisionType.TRIAGE,
            result.reasoning or "chosen by deliberation",
            2,
            siblings,
            result.batch_context,
            result,
        )
