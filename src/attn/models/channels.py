"""Channels between agents: the channels, their messages, delivery receipts, delegations.

A :class:`Channel` is a stored conversation space with member agents: one DM
channel per pair of agents (``dm:a2a:{smaller id}:{larger id}``), one per team
of ``attn.toml`` (``group:<team>``) and any number created by agents or people
(``group:custom:<id>``). A :class:`ChannelMessage` is one message on it, kept
in the channel's history with what became of it at each recipient (one
:class:`Delivery` per recipient). A :class:`Delegation` is a task one agent
handed to another, answered by the delegate's reply.

Spec: 000 §11.1 (DM channels), §11.2 (tools), §25.2–25.3 (group chats, A2A);
acceptance A2A-01..08.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from attn.models._wire import iso
from attn.types import JSON

#: Most characters of one channel message.
MAX_CHANNEL_TEXT_CHARS = 100_000
#: Most members of one channel.
MAX_CHANNEL_MEMBERS = 500
#: Most characters of a channel's display name.
MAX_CHANNEL_NAME_CHARS = 200
#: Most messages one history page answers.
MAX_HISTORY_PAGE = 500


class ChannelKind(StrEnum):
    """What a channel is: a pair's DM, a team of ``attn.toml``, or a custom group."""

    DM = "dm"
    TEAM = "team"
    CUSTOM = "custom"


class SenderKind(StrEnum):
    """Who wrote a channel message: an agent or a person."""

    AGENT = "agent"
    PERSON = "person"


class MessageKind(StrEnum):
    """A plain message, or the message that hands over a delegated task."""

    MESSAGE = "message"
    DELEGATION = "delegation"


class DeliveryOutcome(StrEnum):
    """What became of a message at one recipient (A2A-06).

    ``started``: it opened a turn of an idle recipient. ``steered``: it joins
    the recipient's running turn on the same channel at its next yield point.
    ``queued``: it waits in the mailbox (``reason``: busy, paused, stopped,
    merged into a waiting message). ``refused``: it did not reach the
    recipient (``reason``: recipient removed, mailbox full). ``logged``: a
    status broadcast written to the recipient's activity log, with no turn.
    ``pending``: stored but not yet handed to the mailbox; restart recovery
    delivers it (seen only after a crash, or while a send is in flight).
    """

    STARTED = "started"
    STEERED = "steered"
    QUEUED = "queued"
    REFUSED = "refused"
    LOGGED = "logged"
    PENDING = "pending"


@dataclass(frozen=True, slots=True)
class Delivery:
    """What became of one message at one recipient.

    Attributes:
        recipient: the recipient agent's id.
        outcome: see :class:`DeliveryOutcome`.
        reason: why it was queued or refused; None otherwise.
        item_id: the mailbox item the message became (the surviving item when
            it merged into one); for a ``logged`` status line, the activity it
            was written to; None when refused or still pending.
    """

    recipient: str
    outcome: DeliveryOutcome
    reason: str | None = None
    item_id: str | None = None

    def to_dict(self) -> JSON:
        """The wire form: ``item_id`` is ``activityId`` for a ``logged`` status line,
        ``mailboxItemId`` otherwise (the glossary's names; ``itemId`` is retired)."""
        logged = self.outcome == DeliveryOutcome.LOGGED
        return {
            "recipient": self.recipient,
            "outcome": str(self.outcome),
            "reason": self.reason,
            "mailboxItemId": None if logged else self.item_id,
            "activityId": self.item_id if logged else None,
        }


@dataclass(frozen=True, slots=True)
class Channel:
    """One channel and its member agents.

    Attributes:
        key: ``dm:a2a:{a}:{b}`` (ids sorted), ``group:<team>`` or ``group:custom:<id>``.
        kind: see :class:`ChannelKind`.
        name: what people see, at most :data:`MAX_CHANNEL_NAME_CHARS` characters.
        members: member agent ids, sorted; a message reaches members only.
        created_at: when it was first stored (UTC).
        created_by: the agent or person who created it; None for DM and team channels.
    """

    key: str
    kind: ChannelKind
    name: str
    members: tuple[str, ...]
    created_at: datetime
    created_by: str | None = None

    def to_dict(self) -> JSON:
        return {
            "key": self.key,
            "kind": str(self.kind),
            "name": self.name,
            "members": list(self.members),
            "createdAt": iso(self.created_at),
            "createdBy": self.created_by,
        }


