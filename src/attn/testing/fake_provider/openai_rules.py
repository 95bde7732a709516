"""The request rules of OpenAI Chat Completions that a tool loop can break.

``model`` and a non-empty ``messages`` list are required; each message has a
known role; an assistant message's ``tool_calls`` must each be answered by a
``tool`` message (by ``tool_call_id``) before the next message of another
role, and a ``tool`` message must answer a call of the assistant message
before it; ``tools`` are ``{"type": "function", "function": {"name", ...}}``.
The messages use the real API's wording, so a test sees what production would.

Spec: issue 12 point 7; acceptance LLM-05.
"""

from __future__ import annotations

import re
from typing import Any

from attn.types import JSON

__all__ = ["check_openai"]

_ROLES = ("system", "developer", "user", "assistant", "tool", "function")
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def check_openai(body: JSON) -> str | None:
    """Why OpenAI refuses the Chat Completions request ``body``, or None."""
    model = body.get("model")
    if not isinstance(model, str) or not model:
        return "you must provide a model parameter"
    messages = body.get("messages")
    if messages is None:
        return "Missing required parameter: 'messages'."
    if not isinstance(messages, list):
        kind = type(messages).__name__
        return f"Invalid type for 'messages': expected an array, but got {kind} instead."
    if not messages:
        return (
            "Invalid 'messages': empty array. Expected an array with minimum length 1, "
            "but got an empty array instead."
        )
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        return "Invalid type for 'stream': expected a boolean."
    if body.get("stream_options") is not None and stream is not True:
        return "The 'stream_options' parameter is only allowed when 'stream' is enabled."
    for name in ("max_tokens", "max_completion_tokens"):
        value = body.get(name)
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value < 1
        ):
            return (
                f"Invalid '{name}': integer below minimum value. "
                f"Expected a value >= 1, but got {value!r} instead."
            )
    return _check_tools(body.get("tools")) or _check_messages(messages)


def _check_tools(tools: Any) -> str | None:
    if tools is None:
        return None
    if not isinstance(tools, list):
        return "Invalid type for 'tools': expected an array."
    for n, tool in enumerate(tools):
        if not isinstance(tool, dict) or tool.get("type") != "function":
            return f"Invalid value for 'tools[{n}].type': expected 'function'."
        function = tool.get("function")
        if not isinstance(function, dict) or "name" not in function:
            return f"Missing required parameter: 'tools[{n}].function.name'."
        name = function["name"]
        if not isinstance(name, str) or not _TOOL_NAME.match(name):
            return (
                f"Invalid 'tools[{n}].function.name': string does not match pattern. "
                "Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."
            )
        parameters = function.get("parameters")
        if parameters is not None and not isinstance(parameters, dict):
            return f"Invalid type for 'tools[{n}].function.parameters': expected an object."
    return None


def _check_messages(messages: list[Any]) -> str | None:
    open_calls: dict[str, int] = {}  # tool_call_id -> index of its assistant message
    answerable: set[str] = set()  # ids of the last assistant message's calls
    for n, message in enumerate(messages):
        if not isinstance(message, dict):
            return f"Invalid type for 'messages[{n}]': expected an object."
        role = message.get("role")
        if role not in _ROLES:
            return (
                f"Invalid value: {role!r}. Supported values are: 'system', 'assistant', 'user', "
                "'function', 'tool', and 'developer'."
            )
        if role != "tool" and open_calls:
            return _unanswered(open_calls)
        problem = _check_content(n, role, message)
        if problem:
            return problem
        if role == "assistant":
            calls = message.get("tool_calls") or []
            if not isinstance(calls, list):
                return f"Invalid type for 'messages[{n}].tool_calls': expected an array."
            answerable = set()
            for m, call in enumerate(calls):
                problem = _check_call(n, m, call)
                if problem:
                    return problem
                open_calls[call["id"]] = n
                answerable.add(call["id"])
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str):
                return f"Missing required parameter: 'messages[{n}].tool_call_id'."
            if call_id not in answerable:
                return (
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'."
                )
            open_calls.pop(call_id, None)
        else:
            answerable = set()
    if open_calls:
        return _unanswered(open_calls)
    return None


def _unanswered(open_calls: dict[str, int]) -> str:
    return (
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        + ", ".join(open_calls)
    )


def _check_content(n: int, role: str, message: JSON) -> str | None:
    content = message.get("content")
    if role == "assistant":
        if content is None and not message.get("tool_calls"):
            return f"Invalid 'messages[{n}]': an assistant message needs content or tool_calls."
        return None
    if content is None:
        return f"Missing required parameter: 'messages[{n}].content'."
    if not isinstance(content, str | list):
        return f"Invalid type for 'messages[{n}].content': expected a string or array of objects."
    return None


def _check_call(n: int, m: int, call: Any) -> str | None:
    where = f"messages[{n}].tool_calls[{m}]"
    if not isinstance(call, dict):
        return f"Invalid type for '{where}': expected an object."
    if not isinstance(call.get("id"), str) or not call["id"]:
        return f"Missing required parameter: '{where}.id'."
    if call.get("type") != "function":
        return f"Missing required parameter: '{where}.type'."
    function = call.get("function")
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        return f"Missing required parameter: '{where}.function.name'."
    if not isinstance(function.get("arguments"), str):
        return f"Missing required parameter: '{where}.function.arguments'."
    return None
