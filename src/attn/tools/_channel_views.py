"""What the channel tools answer a model: receipts, channels and messages, trimmed.

A model acts on who got a message and how (each recipient's outcome and
reason, ``partial``), and on the keys it needs for the next call (channel key,
conversation id); the stored records carry more (item ids, idempotency keys,
every delivery's item), which stays out of its context.

Spec: 000 §11.2; acceptance A2A-04, A2A-06.
"""

from __future__ import annotations

from attn.channels import SendReceipt
from attn.models import Channel, ChannelMessage
from attn.types import JSON

#: Characters of one recalled message's text shown; the rest is cut.
RECALL_TEXT_CHARS = 2_000
#: Members shown per listed channel.
MAX_LISTED_MEMBERS = 50


def receipt_view(receipt: SendReceipt) -> JSON:
    """A send's receipt as the model sees it (see the module docstring)."""
    view: JSON = {}
    message = receipt.message
    if message is not None:
        view["channelKey"] = message.channel_key
        view["conversationId"] = message.conversation_id
        view["messageId"] = message.id
    view["deliveries"] = [
        {"recipient": d.recipient, "outcome": str(d.outcome), "reason": d.reason}
        for d in receipt.deliveries
    ]
    view["partial"] = receipt.partial
    view["refused"] = receipt.refused
    if receipt.callback_id is not None:
        view["awaitingReply"] = True
        view["callbackId"] = receipt.callback_id
    if receipt.delegation is not None:
        view["delegationId"] = receipt.delegation.id
    return view


def channel_view(channel: Channel) -> JSON:
    """A channel as the model sees it: its first 50 members and their count."""
    return {
        "channelKey": channel.key,
        "name": channel.name,
        "kind": str(channel.kind),
        "members": list(channel.members[:MAX_LISTED_MEMBERS]),
        "memberCount": len(channel.members),
    }


def message_view(message: ChannelMessage) -> JSON:
    """A recalled message, its text cut to 2,000 characters."""
    view: JSON = {
        "seq": message.seq,
        "senderId": message.sender_id,
        "text": message.text[:RECALL_TEXT_CHARS],
        "conversationId": message.conversation_id,
        "replyTo": message.reply_to,
        "createdAt": message.created_at.isoformat(),
    }
    if len(message.text) > RECALL_TEXT_CHARS:
        view["truncated"] = True
        view["textChars"] = len(message.text)
    return view


__all__ = [
    "MAX_LISTED_MEMBERS",
    "RECALL_TEXT_CHARS",
    "channel_view",
    "message_view",
    "receipt_view",
]