@dataclass(frozen=True, slots=True)
class ChannelMessage:
    """One message on a channel, with its delivery at each recipient.

    Attributes:
        id: ``chm_…`` identifier.
        channel_key: the channel it was posted on.
        sender_id: the agent or person who wrote it.
        sender_kind: agent or person.
        text: the message, 1..:data:`MAX_CHANNEL_TEXT_CHARS` characters.
        conversation_id: ``conv_…``; messages of one exchange share it (000 §11.5).
        created_at: when it was stored (UTC).
        seq: commit order over all channels, assigned by the store; a channel's
            history is ordered by it and paged by it (``before``).
        mentions: the agent ids it was addressed to with ``@name``; on a group
            channel only they receive it.
        reply_to: the id of the message it answers, or None.
        expects_reply: True when the sender waits for an answer (an awaited
            send, a delegation): the recipient's reply to it is posted back.
        kind: a plain message or a delegation.
        deliveries: one :class:`Delivery` per recipient, in recipient order.
        idempotency_key: names the send for good: a repeat of a send with the
            same key by the same sender stores nothing and answers the first.
        callback_id: the awaited-reply callback (``a2a_reply``) the sender
            registered for this message, or None; the reply that answers this
            message is handed to it, on time or late.
    """

    id: str
    channel_key: str
    sender_id: str
    sender_kind: SenderKind
    text: str
    conversation_id: str
    created_at: datetime
    seq: int = 0
    mentions: tuple[str, ...] = ()
    reply_to: str | None = None
    expects_reply: bool = False
    kind: MessageKind = MessageKind.MESSAGE
    deliveries: tuple[Delivery, ...] = ()
    idempotency_key: str | None = None
    callback_id: str | None = None

    @property
    def pending(self) -> bool:
        """True while some recipient's delivery is still :attr:`DeliveryOutcome.PENDING`."""
        return any(d.outcome == DeliveryOutcome.PENDING for d in self.deliveries)

    def to_dict(self) -> JSON:
        return {
            "id": self.id,
            "channelKey": self.channel_key,
            "seq": self.seq,
            "senderId": self.sender_id,
            "senderKind": str(self.sender_kind),
            "text": self.text,
            "conversationId": self.conversation_id,
            "mentions": list(self.mentions),
            "replyTo": self.reply_to,
            "expectsReply": self.expects_reply,
            "kind": str(self.kind),
            "deliveries": [d.to_dict() for d in self.deliveries],
            "callbackId": self.callback_id,
            "createdAt": iso(self.created_at),
        }


class DelegationStatus(StrEnum):
    """``open`` until the delegate replies (``answered``)."""

    OPEN = "open"
    ANSWERED = "answered"


@dataclass(frozen=True, slots=True)
class Delegation:
    """A task one agent handed to another (``agent_delegate_task``, 000 §11.2).

    Attributes:
        id: ``dlg_…`` identifier.
        delegator: the agent that delegated.
        delegate: the agent that does the task.
        goal: what is to be done (the delegation message's text).
        channel_key: the DM channel of the pair.
        conversation_id: the conversation the answer comes in.
        message_id: the delegation message.
        created_at: when it was made (UTC).
        status: open or answered.
        answer_message_id: the delegate's reply, once answered.
        answered_at: when the reply came (UTC).
    """

    id: str
    delegator: str
    delegate: str
    goal: str
    channel_key: str
    conversation_id: str
    message_id: str
    created_at: datetime
    status: DelegationStatus = DelegationStatus.OPEN
    answer_message_id: str | None = None
    answered_at: datetime | None = None

    def to_dict(self) -> JSON:
        return {
            "id": self.id,
            "delegator": self.delegator,
            "delegate": self.delegate,
            "goal": self.goal,
            "channelKey": self.channel_key,
            "conversationId": self.conversation_id,
            "messageId": self.message_id,
            "status": str(self.status),
            "answerMessageId": self.answer_message_id,
            "createdAt": iso(self.created_at),
            "answeredAt": iso(self.answered_at),
        }
