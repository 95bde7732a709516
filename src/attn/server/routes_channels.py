"""Channels over HTTP: list, create and read channels, post on them, send between agents.

Mounted by :func:`attn.server.app.create_app` with :func:`channels_router`::

    GET  /api/channels                          channels ordered by key; ?member=, ?kind=,
                                                ?limit= (500, at most 1000)
    POST /api/channels                          {name, members, createdBy?} -> 201: a custom
                                                group group:custom:<id>
    GET  /api/channels/{channelKey}             one channel (keys hold ':', e.g. dm:a2a:a:b)
    GET  /api/channels/{channelKey}/messages    one history page, oldest first; ?before=
                                                (a seq), ?limit= (50, at most 500),
                                                ?conversationId=
    POST /api/channels/{channelKey}/messages    a person's (or an agent's) message -> 201
                                                receipt; a repeated idempotencyKey -> 200
    GET  /api/channel-messages/{messageId}      one message with its deliveries
    POST /api/agents/{agentId}/send             a DM to another agent -> 201 receipt
    POST /api/agents/{agentId}/broadcast        a status line to colleagues -> 201 receipt
    POST /api/agents/{agentId}/delegations      a delegated task -> 201 receipt
    GET  /api/agents/{agentId}/delegations      delegations it made or was given; ?limit=

Every route goes through :class:`attn.channels.Channels` (``runtime.channels``),
so a send answers the same receipt here as in Python and in the brain tools
(A2A-06). Errors use the app's error shape: a malformed key or bad input is
422 (``invalid_input``, ``not_a_member``, ``validation_error``); a send refused
before anything was stored is 422 ``send_refused`` with ``outcome: "refused"``
and ``reason``; an unknown channel, message or agent in the path is 404.
An unknown member of a new group is 404 ``unknown_agent``.
Nothing is stored when the answer is an error. The live side (``channel:*``
events on ``/ws``) is in :mod:`attn.server.ws`.

Spec: 000 §11.1, §11.2, §25.2; acceptance A2A-01..08; issue 13 point 5.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Path, Query, Response

from attn.channels import SendReceipt
from attn.errors import InvalidInput
from attn.limits import MAX_ID_CHARS
from attn.models import MAX_HISTORY_PAGE
from attn.server import schemas_channels as shapes
from attn.server.body import JsonBodyRoute
from attn.server.schemas import AgentIdPath
from attn.server.schemas_views import answers

if TYPE_CHECKING:
    from attn.runtime import Runtime

#: Largest ``limit`` of the channel and delegation listings.
MAX_LISTING = 1_000
#: Default ``limit`` of ``GET /api/channels``.
DEFAULT_CHANNEL_PAGE = 500
#: Default ``limit`` of a history page.
DEFAULT_HISTORY_PAGE = 50
#: Default ``limit`` of ``GET /api/agents/{agentId}/delegations``.
DEFAULT_DELEGATION_PAGE = 100

ChannelKeyPath = Annotated[
    str,
    Path(
        alias="channelKey",
        min_length=1,
        max_length=MAX_ID_CHARS,
        description="dm:a2a:<agent>:<agent> (sorted), group:<team> or group:custom:<id>",
    ),
]
MessageIdPath = Annotated[str, Path(alias="messageId", min_length=1, max_length=MAX_ID_CHARS)]

#: The service's parameter names in its messages -> the request's names.
_WIRE_NAMES = {
    "channel_key": "path.channelKey",
    "message_id": "path.messageId",
    "conversation_id": "conversationId",
    "reply_to": "body.replyTo",
    "await_reply": "body.awaitReply",
    "timeout_s": "body.timeoutS",
    "origin_session_id": "body.originSessionId",
    "idempotency_key": "body.idempotencyKey",
    "sender_kind": "body.senderKind",
    "created_by": "body.createdBy",
}
_WIRE_RE = re.compile(r"\b(" + "|".join(map(re.escape, _WIRE_NAMES)) + r")\b")


@contextlib.contextmanager
def wire_names() -> Iterator[None]:
    """Re-raise an :class:`~attn.errors.InvalidInput` (any subclass, its fields kept)
    with the service's Python parameter names replaced by the request's."""
    try:
        yield
    except InvalidInput as exc:
        exc.args = (_WIRE_RE.sub(lambda m: _WIRE_NAMES[m.group(1)], exc.message), *exc.args[1:])
        raise


def _receipt(receipt: SendReceipt, response: Response) -> dict[str, Any]:
    """The receipt's wire form; 200 instead of 201 for a repeated idempotency key."""
    if receipt.duplicate:
        response.status_code = 200
    if receipt.message is not None:
        response.headers["Location"] = f"/api/channel-messages/{quote(receipt.message.id)}"
    return receipt.to_dict()


