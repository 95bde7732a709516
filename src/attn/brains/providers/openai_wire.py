"""Neutral requests as OpenAI Chat Completions requests.

The message list is the system message, then the conversation, then the
context block as a last user message (so every byte before it is the same
from one turn to the next, which is what prompt caches key on, LLM-22).
Assistant tool calls carry their arguments as compact JSON text; tool results
are ``tool`` messages. OpenAI has no error flag on a tool result: the result
text says it (attn's tool results are JSON with ``"ok": false``).

Spec: issue 12 point 1.
"""

from __future__ import annotations

from typing import Any

from attn import jsontext
from attn.brains.providers.base import ModelRequest, ToolSpec
from attn.types import JSON


def chat_messages(request: ModelRequest) -> list[dict[str, Any]]:
    """The ``messages`` of a Chat Completions request for ``request``."""
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    messages.extend(chat_message(message) for message in request.messages)
    if request.context:
        messages.append({"role": "user", "content": request.context})
    return messages


def chat_message(message: JSON) -> dict[str, Any]:
    """One neutral message (already checked) as a Chat Completions message."""
    role = message["role"]
    if role == "tool":
        return {
            "role": "tool",
            "tool_call_id": message["toolCallId"],
            "content": message["content"],
        }
    if role == "assistant":
        calls = message.get("toolCalls") or []
        if calls:
            return {
                "role": "assistant",
                # OpenAI wants null, not "", beside tool calls with no text.
                "content": message["content"] or None,
                "tool_calls": [
                    {
                        "id": call["id"],
                        "type": "function",
                        "function": {
                            "name": call["name"],
                            "arguments": jsontext.dumps(call["arguments"]),
                        },
                    }
                    for call in calls
                ],
            }
        return {"role": "assistant", "content": message["content"]}
    return {"role": "user", "content": message["content"]}


def chat_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """The ``tools`` of a Chat Completions request: one function tool each."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        }
        for tool in tools
    ]


def chat_request(request: ModelRequest, *, official: bool) -> dict[str, Any]:
    """The keyword arguments of ``chat.completions.create`` for ``request``, streaming.

    Args:
        request: the turn (already checked).
        official: True for api.openai.com, which takes ``max_completion_tokens``
            (its reasoning models refuse ``max_tokens``); OpenAI-compatible
            servers (vLLM, Ollama, llama.cpp, LM Studio, OpenRouter) get the
            ``max_tokens`` they all read.
    """
    kwargs: dict[str, Any] = {
        "model": request.model,
        "messages": chat_messages(request),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    kwargs["max_completion_tokens" if official else "max_tokens"] = request.max_tokens
    if request.tools:
        kwargs["tools"] = chat_tools(request.tools)
    if request.temperature is not None:
        kwargs["temperature"] = request.temperature
    return kwargs


__all__ = ["chat_message", "chat_messages", "chat_request", "chat_tools"]
