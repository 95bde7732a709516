"""One send on a channel: checked whole, stored, then delivered to each recipient.

Everything that can refuse a send is checked before anything is stored (an
unknown recipient, empty text, a channel the sender is not a member of:
CORE-61, A2A-06). The message is then stored with a pending delivery per
recipient, delivered, and its deliveries stored; a crash in between leaves
them pending, and restart recovery delivers them under the same idempotency
keys, so a message is never lost and never delivered twice.

Spec: 000 §11.1, §11.2, §11.5 (async only, ``[conversation:…]``), §25.2;
acceptance A2A-01..07.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from attn.channels import keys
from attn.channels.checks import clean_text
from attn.channels.delivery import deliver, hand_over
from attn.channels.hosting import ChannelAgent, ChannelHost
from attn.channels.receipts import SendReceipt, refused
from attn.errors import (
    ChannelMessageNotFound,
    IdempotencyConflict,
    InvalidInput,
    NotAMember,
    SendRefused,
    UnknownAgent,
    shown,
)
from attn.ids import new_id
from attn.limits import check_id, check_seconds
from attn.models import (
    MAX_CHANNEL_TEXT_CHARS,
    Channel,
    ChannelKind,
    ChannelMessage,
    DelegationStatus,
    Delivery,
    DeliveryOutcome,
    MessageKind,
    SenderKind,
)
from attn.store.base import InsertChannelMessage, PutDelegation

if TYPE_CHECKING:
    from attn.channels.service import Channels

#: Longest an awaited reply is waited for, in seconds (a day).
MAX_REPLY_TIMEOUT_S = 86_400.0


@dataclass(frozen=True, slots=True)
class SendOptions:
    """The options of one send (see :meth:`attn.channels.Channels.post`)."""

    conversation_id: object = None
    reply_to: object = None
    await_reply: object = False
    expects_reply: object = None
    timeout_s: object = None
    origin_session_id: object = None
    idempotency_key: object = None
    mentions: object = None
    sender_kind: object = None
    kind: MessageKind = MessageKind.MESSAGE
    to: tuple[str, ...] | None = None  # the recipients, when the caller chose them
    message_id: str | None = None  # chosen ahead (a delegation stores it first)


def sender_of(host: ChannelHost, name: object) -> ChannelAgent:
    """The hosted agent that sends.

    Raises:
        UnknownAgent: no hosted agent has that name (nothing is sent).
    """
    agent = host.find_agent(name) if isinstance(name, str) else None
    if agent is None:
        raise UnknownAgent(f"unknown sender {shown(name)}: no agent has that name")
    return agent


def hosted(host: ChannelHost, name: object) -> ChannelAgent:
    """The hosted agent called ``name``.

    Raises:
        SendRefused: no hosted agent has that name ("unknown recipient").
    """
    agent = host.find_agent(name) if isinstance(name, str) else None
    if agent is None:
        known = ", ".join(a.name for a in list(host.agents)[:20]) or "none"
        raise SendRefused(
            f"unknown recipient {shown(name)}: no agent has that name (agents: {known})",
            "unknown recipient",
        )
    return agent


def check_message_text(text: object) -> str:
    """The message text, or :class:`SendRefused` ("empty text")."""
    if isinstance(text, str) and not text.strip():
        raise SendRefused("the message text is empty", "empty text")
    return clean_text(text, "text", max_len=MAX_CHANNEL_TEXT_CHARS)


async def send_direct(
    channels: Channels, sender: str, to: object, text: object, options: SendOptions
) -> SendReceipt:
    """A DM from agent ``sender`` to agent ``to`` (``agent_send_message``)."""
    sender_of(channels.host, sender)
    recipient = hosted(channels.host, to).name
    if recipient == sender:
        raise SendRefused(f"{sender!r} cannot send a message to itself", "sent to oneself")
    check_message_text(text)
    checked = check(options, SenderKind.AGENT)
    channel = await channels.ensure_dm(sender, recipient)
    return await send(channels, channel, sender, SenderKind.AGENT, text, options, checked)


async def post(
    channels: Channels, channel_key: object, sender: object, text: object, options: SendOptions
) -> SendReceipt:
    """A message on any channel, from an agent or a person."""
    name = check_id(sender, "sender", max_len=64)
    kind = _sender_kind(channels.host, name, options.sender_kind)
    channel = await channels.get(channel_key)
    if kind == SenderKind.AGENT:
        channels.check_member(channel, name)
    check_message_text(text)
    checked = check(options, kind)
    return await send(channels, channel, name, kind, text, options, checked)


@dataclass(frozen=True, slots=True)
class Checked:
    """A send's options, checked before anything is stored."""

    conversation: str
    awaited: bool
    timeout_s: float | None
    origin: str | None
    key: str | None
    expects: bool


