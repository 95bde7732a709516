"""OpenAI Chat Completions on the wire: a streamed answer's chunks and a whole completion.

A stream is ``data: {chat.completion.chunk}`` events: the first delta carries
the role, then text deltas, then tool calls (the first delta of each gives its
index, id, type and name, the next ones pieces of its ``arguments`` text), then
an empty delta with the ``finish_reason``; a last chunk with empty ``choices``
and ``usage`` only when the request asked for it
(``stream_options.include_usage``), as the real API does; then ``data: [DONE]``.

Spec: issue 12 point 7 (the OpenAI-compatible protocol of 000 §21).
"""

from __future__ import annotations

from attn.testing.fake_provider.answers import Answer, split, sse
from attn.types import JSON

__all__ = ["openai_completion", "openai_events"]

#: The ``created`` stamp of every answer (2026-01-01T00:00:00Z): answers are reproducible.
CREATED = 1_767_225_600
#: Prefix of generated tool call ids.
ID_PREFIX = "call_"


def _finish_reason(answer: Answer) -> str:
    if answer.turn.stop is not None:
        return answer.turn.stop
    return "tool_calls" if answer.ids else "stop"


def _usage(answer: Answer) -> JSON:
    prompt, completion = answer.usage
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
    }


def openai_events(answer: Answer, body: JSON, request_index: int) -> list[bytes]:
    """The SSE events of ``answer`` to the request ``body``, ``[DONE]`` last."""
    model = str(body.get("model", ""))
    options = body.get("stream_options")
    with_usage = isinstance(options, dict) and options.get("include_usage") is True
    head: JSON = {
        "id": f"chatcmpl-fake{request_index}",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": model,
        "system_fingerprint": "fp_fake",
    }

    def chunk(delta: JSON, finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        data = {**head, "choices": [choice]}
        if with_usage:
            data["usage"] = None
        return sse(data)

    turn = answer.turn
    first: JSON = {"role": "assistant", "content": "" if turn.text or not answer.ids else None}
    first["refusal"] = None
    events = [chunk(first)]
    events += [chunk({"content": piece}) for piece in split(turn.text, turn.chunks)]
    for n, (call, call_id, arguments) in enumerate(
        zip(turn.tool_calls, answer.ids, answer.arguments, strict=True)
    ):
        start = {"index": n, "id": call_id, "type": "function"}
        start["function"] = {"name": call.name, "arguments": ""}
        events.append(chunk({"tool_calls": [start]}))
        for piece in split(arguments, turn.chunks):
            events.append(chunk({"tool_calls": [{"index": n, "function": {"arguments": piece}}]}))
    events.append(chunk({}, _finish_reason(answer)))
    if with_usage:
        events.append(sse({**head, "choices": [], "usage": _usage(answer)}))
    events.append(sse("[DONE]"))
    return events


def openai_completion(answer: Answer, body: JSON, request_index: int) -> JSON:
    """The ``chat.completion`` object of a non-streamed ``answer``."""
    turn = answer.turn
    message: JSON = {
        "role": "assistant",
        "content": turn.text if turn.text or not answer.ids else None,
        "refusal": None,
        "annotations": [],
    }
    if answer.ids:
        message["tool_calls"] = [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": call.name, "arguments": arguments},
            }
            for call, call_id, arguments in zip(
                turn.tool_calls, answer.ids, answer.arguments, strict=True
            )
        ]
    choice = {
        "index": 0,
        "message": message,
        "logprobs": None,
        "finish_reason": _finish_reason(answer),
    }
    return {
        "id": f"chatcmpl-fake{request_index}",
        "object": "chat.completion",
        "created": CREATED,
        "model": str(body.get("model", "")),
        "system_fingerprint": "fp_fake",
        "choices": [choice],
        "usage": _usage(answer),
    }
