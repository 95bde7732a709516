"""Anthropic Messages on the wire: a streamed answer's events and a whole message.

A stream is named events: ``message_start`` (the message, empty content,
input usage), for each content block ``content_block_start``, its deltas
(``text_delta``, or ``input_json_delta`` pieces of a tool call's JSON) and
``content_block_stop``, a ``ping`` after the first block starts, then
``message_delta`` (stop reason, output usage) and ``message_stop``.

Spec: issue 12 point 7 (the Anthropic protocol of 000 §21).
"""

from __future__ import annotations

import json

from attn.testing.fake_provider.answers import Answer, split, sse
from attn.types import JSON

__all__ = ["anthropic_events", "anthropic_message"]

#: Prefix of generated tool call ids.
ID_PREFIX = "toolu_"


def _stop_reason(answer: Answer) -> str:
    if answer.turn.stop is not None:
        return answer.turn.stop
    return "tool_use" if answer.ids else "end_turn"


def _usage(answer: Answer, output_tokens: int) -> JSON:
    creation, read = answer.cache
    return {
        "input_tokens": answer.usage[0],
        "cache_creation_input_tokens": creation,
        "cache_read_input_tokens": read,
        "output_tokens": output_tokens,
    }


def anthropic_events(answer: Answer, body: JSON, request_index: int) -> list[bytes]:
    """The SSE events of ``answer`` to the request ``body``, ``message_stop`` last."""
    turn = answer.turn
    output_tokens = answer.usage[1]
    message: JSON = {
        "id": f"msg_fake{request_index}",
        "type": "message",
        "role": "assistant",
        "model": str(body.get("model", "")),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": _usage(answer, 1),
    }
    events = [sse({"type": "message_start", "message": message}, "message_start")]
    index = 0

    def block(start: JSON, deltas: list[JSON]) -> None:
        nonlocal index
        events.append(
            sse(
                {"type": "content_block_start", "index": index, "content_block": start},
                "content_block_start",
            )
        )
        if index == 0:
            events.append(sse({"type": "ping"}, "ping"))
        for delta in deltas:
            events.append(
                sse(
                    {"type": "content_block_delta", "index": index, "delta": delta},
                    "content_block_delta",
                )
            )
        events.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
        index += 1

    if turn.text:
        pieces = split(turn.text, turn.chunks)
        block({"type": "text", "text": ""}, [{"type": "text_delta", "text": p} for p in pieces])
    for call, call_id, arguments in zip(turn.tool_calls, answer.ids, answer.arguments, strict=True):
        pieces = split(arguments, turn.chunks)
        block(
            {"type": "tool_use", "id": call_id, "name": call.name, "input": {}},
            [{"type": "input_json_delta", "partial_json": p} for p in pieces],
        )
    delta = {"stop_reason": _stop_reason(answer), "stop_sequence": None}
    events.append(
        sse(
            {"type": "message_delta", "delta": delta, "usage": {"output_tokens": output_tokens}},
            "message_delta",
        )
    )
    events.append(sse({"type": "message_stop"}, "message_stop"))
    return events


def anthropic_message(answer: Answer, body: JSON, request_index: int) -> JSON:
    """The ``message`` object of a non-streamed ``answer``.

    A truncated tool call's ``input`` is ``{}`` here: a whole message carries
    parsed input, so only a stream can show cut JSON.
    """
    turn = answer.turn
    content: list[JSON] = [{"type": "text", "text": turn.text}] if turn.text else []
    for n, (call, call_id) in enumerate(zip(turn.tool_calls, answer.ids, strict=True)):
        cut = answer.truncated and n == len(answer.ids) - 1
        arguments = {} if cut else json.loads(answer.arguments[n])
        content.append({"type": "tool_use", "id": call_id, "name": call.name, "input": arguments})
    return {
        "id": f"msg_fake{request_index}",
        "type": "message",
        "role": "assistant",
        "model": str(body.get("model", "")),
        "content": content,
        "stop_reason": _stop_reason(answer),
        "stop_sequence": None,
        "usage": _usage(answer, answer.usage[1]),
    }
