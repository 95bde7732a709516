"""Preempted work: it waits until the item that preempted it has been picked.

000 §4: the agent switches to the new item. The preempted item is deferred,
due at once, but held back from resurfacing while its preempting item is still
queued; the preempting item is taken ahead of the queue's head unless the head
is more urgent than the work it preempted. Then the preempted work resurfaces
in its own place.

Spec: 000 §4 (preempt), §22 (resurface); acceptance CORE-72.
"""

from __future__ import annotations

from attn.core.attention.attempt import Attempt
from attn.core.attention.merging import queued_now
from attn.core.attention.state import ControllerState
from attn.core.focus import YieldAction
from attn.models import ItemStatus, MailboxItem


def note_preempted(s: ControllerState, attempt: Attempt) -> None:
    """Preempted work waits until its preempting item has been picked (000 §4:
    the agent switches to the new item); then it resurfaces in its own place."""
    final, stopper, item = attempt.final, attempt.stopper, attempt.item
    if (
        final is not None
        and final.action == YieldAction.PREEMPT
        and stopper is not None
        and item.status == ItemStatus.DEFERRED
    ):
        s.preempted_by[item.id] = (item, stopper)


def held_back(s: ControllerState) -> frozenset[str]:
    """Ids of preempted items whose preempting item is still queued."""
    held = s.preempted_by
    for item_id, (_, stopper) in list(held.items()):
        if not queued_now(s, stopper):
            del held[item_id]
    return frozenset(held)


def switch_target(s: ControllerState) -> MailboxItem | None:
    """The preempting item, taken ahead of the queue's head unless the head is
    more urgent than the work it preempted (which then would wait behind less)."""
    for preempted, stopper in s.preempted_by.values():
        if queued_now(s, stopper):
            head = s.mailbox.queue.peek()
            if head is None or head is stopper or head.priority >= preempted.priority:
                return s.mailbox.queue.take(stopper.id)
    return None