def check(options: SendOptions, sender_kind: SenderKind) -> Checked:
    awaited = _flag(options.await_reply, "await_reply")
    if awaited and sender_kind != SenderKind.AGENT:
        raise InvalidInput("only an agent can await a reply (await_reply)")
    timeout = None
    if options.timeout_s is not None:
        timeout = check_seconds(options.timeout_s, "timeout_s", max_s=MAX_REPLY_TIMEOUT_S)
        if timeout <= 0:
            raise InvalidInput(f"timeout_s must be positive seconds, got {options.timeout_s!r}")
    return Checked(
        conversation=conversation_of(options.conversation_id),
        awaited=awaited,
        timeout_s=timeout,
        origin=None
        if options.origin_session_id is None
        else check_id(options.origin_session_id, "origin_session_id"),
        key=None
        if options.idempotency_key is None
        else check_id(options.idempotency_key, "idempotency_key"),
        expects=_expects(options, sender_kind, awaited),
    )


async def send(
    channels: Channels,
    channel: Channel,
    sender: str,
    sender_kind: SenderKind,
    text: object,
    options: SendOptions,
    checked: Checked,
) -> SendReceipt:
    body = check_message_text(text)
    recipients, mentions = _recipients(channels, channel, sender, body, options)
    conversation, awaited, timeout = checked.conversation, checked.awaited, checked.timeout_s
    origin, key, expects = checked.origin, checked.key, checked.expects
    if options.reply_to is not None and options.conversation_id is None:
        # A reply without a conversation id continues the conversation it answers.
        conversation = (await stored_message(channels, options.reply_to)).conversation_id
    question = await _question(
        channels, sender, options.conversation_id, conversation, options.reply_to
    )
    if channel.kind == ChannelKind.DM:
        channel = await channels.ensure_dm(*channel.members)  # stored with its first message
    reply_to = question.id if question is not None else None
    message_id = options.message_id or new_id("chm")
    callback_id = None
    if awaited:  # registered first: an answer can never come before its waiter
        callback = await channels.time.await_reply(
            sender,
            conversation,
            origin_session_id=origin or keys.session_id(channel.key, sender),
            timeout_s=timeout,
            note=body[:200],
            data={"channelKey": channel.key, "requestMessageId": message_id},
        )
        callback_id = callback.id
    message = ChannelMessage(
        id=message_id,
        channel_key=channel.key,
        sender_id=sender,
        sender_kind=sender_kind,
        text=body,
        conversation_id=conversation,
        created_at=channels.clock.now(),
        mentions=mentions,
        reply_to=reply_to,
        expects_reply=expects,
        kind=options.kind,
        deliveries=tuple(recipients),
        idempotency_key=key,
        callback_id=callback_id,
    )
    try:
        # Stored and handed over under the channel's lock: its messages reach
        # every mailbox in the order of their seq.
        async with channels.ordered(channel.key):
            [(stored, created)] = await channels.store.write([InsertChannelMessage(message)])
            deliveries = await hand_over(channels, stored) if created else stored.deliveries
    except BaseException:
        if callback_id is not None:
            await channels.time.cancel_callback(sender, callback_id)
        raise
    if not created:
        if callback_id is not None:
            await channels.time.cancel_callback(sender, callback_id)
        if stored.channel_key != channel.key or stored.text != body:
            raise IdempotencyConflict(
                f"idempotency_key {key!r} was used by {sender!r} for message {stored.id} "
                f"on {stored.channel_key!r} with other text: nothing is sent"
            )
        if stored.pending:
            stored = replace(stored, deliveries=await deliver(channels, stored))
        return SendReceipt(stored, stored.deliveries, stored.callback_id, duplicate=True)
    if sender_kind == SenderKind.AGENT:
        channels.note_posted(sender, stored.conversation_id)
    if question is not None and question.kind == MessageKind.DELEGATION:
        await _answered(channels, question, stored)
    stored = await channels.store_deliveries(stored, deliveries)
    return SendReceipt(stored, deliveries, callback_id, duplicate=False)


