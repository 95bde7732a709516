"""Bodies of the channel routes, and the shapes they answer with.

Request models are strict and refuse unknown fields (like :mod:`attn.server.schemas`):
snake_case in Python, camelCase on the wire. Every number and list is bounded
here; texts are bounded here and checked by :class:`attn.channels.Channels`
(an empty text is a ``send_refused`` 422 with ``outcome`` and ``reason``, not
a validation error). The answer models only document the answers
(:func:`attn.server.schemas_views.answers`): the routes return the records'
own ``to_dict()`` forms.

Spec: 000 §11.1, §11.2, §25.2; acceptance A2A-01..08.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from attn.channels.sending import MAX_REPLY_TIMEOUT_S
from attn.channels.status import MAX_STATUS_CHARS, MAX_STATUS_RECIPIENTS
from attn.limits import MAX_ID_CHARS
from attn.models import MAX_CHANNEL_MEMBERS, MAX_CHANNEL_NAME_CHARS, MAX_CHANNEL_TEXT_CHARS

#: Longest agent or person name in a body (the runtime's agent name rule).
MAX_NAME_CHARS = 64
#: Longest ``timeoutS`` of an awaited reply or a delegation, in seconds (the service's: a day).
MAX_AWAIT_S = MAX_REPLY_TIMEOUT_S

_Name = Field(min_length=1, max_length=MAX_NAME_CHARS)


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, alias_generator=to_camel)


class CreateChannelBody(_Body):
    """``POST /api/channels``: a custom group ``group:custom:<id>``.

    Attributes:
        name: what people see, 1..200 characters.
        members: 1..500 hosted agent names.
        created_by (``createdBy``): the person (or agent) creating it; default ``"user"``.
    """

    name: str = Field(max_length=MAX_CHANNEL_NAME_CHARS)
    members: list[str] = Field(min_length=1, max_length=MAX_CHANNEL_MEMBERS)
    created_by: str = Field(default="user", min_length=1, max_length=MAX_NAME_CHARS)


class PostMessageBody(_Body):
    """``POST /api/channels/{channelKey}/messages``: a message on a channel.

    Attributes:
        sender_id (``senderId``): who writes it; default ``"user"`` (a person).
        text: 1..100,000 characters; ``@name`` of a member narrows a group message.
        mentions: member names it addresses (default: the ``@name``s of the text).
        conversation_id (``conversationId``): continue this conversation (default: a new one).
        reply_to (``replyTo``): the id of the message it answers.
        sender_kind (``senderKind``): ``agent`` or ``person`` (default: agent when
            ``senderId`` names a hosted agent).
        idempotency_key (``idempotencyKey``): a repeat with the same key stores
            nothing and answers the first receipt (200, ``duplicate`` true).
    """

    sender_id: str = Field(default="user", min_length=1, max_length=MAX_NAME_CHARS)
    text: str = Field(max_length=MAX_CHANNEL_TEXT_CHARS)
    mentions: list[str] | None = Field(default=None, max_length=MAX_CHANNEL_MEMBERS)
    conversation_id: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    reply_to: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    sender_kind: str | None = Field(default=None, max_length=20)
    idempotency_key: str | None = Field(default=None, max_length=MAX_ID_CHARS)


class SendBody(_Body):
    """``POST /api/agents/{agentId}/send``: a DM to another agent (``agent_send_message``).

    Attributes:
        to: the recipient agent.
        text: 1..100,000 characters.
        conversation_id (``conversationId``): continue this conversation.
        reply_to (``replyTo``): the message it answers.
        await_reply (``awaitReply``): register an awaited reply (``a2a_reply``); the
            answer comes back as a ``callback_result`` in ``originSessionId``.
        timeout_s (``timeoutS``): seconds the reply is awaited (default 1,800).
        origin_session_id (``originSessionId``): the session the reply resumes
            (default: the DM channel's session of the sender).
        idempotency_key (``idempotencyKey``): as for a channel message.
    """

    to: str = _Name
    text: str = Field(max_length=MAX_CHANNEL_TEXT_CHARS)
    conversation_id: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    reply_to: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    await_reply: bool = False
    timeout_s: float | None = Field(default=None, gt=0, le=MAX_AWAIT_S, allow_inf_nan=False)
    origin_session_id: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    idempotency_key: str | None = Field(default=None, max_length=MAX_ID_CHARS)


class BroadcastBody(_Body):
    """``POST /api/agents/{agentId}/broadcast``: a status line in colleagues' activity logs.

    Attributes:
        text: 1..4,000 characters.
        to: 1..500 agent names (default: every other hosted agent).
    """

    text: str = Field(max_length=MAX_STATUS_CHARS)
    to: list[str] | None = Field(default=None, min_length=1, max_length=MAX_STATUS_RECIPIENTS)


class DelegateBody(_Body):
    """``POST /api/agents/{agentId}/delegations``: hand a task to another agent.

    Attributes:
        to: the delegate.
        goal: what is to be done, 1..100,000 characters.
        timeout_s (``timeoutS``): seconds the answer is awaited (default 1,800).
        conversation_id (``conversationId``): the conversation the answer comes in.
    """

    to: str = _Name
    goal: str = Field(max_length=MAX_CHANNEL_TEXT_CHARS)
    timeout_s: float | None = Field(default=None, gt=0, le=MAX_AWAIT_S, allow_inf_nan=False)
    conversation_id: str | None = Field(default=None, max_length=MAX_ID_CHARS)


# ------------------------------------------------------------------- answers


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class ChannelView(_Out):
    """A channel (:meth:`attn.models.Channel.to_dict`)."""

    key: str
    kind: str
    name: str
    members: list[str]
    createdAt: str
    createdBy: str | None


class ChannelListView(_Out):
    """``GET /api/channels``: channels ordered by key; ``count`` counts them all."""

    channels: list[ChannelView]
    count: int


class DeliveryView(_Out):
    """What became of a message at one recipient: ``started``, ``steered``,
    ``queued`` (with ``reason``), ``refused`` (with ``reason``), ``logged``
    (a status line: ``activityId``) or ``pending``."""

    recipient: str
    outcome: str
    reason: str | None
    mailboxItemId: str | None
    activityId: str | None


class ChannelMessageView(_Out):
    """One channel message with its deliveries (:meth:`attn.models.ChannelMessage.to_dict`)."""

    id: str
    channelKey: str
    seq: int
    senderId: str
    senderKind: str
    text: str
    conversationId: str
    mentions: list[str]
    replyTo: str | None
    expectsReply: bool
    kind: str
    deliveries: list[DeliveryView]
    callbackId: str | None
    createdAt: str


class HistoryPageView(_Out):
    """``GET /api/channels/{channelKey}/messages``: one page, oldest first; pass
    ``nextBefore`` as ``before`` for the page before it (null at the start)."""

    messages: list[ChannelMessageView]
    nextBefore: int | None


class DelegationView(_Out):
    """A delegation (:meth:`attn.models.Delegation.to_dict`)."""

    id: str
    delegator: str
    delegate: str
    goal: str
    channelKey: str
    conversationId: str
    messageId: str
    status: str
    answerMessageId: str | None
    createdAt: str
    answeredAt: str | None


class DelegationListView(_Out):
    """``GET /api/agents/{agentId}/delegations``: the newest ``limit``, oldest first;
    ``count`` counts them all."""

    delegations: list[DelegationView]
    count: int


class SendReceiptView(_Out):
    """What a send did (:meth:`attn.channels.SendReceipt.to_dict`): one delivery per
    recipient; ``partial`` when some were refused and some were not (A2A-04).
    A status broadcast stores no message: ``messageId`` and ``message`` are null."""

    messageId: str | None
    channelKey: str | None
    conversationId: str | None
    deliveries: list[DeliveryView]
    partial: bool
    refused: bool
    duplicate: bool
    callbackId: str | None
    delegation: DelegationView | None
    message: ChannelMessageView | None


def created(model: type[BaseModel], repeat: str | None = None) -> dict[str, Any]:
    """Route options for a 201 answer documented as ``model`` (and a 200 for a repeat).

    Args:
        model: the answer's shape.
        repeat: when set, a 200 with the same shape is documented with this description.
    """
    responses: dict[int | str, dict[str, Any]] = {201: {"model": model}}
    if repeat is not None:
        responses[200] = {"model": model, "description": repeat}
    return {"status_code": 201, "response_model": None, "responses": responses}


__all__ = [
    "MAX_AWAIT_S",
    "BroadcastBody",
    "ChannelListView",
    "ChannelMessageView",
    "ChannelView",
    "CreateChannelBody",
    "DelegateBody",
    "DelegationListView",
    "DelegationView",
    "DeliveryView",
    "HistoryPageView",
    "PostMessageBody",
    "SendBody",
    "SendReceiptView",
    "created",
]
