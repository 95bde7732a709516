"""Handing a stored channel message to its recipients' mailboxes, once each.

Each pending recipient gets the message as an ``a2a_message`` carrying the
channel key, in the stable session of that channel and agent, under the
idempotency key ``chm:<message id>``: delivering again after a crash (restart
recovery) stores nothing new. A message that answers a question its recipient
waits for (an ``a2a_reply`` callback, 000 §11.3) is handed to that callback
instead, and comes back as a ``callback_result`` in the session that asked; an
answer after its waiter timed out comes as a late reply, and never resolves a
question asked after the one it answers (A2A-07, R19).

Spec: 000 §11.1 (enqueue as a2a_message), §11.3 (a2a_reply), §14 (channel
key coalescing); acceptance A2A-01, A2A-03, A2A-06, A2A-07.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from attn.channels import keys
from attn.channels.receipts import foresee, refused, settle
from attn.errors import InvalidInput, MailboxFull, StoreError
from attn.models import (
    CallbackStatus,
    CallbackType,
    ChannelMessage,
    Delivery,
    DeliveryOutcome,
    MessageKind,
    PendingCallback,
    SenderKind,
)
from attn.types import JSON

if TYPE_CHECKING:
    from attn.channels.service import Channels

log = logging.getLogger(__name__)

#: Longest summary line of a delivered message.
_SUMMARY_CHARS = 120


def item_extra(message: ChannelMessage) -> JSON:
    """The ``payload.extra`` of the a2a_message a message becomes."""
    return {
        "channelKey": message.channel_key,
        "conversationId": message.conversation_id,
        "messageId": message.id,
        "expectsReply": message.expects_reply,
        "replyTo": message.reply_to,
        "mentions": list(message.mentions),
        "kind": str(message.kind),
    }


def item_text(message: ChannelMessage) -> str:
    """The text a recipient reads: tagged with its conversation (000 §11.5)."""
    tag = f"[conversation:{message.conversation_id}]"
    if message.kind == MessageKind.DELEGATION:
        return f"{tag} Task delegated to you by {message.sender_id}: {message.text}"
    return f"{tag} {message.text}"


def _summary(message: ChannelMessage) -> str:
    first = message.text.strip().splitlines()[0] if message.text.strip() else ""
    line = f"{message.sender_id} on {message.channel_key}: {first}"
    return line if len(line) <= _SUMMARY_CHARS else line[: _SUMMARY_CHARS - 1] + "…"


async def deliver(
    channels: Channels, message: ChannelMessage, only: str | None = None
) -> tuple[Delivery, ...]:
    """Deliver ``message`` to every recipient still pending (or to ``only``), in the
    channel's order (:func:`hand_over`), and store what each delivery became
    (``SetDeliveries``) before returning all deliveries."""
    async with channels.ordered(message.channel_key):
        deliveries = await hand_over(channels, message, only)
    await channels.store_deliveries(message, deliveries)
    return deliveries


async def hand_over(
    channels: Channels, message: ChannelMessage, only: str | None = None
) -> tuple[Delivery, ...]:
    """Hand ``message`` to each pending recipient's mailbox (or only to ``only``).

    The caller holds the channel's order lock (:meth:`Channels.ordered`), so
    one channel's messages reach every mailbox in the order they were stored.
    A recipient no longer hosted is refused ("recipient removed"); a full
    mailbox is refused ("mailbox full"). Nothing is stored here.
    """

    async def one(delivery: Delivery) -> Delivery:
        if delivery.outcome != DeliveryOutcome.PENDING or only not in (None, delivery.recipient):
            return delivery
        return await _deliver_one(channels, message, delivery.recipient)

    # Side by side: a group's enqueues share the store's group commit.
    return tuple(await asyncio.gather(*(one(d) for d in message.deliveries)))


async def redeliver(channels: Channels, agent_id: str) -> int:
    """Deliver every message still pending for ``agent_id``; return how many.

    An awaited reply the agent registered for a message a crash kept from being
    stored (the callback is registered first) is cancelled: no answer can come.
    """
    for callback in await channels.store.find_callbacks(agent_id, [str(CallbackType.A2A_REPLY)]):
        asked = callback.data.get("requestMessageId")
        if callback.status != CallbackStatus.PENDING or not isinstance(asked, str):
            continue
        if await channels.store.get_channel_message(asked) is None:
            await channels.time.cancel_callback(agent_id, callback.id)
    count = 0
    for message in await channels.store.find_undelivered_messages():
        if any(
            d.recipient == agent_id and d.outcome == DeliveryOutcome.PENDING
            for d in message.deliveries
        ):
            await deliver(channels, message, only=agent_id)
            count += 1
    return count


async def _deliver_one(channels: Channels, message: ChannelMessage, recipient: str) -> Delivery:
    agent = channels.host.find_agent(recipient)
    if agent is None:
        return refused(recipient, "recipient removed")
    foreseen = foresee(agent, message.channel_key)
    try:
        answered = await _to_waiters(channels, message, recipient)
        if answered is not None:
            outcome, reason = foreseen
            if outcome == DeliveryOutcome.STEERED:  # it resumes the asking session
                outcome, reason = DeliveryOutcome.QUEUED, "awaited reply: resumes its session"
            return Delivery(recipient, outcome, reason, answered or None)
        enqueued = await agent.enqueue_result(
            "a2a_message",
            {
                "content": item_text(message),
                "summary": _summary(message),
                "extra": item_extra(message),
            },
            None,
            _metadata(message, recipient),
            f"chm:{message.id}",
        )
    except MailboxFull:
        return refused(recipient, "mailbox full")
    except InvalidInput as error:
        return refused(recipient, f"refused by the mailbox: {error}")
    except StoreError:
        log.exception("delivering %s to %s failed; it stays pending", message.id, recipient)
        return Delivery(recipient, DeliveryOutcome.PENDING)
    return settle(recipient, foreseen, enqueued)


def _metadata(message: ChannelMessage, recipient: str) -> JSON:
    return {
        "senderId": message.sender_id,
        "senderName": message.sender_id,
        "senderRole": "agent" if message.sender_kind == SenderKind.AGENT else "user",
        "sessionId": keys.session_id(message.channel_key, recipient),
    }


async def _to_waiters(channels: Channels, message: ChannelMessage, recipient: str) -> str | None:
    """Hand ``message`` to the recipient's awaited replies it answers; the first item id.

    A waiter is answered when it waits on the message's conversation and was
    registered for a question no newer than the one ``message`` answers. The
    question's own waiter gets a late reply when it is gone (timed out).
    Returns None when ``message`` answers nothing the recipient waits for, and
    ``""`` when the answer is handed over but its item waits (mailbox full).
    """
    if message.reply_to is None:
        return None
    store = channels.store
    question = await store.get_channel_message(message.reply_to)
    if question is None:
        return None
    waiting = [
        c
        for c in await store.find_callbacks(recipient, [str(CallbackType.A2A_REPLY)])
        if c.status == CallbackStatus.PENDING and c.correlation_id == message.conversation_id
    ]
    answered = [c for c in waiting if await _asked_by(channels, c, question.seq)]
    ids = [c.id for c in answered]
    late = (
        question.sender_id == recipient and question.callback_id and question.callback_id not in ids
    )
    if late and question.callback_id:
        # Delivered already (before a restart) when its result item names this message.
        done = await store.get_item_by_key(recipient, f"cb:{question.callback_id}")
        if done is not None and done.extra("messageId") == message.id:
            return done.id
        ids.append(question.callback_id)  # its waiter timed out or was answered: late
    if not ids:
        return None
    data: dict[str, Any] = {
        "channelKey": message.channel_key,
        "conversationId": message.conversation_id,
        "messageId": message.id,
        "replyTo": message.reply_to,
    }
    first = ""
    for callback_id in ids:
        item_id = await channels.time.deliver_reply(
            recipient,
            callback_id,
            message.text,
            sender_id=message.sender_id,
            data=data,
            late_key=f"chm:{message.id}:{callback_id}",
        )
        first = first or item_id or ""
    return first


async def _asked_by(channels: Channels, callback: PendingCallback, seq: int) -> bool:
    asked = callback.data.get("requestMessageId")
    if not isinstance(asked, str):
        return True  # registered by hand (Timekeeper.await_reply): any answer of its conversation
    request = await channels.store.get_channel_message(asked)
    return request is not None and request.seq <= seq


__all__ = ["deliver", "hand_over", "item_extra", "item_text", "redeliver"]
