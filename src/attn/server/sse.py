"""Streamed chat over Server-Sent Events: ``POST /api/agents/{agentId}/chat/stream``.

The body is the ``/chat`` body. The message goes through the same mailbox path
as ``/chat`` (:meth:`attn.runtime.Agent.send_message`); the response starts
only once the item is committed, so bad input (unknown agent, blank text,
unknown type, full mailbox...) is an ordinary JSON error and enqueues nothing.
Then the ``text/event-stream`` carries::

    event: item    data: {"mailboxItemId": "..."}
    event: delta   data: {"text": "..."}             one per piece from focus.stream()
    event: reset   data: {"mailboxItemId": "..."}    forget the text so far (rare, see below)
    event: done    data: {"reply": "...", "mailboxItemId": "...", "cancelled": false,
                          "data": {}}
    event: error   data: {"error": {"code": "...", "message": "..."}}   (then the end)

The deltas since the last ``reset`` always add up to the ``done`` event's
``reply``: when the reply ends with text that was not streamed (a brain that
streams nothing, the ``[cancelled]`` mark), that text is sent as a last
delta; when the reply differs from what was streamed (a retried attempt that
streamed again, a brain whose final reply is not the text it streamed), a
``reset`` is sent, then the whole reply as one delta.

A comment line (``: keepalive``) goes out every :data:`KEEPALIVE_S` seconds of
silence. If the client goes away mid-stream, only the wait is abandoned: the
agent finishes the item as usual. Each delta is also published to WebSocket
subscribers as ``agent:stream`` (``{"mailboxItemId", "text"}``; a reset is
``{"mailboxItemId", "text": "", "reset": true}``), with the same guarantee.

Spec: 000 §5 (streamed chat); acceptance SRV-04, SRV-13.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI
from fastapi.responses import StreamingResponse

from attn.core.events import LIVE_STREAM
from attn.errors import AttnError
from attn.jsontext import dumps_shown
from attn.server.errors import EXTRA_FIELDS, INTERNAL_ERROR, error_body
from attn.server.hub import EventHub
from attn.server.schemas import AgentIdPath, ChatBody

if TYPE_CHECKING:
    from attn.core.focus import Reply
    from attn.runtime import Agent, Runtime

log = logging.getLogger(__name__)

#: Seconds of silence after which a keepalive comment is sent.
KEEPALIVE_S = 15.0

_END = object()
_RESET = object()


class EventStreamResponse(StreamingResponse):
    """A ``text/event-stream`` response (documented as such in the OpenAPI schema)."""

    media_type = "text/event-stream"


def sse_event(event: str, data: dict[str, Any]) -> str:
    """One SSE message: ``event: <event>``, ``data: <json>``, blank line."""
    text = dumps_shown(data)
    return f"event: {event}\ndata: {text}\n\n"


def error_data(exc: BaseException) -> dict[str, Any]:
    """The ``error`` event's data for ``exc``: the API's error body shape."""
    if isinstance(exc, AttnError):
        extra = {
            key: getattr(exc, attribute)
            for cls, attribute, key in EXTRA_FIELDS
            if isinstance(exc, cls) and getattr(exc, attribute, None) is not None
        }
        return error_body(exc.code, exc.message, **extra)
    return error_body(INTERNAL_ERROR, "internal error; see the server log")


class _ChatStream:
    """One streamed chat: the waiting task, the item id, the deltas in order."""

    def __init__(self, agent: Agent, hub: EventHub) -> None:
        self.agent = agent
        self.hub = hub
        self.item_id: str | None = None
        self.enqueued: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.pieces: asyncio.Queue[object] = asyncio.Queue()
        self._early: list[str] = []  # deltas before the item id is known
        self._streamed: list[str] = []  # deltas sent since the last reset

    def on_enqueued(self, item_id: str) -> None:
        self.item_id = item_id
        if not self.enqueued.done():
            self.enqueued.set_result(item_id)
        for text in self._early:
            self._publish(text)
        self._early.clear()

    def on_delta(self, text: str) -> None:
        if not text:
            return
        self._streamed.append(text)
        self.pieces.put_nowait(text)
        if self.item_id is None:
            self._early.append(text)
        else:
            self._publish(text)

    def on_done(self, task: asyncio.Task[Reply]) -> None:
        if not task.cancelled() and task.exception() is None:  # retrieved: the stream may be gone
            self._settle(task.result().text)
        self.pieces.put_nowait(_END)

    def _settle(self, reply: str) -> None:
        """Make the deltas add up to ``reply``: send the missing end, or reset and resend."""
        streamed = "".join(self._streamed)
        if streamed == reply:
            return
        if reply.startswith(streamed):
            self.on_delta(reply[len(streamed) :])
            return
        self._streamed.clear()
        self.pieces.put_nowait(_RESET)
        self._publish("", reset=True)
        self.on_delta(reply)

    def _publish(self, text: str, *, reset: bool = False) -> None:
        data: dict[str, Any] = {"mailboxItemId": self.item_id, "text": text}
        if reset:
            data["reset"] = True
        self.hub.publish(LIVE_STREAM, self.agent.name, data, self.hub.runtime.clock.now())


def install_chat_stream(app: FastAPI, runtime: Runtime, hub: EventHub) -> None:
    """Add ``POST /api/agents/{agentId}/chat/stream`` to ``app``."""

    @app.post(
        "/api/agents/{agentId}/chat/stream",
        tags=["mailbox"],
        response_class=EventStreamResponse,
        responses={
            200: {
                "description": "Server-Sent Events: item, delta..., then done or error.",
                "content": {"text/event-stream": {"schema": {"type": "string"}}},
            }
        },
    )
    async def chat_stream(name: AgentIdPath, body: ChatBody) -> EventStreamResponse:
        """Send a message and stream the reply as Server-Sent Events (see the module docstring)."""
        agent = runtime.get_agent(name)
        chat = _ChatStream(agent, hub)
        task = asyncio.create_task(
            agent.send_message(
                body.text,
                sender_id=body.sender_id,
                sender_name=body.sender_name,
                session_id=body.session_id,
                source_type=body.source_type,
                timeout_s=body.timeout_s,
                on_delta=chat.on_delta,
                on_enqueued=chat.on_enqueued,
            ),
            name=f"attn-chat-stream-{agent.name}",
        )
        task.add_done_callback(chat.on_done)
        waiters: set[asyncio.Future[Any]] = {task, chat.enqueued}
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            task.cancel()
            raise
        if not chat.enqueued.done():
            # Refused before the item was committed: an ordinary JSON error.
            chat.enqueued.cancel()
            task.result()
            raise RuntimeError("send_message returned without enqueuing")  # pragma: no cover
        return EventStreamResponse(
            _events(chat, task),
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )


async def _events(chat: _ChatStream, task: asyncio.Task[Reply]) -> AsyncIterator[str]:
    try:
        yield sse_event("item", {"mailboxItemId": chat.enqueued.result()})
        while True:
            try:
                async with asyncio.timeout(KEEPALIVE_S):
                    piece = await chat.pieces.get()
            except TimeoutError:
                yield ": keepalive\n\n"
                continue
            if piece is _END:
                break
            if piece is _RESET:
                yield sse_event("reset", {"mailboxItemId": chat.item_id})
                continue
            yield sse_event("delta", {"text": piece})
        try:
            reply = task.result()
        except AttnError as exc:
            yield sse_event("error", error_data(exc))
            return
        except Exception as exc:
            log.error("streamed chat failed", exc_info=exc)
            yield sse_event("error", error_data(exc))
            return
        yield sse_event(
            "done",
            {
                "reply": reply.text,
                "mailboxItemId": reply.item_id,
                "cancelled": reply.cancelled,
                "data": reply.data,
            },
        )
    finally:
        # The client went away (or the stream ended): stop waiting; the item goes on.
        task.cancel()


__all__ = ["KEEPALIVE_S", "EventStreamResponse", "error_data", "install_chat_stream", "sse_event"]
