"""Delegations: a task handed to another agent, answered by its reply.

Spec: 000 §11.2 (``agent_delegate_task``: a delegation record, transport on
the pair's DM channel); acceptance A2A-03.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn.channels.receipts import SendReceipt
from attn.channels.sending import (
    SendOptions,
    check,
    check_message_text,
    conversation_of,
    hosted,
    send,
    sender_of,
)
from attn.errors import SendRefused
from attn.ids import new_id
from attn.models import Delegation, MessageKind, SenderKind
from attn.store.base import PutDelegation

if TYPE_CHECKING:
    from attn.channels.service import Channels


async def delegate(
    channels: Channels, delegator: str, to: object, goal: object, options: SendOptions
) -> SendReceipt:
    """A delegation record plus its awaited message on the pair's DM channel."""
    sender_of(channels.host, delegator)
    delegate_to = hosted(channels.host, to).name
    if delegate_to == delegator:
        raise SendRefused(f"{delegator!r} cannot delegate to itself", "sent to oneself")
    text = check_message_text(goal)
    conversation = conversation_of(options.conversation_id)
    sent = SendOptions(
        conversation_id=conversation,
        await_reply=True,
        timeout_s=options.timeout_s,
        origin_session_id=options.origin_session_id,
        kind=MessageKind.DELEGATION,
        message_id=new_id("chm"),
    )
    checked = check(sent, SenderKind.AGENT)  # before the record and the channel are stored
    channel = await channels.ensure_dm(delegator, delegate_to)
    message_id = sent.message_id or ""
    record = Delegation(
        id=new_id("dlg"),
        delegator=delegator,
        delegate=delegate_to,
        goal=text,
        channel_key=channel.key,
        conversation_id=conversation,
        message_id=message_id,
        created_at=channels.clock.now(),
    )
    # Stored first, so even an answer that comes at once finds it.
    await channels.store.write([PutDelegation(record)])
    receipt = await send(channels, channel, delegator, SenderKind.AGENT, text, sent, checked)
    channels.emit_delegation(record)
    return SendReceipt(receipt.message, receipt.deliveries, receipt.callback_id, record)


__all__ = ["delegate"]
