"""What both wire formats share: splitting text into deltas, tool-call JSON and ids,
rough token counts, and Server-Sent Events framing.

Spec: issue 12 point 7.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from attn.testing.fake_provider.script import ReceivedRequest, Turn
from attn.types import JSON

__all__ = ["Answer", "plan_answer", "split", "sse"]

#: Bytes per token when the provider counts usage itself.
BYTES_PER_TOKEN = 4


@dataclass(frozen=True, slots=True)
class Answer:
    """A turn made ready for a wire format.

    Attributes:
        turn: the scripted turn.
        ids: each tool call's id, in order.
        arguments: each tool call's argument JSON text (the last one cut in
            half when ``truncated``).
        truncated: the last tool call's JSON is cut.
        usage: ``(input_tokens, output_tokens)`` to report (input not counting
            the cached tokens).
        cache: ``(cache_creation_input_tokens, cache_read_input_tokens)`` (Anthropic).
    """

    turn: Turn
    ids: tuple[str, ...]
    arguments: tuple[str, ...]
    truncated: bool
    usage: tuple[int, int]
    cache: tuple[int, int] = (0, 0)


def plan_answer(
    turn: Turn,
    request: ReceivedRequest,
    id_prefix: str,
    *,
    truncate: bool = False,
    cache: tuple[int, int] = (0, 0),
) -> Answer:
    """Prepare ``turn`` as an answer to ``request``.

    Tool call ids default to ``{id_prefix}fake{request.index}_{n}``, so a
    conversation replayed against a fresh provider gets the same ids.
    """
    ids = tuple(
        call.id or f"{id_prefix}fake{request.index}_{n}" for n, call in enumerate(turn.tool_calls)
    )
    arguments = [json.dumps(call.arguments, ensure_ascii=False) for call in turn.tool_calls]
    if truncate and arguments:
        whole = arguments[-1]
        arguments[-1] = whole[: max(1, len(whole) // 2)]
    if turn.usage is not None:
        usage = turn.usage
    else:
        output = len(turn.text.encode()) + sum(len(a.encode()) for a in arguments)
        usage = (
            max(1, len(request.raw) // BYTES_PER_TOKEN - sum(cache)),
            max(1, output // BYTES_PER_TOKEN),
        )
    return Answer(turn, ids, tuple(arguments), truncate and bool(arguments), usage, cache)


def split(text: str, chunks: int) -> list[str]:
    """``text`` in at most ``chunks`` non-empty pieces of near equal length ([] for "")."""
    if not text:
        return []
    count = min(chunks, len(text))
    size, extra = divmod(len(text), count)
    pieces, start = [], 0
    for n in range(count):
        end = start + size + (1 if n < extra else 0)
        pieces.append(text[start:end])
        start = end
    return pieces


def sse(data: JSON | str, event: str | None = None) -> bytes:
    """One Server-Sent Event: an optional ``event:`` line, one ``data:`` line, a blank line."""
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()
