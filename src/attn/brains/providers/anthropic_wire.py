"""Neutral requests as Anthropic Messages requests.

* The system prompt is one text block.
* Neutral messages become content blocks: user text; assistant text and
  ``tool_use`` blocks; consecutive ``tool`` messages become ONE user message
  of ``tool_result`` blocks (``is_error`` kept), which Anthropic requires right
  after the assistant message that called them. Messages of one role in a
  row are joined into one message (``tool_result`` blocks first, as the API
  wants), and an assistant message with no text and no calls is left out
  (the API refuses empty content).
* The context block is a last user text block, after everything stable.
* With ``request.cache``, ``cache_control: {"type": "ephemeral"}`` marks the
  end of the stable prefix in three places (the API allows four): the last
  tool, the system block and the last block of the conversation before the
  context (LLM-22).

Spec: issue 12 point 1; acceptance LLM-22.
"""

from __future__ import annotations

from typing import Any

from attn.brains.providers.base import ModelRequest
from attn.errors import InvalidInput, shown
from attn.types import JSON

#: The cache breakpoint attn places.
EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
#: Anthropic's temperature range is 0 .. 1 (OpenAI's is 0 .. 2).
MAX_TEMPERATURE = 1.0


def message_blocks(message: JSON) -> tuple[str, list[dict[str, Any]]]:
    """A neutral message (already checked) as ``(role, content blocks)``."""
    role = message["role"]
    if role == "tool":
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": message["toolCallId"],
            "content": message["content"],
        }
        if message.get("isError"):
            block["is_error"] = True
        return "user", [block]
    blocks: list[dict[str, Any]] = []
    if message["content"]:
        blocks.append({"type": "text", "text": message["content"]})
    if role == "assistant":
        blocks.extend(
            {"type": "tool_use", "id": call["id"], "name": call["name"], "input": call["arguments"]}
            for call in message.get("toolCalls") or []
        )
        return "assistant", blocks
    return "user", blocks


def messages_of(request: ModelRequest) -> list[dict[str, Any]]:
    """The ``messages`` of a Messages request, with the cache mark and the context."""
    messages: list[dict[str, Any]] = []
    for message in request.messages:
        role, blocks = message_blocks(message)
        if not blocks:
            continue
        if messages and messages[-1]["role"] == role:
            joined = messages[-1]["content"] + blocks
            # tool_result blocks must open a user message.
            joined.sort(key=lambda block: block["type"] != "tool_result")
            messages[-1]["content"] = joined
        else:
            messages.append({"role": role, "content": blocks})
    if request.cache and messages:
        last = messages[-1]["content"]
        last[-1] = {**last[-1], "cache_control": dict(EPHEMERAL)}
    if request.context:
        context = {"type": "text", "text": request.context}
        if messages and messages[-1]["role"] == "user":
            messages[-1]["content"].append(context)
        else:
            messages.append({"role": "user", "content": [context]})
    return messages


def messages_request(request: ModelRequest) -> dict[str, Any]:
    """The keyword arguments of ``messages.create`` for ``request``, streaming.

    A ``temperature`` is sent in ``extra_body`` (see the comment below): a
    model that takes none answers 400, a ModelError that is not retried.

    Raises:
        InvalidInput: a temperature above Anthropic's 1.0.
    """
    kwargs: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": messages_of(request),
        "stream": True,
    }
    if request.system:
        system: dict[str, Any] = {"type": "text", "text": request.system}
        if request.cache:
            system["cache_control"] = dict(EPHEMERAL)
        kwargs["system"] = [system]
    if request.tools:
        tools: list[dict[str, Any]] = [
            {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
            for tool in request.tools
        ]
        if request.cache:
            tools[-1]["cache_control"] = dict(EPHEMERAL)
        kwargs["tools"] = tools
    if request.temperature is not None:
        if request.temperature > MAX_TEMPERATURE:
            raise InvalidInput(
                f"temperature must be a number from 0 to 1 for Anthropic, "
                f"got {shown(request.temperature)}"
            )
        # The installed SDK's messages.create has no temperature argument (newer
        # models take none); it goes in the body as asked, and the API decides.
        kwargs["extra_body"] = {"temperature": request.temperature}
    return kwargs


__all__ = ["EPHEMERAL", "MAX_TEMPERATURE", "message_blocks", "messages_of", "messages_request"]
