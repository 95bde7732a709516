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
from attn.channels.delivery import deliver
from attn.channels.hosting import ChannelAgent, ChannelHost
from attn.channels.receipts import SendReceipt, refused
from attn.errors import ChannelMessageNotFound, InvalidInput, NotAMember, SendRefused, shown
from attn.ids import new_id
from attn.limits import MAX_ID_CHARS, check_id, check_optional_text, check_seconds, check_text
from attn.models import (
    MAX_CHANNEL_TEXT_CHARS,
    Channel,
    ChannelKind,
    ChannelMessage,
    Delegation,
    DelegationStatus,
    Delivery,
    DeliveryOutcome,
    MessageKind,
    SenderKind,
)
from attn.store.base import InsertChannelMessage, PutDelegation

if TYPE_CHECKING:
    from attn.channels.service import Channels

#: Most characters of a status broadcast.
MAX_STATUS_CHARS = 4_000
#: Most recipients one status broadcast names.
MAX_STATUS_RECIPIENTS = 500


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
    return check_text(text, "text", max_len=MAX_CHANNEL_TEXT_CHARS)


async def send_direct(
    channels: Channels, sender: str, to: object, text: object, options: SendOptions
) -> SendReceipt:
    """A DM from agent ``sender`` to agent ``to`` (``agent_send_message``)."""
    hosted(channels.host, sender)
    recipient = hosted(channels.host, to).name
    if recipient == sender:
        raise SendRefused(f"{sender!r} cannot send a message to itself", "sent to oneself")
    check_message_text(text)
    channel = await channels.ensure_dm(sender, recipient)
    return await _send(channels, channel, sender, SenderKind.AGENT, text, options)


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
    return await _send(channels, channel, name, kind, text, options)


async def _send(
    channels: Channels,
    channel: Channel,
    sender: str,
    sender_kind: SenderKind,
    text: object,
    options: SendOptions,
) -> SendReceipt:
    body = check_message_text(text)
    recipients, mentions = _recipients(channels, channel, sender, body, options)
    conversation = _conversation(options.conversation_id)
    awaited = _flag(options.await_reply, "await_reply")
    if awaited and sender_kind != SenderKind.AGENT:
        raise InvalidInput("only an agent can await a reply (await_reply)")
    timeout = None if options.timeout_s is None else check_seconds(options.timeout_s, "timeout_s")
    origin = check_optional_text(
        options.origin_session_id, "origin_session_id", max_len=MAX_ID_CHARS
    )
    key = check_optional_text(options.idempotency_key, "idempotency_key", max_len=MAX_ID_CHARS)
    question = await _question(
        channels, sender, options.conversation_id, conversation, options.reply_to
    )
    reply_to = question.id if question is not None else None
    expects = _expects(options, sender_kind, awaited)
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
        [(stored, created)] = await channels.store.write([InsertChannelMessage(message)])
    except BaseException:
        if callback_id is not None:
            await channels.time.cancel_callback(sender, callback_id)
        raise
    if not created:
        if callback_id is not None:
            await channels.time.cancel_callback(sender, callback_id)
        if stored.pending:
            stored = replace(stored, deliveries=await deliver(channels, stored))
        return SendReceipt(stored, stored.deliveries, stored.callback_id, duplicate=True)
    if sender_kind == SenderKind.AGENT:
        channels.posted[sender] = channels.posted.get(sender, 0) + 1
    if question is not None and question.kind == MessageKind.DELEGATION:
        await _answered(channels, question, stored)
    deliveries = await deliver(channels, stored)
    return SendReceipt(_with(stored, deliveries), deliveries, callback_id, duplicate=False)


def _with(message: ChannelMessage, deliveries: tuple[Delivery, ...]) -> ChannelMessage:
    return replace(message, deliveries=deliveries)


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


def _conversation(value: object) -> str:
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


async def broadcast_status(
    channels: Channels, sender: str, text: object, to: object
) -> SendReceipt:
    """Status lines in colleagues' activity logs: no channel, no turn (000 §11.2)."""
    hosted(channels.host, sender)
    if isinstance(text, str) and not text.strip():
        raise SendRefused("the status text is empty", "empty text")
    body = check_text(text, "text", max_len=MAX_STATUS_CHARS)
    if to is None:
        names = [a.name for a in channels.host.agents if a.name != sender]
    elif isinstance(to, list | tuple) and 0 < len(to) <= MAX_STATUS_RECIPIENTS:
        names = [check_id(n, "to[]", max_len=64) for n in to]
    else:
        raise InvalidInput(f"to must be a list of 1..{MAX_STATUS_RECIPIENTS} agent names")
    deliveries = []
    for name in dict.fromkeys(names):
        agent = channels.host.find_agent(name)
        if agent is None or name == sender:
            why = "sent to oneself" if name == sender else "unknown recipient"
            deliveries.append(refused(name, why))
            continue
        activity = await agent.log_status(sender, body)
        deliveries.append(Delivery(name, DeliveryOutcome.LOGGED, None, activity))
    if deliveries and all(d.outcome == DeliveryOutcome.REFUSED for d in deliveries):
        raise SendRefused(
            "no recipient of the status exists: "
            + "; ".join(f"{d.recipient}: {d.reason}" for d in deliveries[:10]),
            "unknown recipient",
        )
    return SendReceipt(None, tuple(deliveries))


async def delegate(
    channels: Channels, delegator: str, to: object, goal: object, options: SendOptions
) -> SendReceipt:
    """A delegation record plus its awaited message on the pair's DM channel."""
    hosted(channels.host, delegator)
    delegate_to = hosted(channels.host, to).name
    if delegate_to == delegator:
        raise SendRefused(f"{delegator!r} cannot delegate to itself", "sent to oneself")
    text = check_message_text(goal)
    channel = await channels.ensure_dm(delegator, delegate_to)
    conversation = _conversation(options.conversation_id)
    message_id = new_id("chm")
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
    sent = SendOptions(
        conversation_id=conversation,
        await_reply=True,
        timeout_s=options.timeout_s,
        origin_session_id=options.origin_session_id,
        kind=MessageKind.DELEGATION,
        message_id=message_id,
    )
    receipt = await _send(channels, channel, delegator, SenderKind.AGENT, text, sent)
    channels.emit_delegation(record)
    return SendReceipt(receipt.message, receipt.deliveries, receipt.callback_id, record)


__all__ = [
    "MAX_STATUS_CHARS",
    "SendOptions",
    "broadcast_status",
    "check_message_text",
    "delegate",
    "hosted",
    "post",
    "send_direct",
    "stored_message",
]
