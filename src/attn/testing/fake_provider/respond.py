"""Turning a scripted answer into bytes on the connection: error bodies, whole answers,
and streams that end, hang, break off, or report an error mid-way.

Spec: issue 12 point 7; acceptance LLM-04, LLM-11, LLM-12.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from attn.testing.fake_provider.answers import Answer, sse
from attn.testing.fake_provider.anthropic_wire import anthropic_events, anthropic_message
from attn.testing.fake_provider.faults import Fault, FaultKind, anthropic_error, openai_error
from attn.testing.fake_provider.http import LAST_CHUNK, chunk, json_response, response_head
from attn.testing.fake_provider.openai_wire import openai_completion, openai_events
from attn.testing.fake_provider.script import StreamRecord, WireProtocol
from attn.types import JSON

__all__ = ["error_bytes", "hang_until_closed", "stream_events", "whole_bytes", "write_stream"]

_SSE_HEADERS = {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "transfer-encoding": "chunked",
    "connection": "keep-alive",
}


def error_bytes(
    protocol: WireProtocol | None,
    status: int,
    message: str,
    *,
    headers: dict[str, str] | None = None,
    keep_alive: bool,
) -> bytes:
    """A whole error answer with the body of ``protocol``'s API (OpenAI's shape when None)."""
    body = (
        anthropic_error(status, message)
        if protocol == "anthropic"
        else openai_error(status, message)
    )
    return json_response(status, body, headers or {}, keep_alive=keep_alive)


def whole_bytes(
    protocol: WireProtocol, answer: Answer, body: JSON, index: int, *, keep_alive: bool
) -> bytes:
    """A non-streamed answer: the completion or message object as JSON."""
    render = anthropic_message if protocol == "anthropic" else openai_completion
    return json_response(200, render(answer, body, index), {}, keep_alive=keep_alive)


def stream_events(
    protocol: WireProtocol, answer: Answer, body: JSON, index: int, fault: Fault | None
) -> list[bytes]:
    """The SSE events of a streamed answer; a ``STREAM_ERROR`` fault replaces the events
    from ``after_events`` on with the API's error event."""
    render = anthropic_events if protocol == "anthropic" else openai_events
    events = render(answer, body, index)
    if fault is None or fault.kind is not FaultKind.STREAM_ERROR:
        return events
    message = fault.message or (
        "Overloaded" if fault.status_code == 529 else "Internal server error"
    )
    if protocol == "anthropic":
        error = sse(anthropic_error(fault.status_code, message), "error")
    else:
        error = sse(openai_error(fault.status_code, message))
    return [*events[: min(fault.after_events, len(events) - 1)], error]


async def write_stream(
    record: StreamRecord,
    events: list[bytes],
    *,
    hang_after: int | None,
    cut: int | None,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    notify: Callable[[], None],
    pace_s: float = 0.0,
) -> bool:
    """Write ``events`` as a chunked SSE body; False when the connection must close.

    ``cut``: stop after that many events (at most all but the last) without the
    last chunk. ``hang_after``: stop after that many events and read until the
    client closes, noting the close in ``record``. ``pace_s``: seconds to wait
    before each event after the first.
    """
    loop = asyncio.get_running_loop()
    writer.write(response_head(200, _SSE_HEADERS))
    stop_at = len(events) if cut is None else min(cut, len(events) - 1)
    hanging = hang_after is not None and (cut is None or hang_after <= stop_at)
    if hang_after is not None and hanging:
        stop_at = min(hang_after, stop_at)
    for n, event in enumerate(events[:stop_at]):
        if pace_s and n:
            await asyncio.sleep(pace_s)
        writer.write(chunk(event))
        record.events_sent += 1
        await writer.drain()
    if hanging:
        await hang_until_closed(record, reader, notify)
        return False
    if cut is not None:
        return False
    writer.write(LAST_CHUNK)
    await writer.drain()
    record.finished_at = loop.time()
    notify()
    return True


async def hang_until_closed(
    record: StreamRecord, reader: asyncio.StreamReader, notify: Callable[[], None]
) -> None:
    """Mark ``record`` hanging and send nothing until the client closes; note when it did."""
    record.hanging = True
    notify()
    while await reader.read(4096):  # a well-behaved client sends nothing more
        pass
    record.closed_at = asyncio.get_running_loop().time()
