"""The ``/ws`` WebSocket route: subscribe to agents, receive their live events.

Client messages are JSON text frames (see the live protocol in the README):

* ``{"type": "subscribe", "agents": ["alice"] | "*", "channels": ["dm:a2a:a:b"],
  "lastSeq": 123 | null}`` replaces the subscription; with ``lastSeq`` the
  missed events are replayed first (or ``resync`` is sent), then
  ``{"type": "subscribed", ...}`` (with ``channels`` when it names some).
  ``channels`` (optional; ``agents`` may then be left out) adds the
  ``channel:*`` events of those channels (:mod:`attn.server.channel_live`);
  ``trees`` (optional, root ids, likewise) the ``tree:*`` events of those
  spawn trees (:mod:`attn.server.tree_live`). People's events (``notification``,
  ``notification:read``, ``approval:*``) and runs' events (``filebox:*``,
  :mod:`attn.server.runs_live`) reach every subscribed connection
  (:mod:`attn.server.people_live`); ``"agents": []`` subscribes to only those.
  Unknown agents or trees: ``{"type": "error", "code": "unknown_agent"}``; unknown
  channels: ``unknown_channel``; either way nothing changes.
* ``{"type": "ping"}`` is answered ``{"type": "pong"}``.
* Anything else is ``{"type": "error", "code": "bad_message"}``; the socket stays open.

Each connection has two tasks: this handler reads client messages, a sender
drains the connection's bounded queue (:class:`~attn.server.hub.Connection`).
Replies to the client go through that queue too, so they keep their order
relative to events. The token check is :class:`~attn.server.middleware.TokenMiddleware`'s.

Spec: 000 §5 (WebSocket events); acceptance SRV-10..SRV-12.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, WebSocket
from starlette.websockets import WebSocketDisconnect

from attn.errors import AttnError, InvalidInput, UnknownAgent
from attn.jsontext import dumps, dumps_shown
from attn.server.channel_live import MAX_CHANNELS, check_channels
from attn.server.errors import clip
from attn.server.hub import ALL, Connection, EventHub
from attn.server.tree_live import MAX_TREES, check_trees

if TYPE_CHECKING:
    from attn.runtime import Runtime

#: Largest client message read, in characters; longer ones are bad messages.
MAX_MESSAGE_CHARS = 65_536
#: Most agents one subscribe may name.
MAX_AGENTS = 1_000

BAD_MESSAGE = "bad_message"
UNKNOWN_AGENT = "unknown_agent"


class BadMessage(Exception):
    """A client message the protocol does not allow; ``str(self)`` says why."""


def error_frame(code: str, message: str) -> str:
    """``{"type": "error", "code": ..., "message": ...}`` as JSON text."""
    return dumps({"type": "error", "code": code, "message": message})


def install_ws(app: FastAPI, runtime: Runtime, hub: EventHub) -> None:
    """Add ``GET /ws`` to ``app``, fed by ``hub``."""

    @app.websocket("/ws")
    async def live_events(websocket: WebSocket) -> None:
        """Live events of the subscribed agents (see the module docstring)."""
        await serve_connection(websocket, runtime, hub)


async def serve_connection(websocket: WebSocket, runtime: Runtime, hub: EventHub) -> None:
    """Run one WebSocket connection until the client leaves.

    Args:
        websocket: the not yet accepted socket.
        runtime: checks agent names.
        hub: the event source.
    """
    await websocket.accept()
    connection = hub.connect()
    try:
        async with asyncio.TaskGroup() as group:
            sender = group.create_task(_send_frames(websocket, connection), name="attn-ws-send")
            try:
                await _receive_messages(websocket, connection, runtime, hub)
            finally:
                sender.cancel()
    finally:
        hub.disconnect(connection)


async def _send_frames(websocket: WebSocket, connection: Connection) -> None:
    while True:
        frame = await connection.next_frame()
        try:
            await websocket.send_text(frame)
        except (WebSocketDisconnect, RuntimeError, OSError):
            return  # gone; the reader sees the disconnect and ends the connection


async def _receive_messages(
    websocket: WebSocket, connection: Connection, runtime: Runtime, hub: EventHub
) -> None:
    while True:
        try:
            message = await websocket.receive()
        except (WebSocketDisconnect, RuntimeError):
            return
        if message["type"] == "websocket.disconnect":
            return
        if message["type"] != "websocket.receive":
            continue
        try:
            await handle_message(message.get("text"), connection, runtime, hub)
        except BadMessage as exc:
            connection.push(error_frame(BAD_MESSAGE, str(exc)))
        except AttnError as exc:
            # unknown_agent, unknown_channel, the store unavailable; a malformed key is
            # a bad message.
            code = BAD_MESSAGE if type(exc) is InvalidInput else exc.code
            connection.push(error_frame(code, exc.message))


async def handle_message(
    text: str | None, connection: Connection, runtime: Runtime, hub: EventHub
) -> None:
    """Act on one client message.

    Args:
        text: the frame's text; None for a binary frame.
        connection: the client's connection (replies are queued on it).
        runtime: checks agent names.
        hub: subscribes the connection.

    Raises:
        BadMessage: not JSON, not an object, unknown type, wrong fields.
        UnknownAgent: a subscribe names an agent the runtime does not host
            (the subscription is unchanged).
        UnknownChannel, InvalidInput: a subscribe names an unknown or a
            malformed channel key (the subscription is unchanged).
    """
    if text is None:
        raise BadMessage("binary frames are not supported; send JSON text")
    if len(text) > MAX_MESSAGE_CHARS:
        raise BadMessage(f"message is longer than {MAX_MESSAGE_CHARS} characters")
    try:
        message = json.loads(text)
    except (ValueError, RecursionError) as exc:
        # A ValueError that is not a decode error: an integer over 4,300 digits.
        detail = (
            exc.msg
            if isinstance(exc, json.JSONDecodeError)
            else (
                "nested too deeply"
                if isinstance(exc, RecursionError)
                else "a number has more than 4,300 digits"
            )
        )
        raise BadMessage(f"message is not valid JSON: {detail}") from None
    if not isinstance(message, dict):
        raise BadMessage("message must be a JSON object with a 'type'")
    kind = message.get("type")
    if kind == "ping":
        connection.push(dumps({"type": "pong"}))
    elif kind == "subscribe":
        channels = message.get("channels")
        if channels is not None:
            channels = await check_channels(runtime, _channel_list(channels))
        trees = message.get("trees")
        if trees is not None:
            trees = check_trees(runtime.tree, _key_list(trees, "trees", "tree ids", MAX_TREES))
        if (channels or trees) and "agents" not in message:
            message = {**message, "agents": []}
        agents, last_seq = _subscription(message, runtime)
        # No await from here on: no live event slips in before the replay.
        hub.subscribe(connection, agents, last_seq, channels or (), trees or ())
    else:
        shown = clip(kind) if isinstance(kind, str) else dumps_shown(kind)[:40]
        raise BadMessage(f"unknown message type {shown!r}; expected 'subscribe' or 'ping'")


def _channel_list(value: object) -> list[str]:
    return _key_list(value, "channels", "channel keys", MAX_CHANNELS)


def _key_list(value: object, field: str, what: str, most: int) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(k, str) for k in value):
        raise BadMessage(f"{field} must be a list of {what}")
    if len(value) > most:
        raise BadMessage(f"{field} lists at most {most} {what.split()[-1]}")
    return value


def _subscription(message: dict[str, Any], runtime: Runtime) -> tuple[list[str] | str, int | None]:
    agents = message.get("agents")
    last_seq = message.get("lastSeq")
    if last_seq is not None and (
        isinstance(last_seq, bool) or not isinstance(last_seq, int) or last_seq < 0
    ):
        raise BadMessage("lastSeq must be a non-negative integer or null")
    if agents == ALL:
        return ALL, last_seq
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        raise BadMessage('agents must be "*" or a list of agent names')
    if len(agents) > MAX_AGENTS:
        raise BadMessage(f"agents lists at most {MAX_AGENTS} names")
    hosted = {agent.name for agent in runtime.agents}
    unknown = [name for name in agents if name not in hosted]
    if unknown:
        shown = ", ".join(repr(clip(name)) for name in unknown[:10])
        more = f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""
        known = ", ".join(agent.name for agent in runtime.agents[:20]) or "none"
        raise UnknownAgent(
            f"unknown agent {shown}{more} (agents: {known}); the subscription is unchanged"
        )
    return agents, last_seq


__all__ = ["BadMessage", "error_frame", "handle_message", "install_ws", "serve_connection"]