def _recipients(
    channels: Channels, channel: Channel, sender: str, text: str, options: SendOptions
) -> tuple[list[Delivery], tuple[str, ...]]:
    """Pending deliveries for who the message reaches, and its mentions (A2A-02)."""
    if options.mentions is None:
        mentions = keys.mentions_in(text, channel.members)
    else:
        mentions = _mentions(channel, options.mentions)
    if options.to is not None:
        targets = list(options.to)
    elif channel.kind != ChannelKind.DM and mentions:
        targets = list(mentions)
    else:
        targets = list(channel.members)
    deliveries = []
    for name in targets:
        if name == sender:
            continue  # the sender never gets its own message back
        if channels.host.find_agent(name) is None:
            deliveries.append(refused(name, "recipient removed"))
        else:
            deliveries.append(Delivery(name, DeliveryOutcome.PENDING))
    if not deliveries and options.to is None:
        raise SendRefused(
            f"the message would reach nobody on {channel.key!r}: no member but the sender"
            + (f" among the mentioned ({', '.join(mentions)})" if mentions else ""),
            "no recipient",
        )
    return deliveries, mentions


def _mentions(channel: Channel, value: object) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or len(value) > len(channel.members):
        raise InvalidInput("mentions must be a list of the channel's member names")
    names: dict[str, None] = {}
    for name in value:
        if not isinstance(name, str) or name not in channel.members:
            raise NotAMember(f"mentions: {shown(name)} is not a member of {channel.key!r}")
        names.setdefault(name)
    return tuple(names)


def conversation_of(value: object) -> str:
    if value is None:
        return new_id("conv")
    return check_id(value, "conversation_id")


def _flag(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(f"{what} must be true or false, got {shown(value)}")
    return value


def _expects(options: SendOptions, sender_kind: SenderKind, awaited: bool) -> bool:
    """Whether the recipient's answer is posted back: a person's message, an
    awaited one, a delegation, or a sender that asks for it."""
    if options.expects_reply is not None:
        return _flag(options.expects_reply, "expects_reply")
    return awaited or sender_kind == SenderKind.PERSON or options.kind == MessageKind.DELEGATION


async def _question(
    channels: Channels, sender: str, given: object, conversation: str, value: object
) -> ChannelMessage | None:
    """The message this one answers: the one named, or else the newest message of the
    conversation that someone else wrote (None for a new conversation)."""
    if value is not None:
        question = await stored_message(channels, value)
        if question.conversation_id != conversation:
            raise InvalidInput(
                f"reply_to {question.id!r} belongs to conversation {question.conversation_id!r}, "
                f"not {conversation!r}"
            )
        return question
    if given is None:
        return None  # a new conversation answers nothing
    for message in reversed(await channels.store.find_conversation(conversation, limit=50)):
        if message.sender_id != sender:
            return message
    return None


async def _answered(channels: Channels, question: ChannelMessage, answer: ChannelMessage) -> None:
    """Mark the delegation ``question`` handed over as answered by its delegate's reply."""
    for record in await channels.store.find_delegations(
        answer.sender_id, conversation_id=question.conversation_id
    ):
        if record.message_id == question.id and record.status == DelegationStatus.OPEN:
            done = replace(
                record,
                status=DelegationStatus.ANSWERED,
                answer_message_id=answer.id,
                answered_at=answer.created_at,
            )
            await channels.store.write([PutDelegation(done)])
            channels.emit_delegation(done)


async def stored_message(channels: Channels, message_id: object) -> ChannelMessage:
    """The stored message with that id, or :class:`ChannelMessageNotFound`."""
    checked = check_id(message_id, "message_id")
    found = await channels.store.get_channel_message(checked)
    if found is None:
        raise ChannelMessageNotFound(f"no channel message has the id {checked!r}")
    return found


def _sender_kind(host: ChannelHost, sender: str, value: object) -> SenderKind:
    if value is None:
        return SenderKind.AGENT if host.find_agent(sender) is not None else SenderKind.PERSON
    try:
        kind = SenderKind(str(value))
    except ValueError:
        raise InvalidInput(f"sender_kind must be agent or person, got {shown(value)}") from None
    if kind == SenderKind.AGENT:
        hosted(host, sender)
    elif host.find_agent(sender) is not None:
        raise InvalidInput(f"{sender!r} is an agent's name: a person posts under another name")
    return kind


__all__ = [
    "MAX_REPLY_TIMEOUT_S",
    "SendOptions",
    "check",
    "check_message_text",
    "hosted",
    "post",
    "send_direct",
    "stored_message",
]
