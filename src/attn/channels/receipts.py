"""Delivery receipts: what every send answers, and how one delivery's outcome is told.

A send answers a :class:`SendReceipt`: the stored message (its channel key and
conversation id), and one :class:`~attn.models.Delivery` per recipient saying
what the message became there (A2A-06). :func:`foresee` reads the recipient's
state just before its mailbox gets the message; :func:`settle` corrects it by
what the enqueue answered (a merge into a waiting or running item).

Spec: acceptance A2A-04 (partial is not success), A2A-06 (outcomes).
"""

from __future__ import annotations

from dataclasses import dataclass

from attn.brains.external import desk_of
from attn.channels.hosting import ChannelAgent
from attn.core.mailbox import Enqueued
from attn.models import (
    AttentionState,
    ChannelMessage,
    Delegation,
    Delivery,
    DeliveryOutcome,
    ItemStatus,
)
from attn.types import JSON


@dataclass(frozen=True, slots=True)
class SendReceipt:
    """What one send did.

    Attributes:
        message: the stored message, with one delivery per recipient (for a
            status broadcast, which stores no message: None).
        deliveries: the deliveries (the message's, or the broadcast's).
        callback_id: the awaited-reply callback registered for it, or None.
        delegation: the delegation record of ``agent_delegate_task``, or None.
        duplicate: True when the idempotency key was used before: nothing new
            was stored and this is the first send's receipt.
    """

    message: ChannelMessage | None
    deliveries: tuple[Delivery, ...]
    callback_id: str | None = None
    delegation: Delegation | None = None
    duplicate: bool = False

    @property
    def partial(self) -> bool:
        """True when some recipients were refused and some were not (A2A-04)."""
        refused = sum(d.outcome == DeliveryOutcome.REFUSED for d in self.deliveries)
        return 0 < refused < len(self.deliveries)

    @property
    def refused(self) -> bool:
        """True when every recipient was refused."""
        return bool(self.deliveries) and all(
            d.outcome == DeliveryOutcome.REFUSED for d in self.deliveries
        )

    def to_dict(self) -> JSON:
        """The wire form (REST, CLI and tools answer the same)."""
        message = self.message
        return {
            "messageId": message.id if message is not None else None,
            "channelKey": message.channel_key if message is not None else None,
            "conversationId": message.conversation_id if message is not None else None,
            "deliveries": [d.to_dict() for d in self.deliveries],
            "partial": self.partial,
            "refused": self.refused,
            "duplicate": self.duplicate,
            "callbackId": self.callback_id,
            "delegation": self.delegation.to_dict() if self.delegation is not None else None,
            "message": message.to_dict() if message is not None else None,
        }


def foresee(agent: ChannelAgent, channel_key: str) -> tuple[DeliveryOutcome, str | None]:
    """What a message on ``channel_key`` will become at ``agent``, by its state now.

    Stopped or paused: queued. Working on the same channel: steered (handed to
    the running turn: absorbed at its next yield point, or, when the turn
    reaches none, taken right after it). Idle with an empty queue: started (an
    external agent only while its client waits in a claim).
    Otherwise queued behind what it is doing.
    """
    if not agent.running:
        return DeliveryOutcome.QUEUED, "stopped"
    if agent.paused:
        return DeliveryOutcome.QUEUED, "paused"
    focus = agent.focus_item
    if focus is not None:
        if focus.extra("channelKey") == channel_key:
            return DeliveryOutcome.STEERED, None
        return DeliveryOutcome.QUEUED, f"busy: working on {focus.source_type} {focus.id}"
    desk = desk_of(agent)
    if desk is not None and not desk.waiting:
        # An external agent starts work only when its client claims (issue 17).
        return DeliveryOutcome.QUEUED, "waiting for its client to claim it"
    if agent.state == AttentionState.IDLE and agent.depth == 0:
        return DeliveryOutcome.STARTED, None
    return DeliveryOutcome.QUEUED, f"busy: {agent.depth} item(s) ahead"


def settle(
    recipient: str, foreseen: tuple[DeliveryOutcome, str | None], enqueued: Enqueued
) -> Delivery:
    """The delivery, corrected by the enqueue's answer (a merge, a repeat)."""
    outcome, reason = foreseen
    item = enqueued.item
    if enqueued.merged:
        if item.status == ItemStatus.PROCESSING:
            outcome, reason = DeliveryOutcome.STEERED, None
        else:
            waiting = f"merged into waiting item {item.id} of this channel"
            why = reason if outcome == DeliveryOutcome.QUEUED and reason else None
            outcome = DeliveryOutcome.QUEUED
            reason = f"{waiting} ({why})" if why and not why.startswith("busy") else waiting
    elif enqueued.duplicate and item.status != ItemStatus.QUEUED:
        outcome, reason = DeliveryOutcome.QUEUED, f"delivered before: item is {item.status}"
    return Delivery(recipient, outcome, reason, item.id)


def refused(recipient: str, reason: str) -> Delivery:
    """A delivery that did not reach ``recipient``."""
    return Delivery(recipient, DeliveryOutcome.REFUSED, reason)


__all__ = ["SendReceipt", "foresee", "refused", "settle"]
