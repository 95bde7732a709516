"""The request rules of Anthropic Messages that a tool loop can break.

``model``, ``max_tokens`` (1 or more) and ``messages`` are required; roles
are ``user`` and ``assistant`` and the first is ``user``; content is a
non-empty string or a list of blocks (text blocks non-empty); every
``tool_use`` id of an assistant message is answered by a ``tool_result``
block in the very next message (results first, before any text), and a
``tool_result`` names a ``tool_use`` of the message just before it; at most
4 blocks carry ``cache_control`` (tools, system and messages together); a
tool has a ``name`` and an ``input_schema`` object. The messages use the real API's wording.

Spec: issue 12 point 7; acceptance LLM-05, LLM-22.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from attn.types import JSON

__all__ = ["MAX_CACHE_BREAKPOINTS", "check_anthropic"]

#: Most blocks one request may mark with ``cache_control``.
MAX_CACHE_BREAKPOINTS = 4


def check_anthropic(body: JSON) -> str | None:
    """Why Anthropic refuses the Messages request ``body``, or None."""
    for name in ("model", "max_tokens", "messages"):
        if name not in body:
            return f"{name}: Field required"
    if not isinstance(body["model"], str) or not body["model"]:
        return "model: Input should be a valid string"
    max_tokens = body["max_tokens"]
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        return "max_tokens: Input should be greater than or equal to 1"
    messages = body["messages"]
    if not isinstance(messages, list):
        return "messages: Input should be a valid list"
    system = body.get("system")
    if system is not None and not isinstance(system, str | list):
        return "system: Input should be a valid string or a list of text blocks"
    problem = _check_tools(body.get("tools")) or _check_messages(messages)
    if problem:
        return problem
    marks = sum(
        1 for block in _blocks(body) if isinstance(block, dict) and "cache_control" in block
    )
    if marks > MAX_CACHE_BREAKPOINTS:
        return (
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {marks}."
        )
    return None


def _blocks(body: JSON) -> Iterator[Any]:
    """Every block that may carry ``cache_control``: tools, system blocks, message blocks."""
    for key in ("tools", "system"):
        if isinstance(body.get(key), list):
            yield from body[key]
    for message in body["messages"]:
        if isinstance(message.get("content"), list):
            for block in message["content"]:
                yield block
                if isinstance(block, dict) and isinstance(block.get("content"), list):
                    yield from block["content"]  # a tool_result's own blocks


def _check_tools(tools: Any) -> str | None:
    if tools is None:
        return None
    if not isinstance(tools, list):
        return "tools: Input should be a valid list"
    for n, tool in enumerate(tools):
        if not isinstance(tool, dict):
            return f"tools.{n}: Input should be a valid dictionary"
        if "type" in tool and tool["type"] not in (None, "custom"):
            continue  # a server tool (web search, ...): its own schema
        if not isinstance(tool.get("name"), str) or not tool["name"]:
            return f"tools.{n}.custom.name: Field required"
        if not isinstance(tool.get("input_schema"), dict):
            return f"tools.{n}.custom.input_schema: Field required"
    return None


def _check_messages(messages: list[Any]) -> str | None:
    expected: list[str] = []  # tool_use ids the next message must answer
    previous_ids: set[str] = set()
    for n, message in enumerate(messages):
        if not isinstance(message, dict):
            return f"messages.{n}: Input should be a valid dictionary"
        role = message.get("role")
        if role not in ("user", "assistant"):
            return f"messages.{n}.role: Input should be 'user' or 'assistant'"
        if n == 0 and role != "user":
            return 'messages: first message must use the "user" role'
        blocks = _content_blocks(n, message, last=n == len(messages) - 1)
        if isinstance(blocks, str):
            return blocks
        results = [b for b in blocks if b.get("type") == "tool_result"]
        for m, block in enumerate(blocks):
            if block.get("type") == "tool_result":
                if role != "user":
                    return f"messages.{n}.content.{m}: tool_result blocks belong in user messages"
                if block.get("tool_use_id") not in previous_ids:
                    return (
                        f"messages.{n}.content.{m}: unexpected `tool_use_id` found in "
                        f"`tool_result` blocks: {block.get('tool_use_id')}. Each `tool_result` "
                        "block must have a corresponding `tool_use` block in the previous message."
                    )
        if results and any(b.get("type") != "tool_result" for b in blocks[: len(results)]):
            return (
                f"messages.{n}: `tool_result` blocks must come first in the content, "
                "before any other block"
            )
        answered = {b.get("tool_use_id") for b in results}
        missing = [call_id for call_id in expected if call_id not in answered]
        if missing:
            return (
                f"messages.{n - 1}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
                "corresponding `tool_result` block in the next message."
            )
        uses = [b for b in blocks if b.get("type") == "tool_use"]
        if uses and role != "assistant":
            return f"messages.{n}: tool_use blocks are only allowed in assistant messages"
        for m, block in enumerate(uses):
            if not isinstance(block.get("id"), str) or not isinstance(block.get("input"), dict):
                return f"messages.{n}.content.{m}: a tool_use needs an id and an input object"
        expected = [b["id"] for b in uses]
        previous_ids = set(expected)
    if expected:
        return (
            f"messages.{len(messages) - 1}: `tool_use` ids were found without `tool_result` blocks "
            f"immediately after: {', '.join(expected)}. Each `tool_use` block must have a "
            "corresponding `tool_result` block in the next message."
        )
    return None


def _content_blocks(n: int, message: JSON, *, last: bool) -> list[JSON] | str:
    """The message's blocks, or why its content is refused."""
    content = message.get("content")
    final_assistant = last and message.get("role") == "assistant"
    if isinstance(content, str):
        if not content and not final_assistant:
            return (
                f"messages.{n}: all messages must have non-empty content except for "
                "the optional final assistant message"
            )
        return [{"type": "text", "text": content}] if content else []
    if not isinstance(content, list):
        return f"messages.{n}.content: Input should be a valid string or list"
    if not content and not final_assistant:
        return (
            f"messages.{n}: all messages must have non-empty content except for "
            "the optional final assistant message"
        )
    for m, block in enumerate(content):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            return f"messages.{n}.content.{m}: Input should be a valid dictionary with a type"
        if block["type"] == "text" and not block.get("text"):
            return "messages: text content blocks must be non-empty"
    return content