def channels_router(runtime: Runtime) -> APIRouter:
    """The routes above, bound to ``runtime``.

    Returns:
        The router, for :meth:`fastapi.FastAPI.include_router`.
    """
    router = APIRouter(route_class=JsonBodyRoute, tags=["channels"])
    channels = runtime.channels
    repeat = "a repeated idempotencyKey: nothing stored, the first send's receipt"

    @router.get("/api/channels", **answers(shapes.ChannelListView))
    async def list_channels(
        member: Annotated[
            str | None, Query(min_length=1, max_length=64, description="only this agent's")
        ] = None,
        kind: Annotated[Literal["dm", "team", "custom"] | None, Query()] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_LISTING)] = DEFAULT_CHANNEL_PAGE,
    ) -> dict[str, Any]:
        """Stored channels ordered by key: all, an agent's (``member``), of one ``kind``."""
        found = await channels.list_channels(member, kind)
        return {"channels": [c.to_dict() for c in found[:limit]], "count": len(found)}

    made = shapes.created(shapes.ChannelView)
    made["responses"][404] = {"description": "a member is not a hosted agent (unknown_agent)"}

    @router.post("/api/channels", **made)
    async def create_channel(body: shapes.CreateChannelBody, response: Response) -> Any:
        """Create a custom group ``group:custom:<id>`` of hosted agents (a person's group)."""
        with wire_names():
            channel = await channels.create_group(
                body.name, body.members, created_by=body.created_by
            )
        response.headers["Location"] = f"/api/channels/{quote(channel.key)}"
        return channel.to_dict()

    @router.get("/api/channels/{channelKey}", **answers(shapes.ChannelView))
    async def get_channel(key: ChannelKeyPath) -> dict[str, Any]:
        """One channel and its members. A DM of two hosted agents exists from the start."""
        with wire_names():
            channel = await channels.get(key)
        return channel.to_dict()

    @router.get("/api/channels/{channelKey}/messages", **answers(shapes.HistoryPageView))
    async def history(
        key: ChannelKeyPath,
        before: Annotated[
            int | None,
            Query(ge=1, le=2**63 - 1, description="a seq: only older messages (nextBefore)"),
        ] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_HISTORY_PAGE)] = DEFAULT_HISTORY_PAGE,
        conversation_id: Annotated[
            str | None, Query(alias="conversationId", min_length=1, max_length=MAX_ID_CHARS)
        ] = None,
    ) -> dict[str, Any]:
        """One page of the channel's history, oldest first, each message with its
        deliveries; ``nextBefore`` continues to older messages (A2A-08)."""
        with wire_names():
            page = await channels.history(
                key, before=before, limit=limit, conversation_id=conversation_id
            )
        return page.to_dict()

    @router.post(
        "/api/channels/{channelKey}/messages", **shapes.created(shapes.SendReceiptView, repeat)
    )
    async def post_message(
        key: ChannelKeyPath, body: shapes.PostMessageBody, response: Response
    ) -> Any:
        """Post on a channel: a group message reaches every member agent but the
        sender, or those it @mentions; a person's message is answered on the channel."""
        with wire_names():
            receipt = await channels.post(
                key,
                body.sender_id,
                body.text,
                mentions=body.mentions,
                sender_kind=body.sender_kind,
                conversation_id=body.conversation_id,
                reply_to=body.reply_to,
                idempotency_key=body.idempotency_key,
            )
        return _receipt(receipt, response)

    @router.get("/api/channel-messages/{messageId}", **answers(shapes.ChannelMessageView))
    async def get_message(message_id: MessageIdPath) -> dict[str, Any]:
        """One stored message with each recipient's delivery outcome."""
        with wire_names():
            message = await channels.message(message_id)
        return message.to_dict()

    @router.post("/api/agents/{agentId}/send", **shapes.created(shapes.SendReceiptView, repeat))
    async def send(name: AgentIdPath, body: shapes.SendBody, response: Response) -> Any:
        """Send a DM from this agent to ``to`` (``agent_send_message``): never waits for
        the answer; with ``awaitReply`` the answer resumes ``originSessionId``."""
        sender = runtime.get_agent(name).name
        with wire_names():
            receipt = await channels.send(
                sender,
                body.to,
                body.text,
                conversation_id=body.conversation_id,
                reply_to=body.reply_to,
                await_reply=body.await_reply,
                timeout_s=body.timeout_s,
                origin_session_id=body.origin_session_id,
                idempotency_key=body.idempotency_key,
            )
        return _receipt(receipt, response)

    @router.post("/api/agents/{agentId}/broadcast", **shapes.created(shapes.SendReceiptView))
    async def broadcast(name: AgentIdPath, body: shapes.BroadcastBody) -> dict[str, Any]:
        """Write a status line to colleagues' activity logs, with no turn and no model
        call; each recipient ``logged`` or ``refused``, ``partial`` when some were."""
        sender = runtime.get_agent(name).name
        with wire_names():
            receipt = await channels.broadcast_status(sender, body.text, body.to)
        return receipt.to_dict()

    @router.post("/api/agents/{agentId}/delegations", **shapes.created(shapes.SendReceiptView))
    async def delegate(name: AgentIdPath, body: shapes.DelegateBody) -> dict[str, Any]:
        """Delegate ``goal`` to ``to`` (``agent_delegate_task``): a delegation record and
        its awaited message; the delegate's reply marks it answered."""
        delegator = runtime.get_agent(name).name
        with wire_names():
            receipt = await channels.delegate(
                delegator,
                body.to,
                body.goal,
                conversation_id=body.conversation_id,
                timeout_s=body.timeout_s,
            )
        return receipt.to_dict()

    @router.get("/api/agents/{agentId}/delegations", **answers(shapes.DelegationListView))
    async def delegations(
        name: AgentIdPath,
        limit: Annotated[int, Query(ge=1, le=MAX_LISTING)] = DEFAULT_DELEGATION_PAGE,
    ) -> dict[str, Any]:
        """The newest ``limit`` delegations the agent made or was given, oldest first."""
        agent = runtime.get_agent(name).name
        found = await channels.delegations(agent)
        return {"delegations": [d.to_dict() for d in found[-limit:]], "count": len(found)}

    return router


__all__ = ["DEFAULT_HISTORY_PAGE", "MAX_LISTING", "channels_router", "wire_names"]
