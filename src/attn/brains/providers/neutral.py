"""Checks both providers share: the request, the SDK import, tool-call arguments.

:func:`check_request` refuses a malformed :class:`ModelRequest` before any
byte is sent (InvalidInput naming the field and the message's index), so a
bug upstream is never billed as a model turn. :func:`parse_arguments` turns a
tool call's streamed JSON text into its arguments or refuses the turn
(ModelStreamError, LLM-12). :func:`require_sdk` imports an SDK only when a
client is made, so ``import attn`` never pulls in ``openai`` or ``anthropic``.

Spec: issue 12 point 1; acceptance LLM-12.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
from types import ModuleType
from typing import Any

from attn.brains.providers.base import ModelRequest
from attn.errors import InvalidInput, ModelStreamError, shown
from attn.limits import check_id, check_int, check_text, is_finite_number, json_problem

#: Most messages in one request's conversation.
MAX_MESSAGES = 10_000
#: Longest text (system prompt, context block, one message), in characters.
MAX_TEXT_CHARS = 2_000_000
#: Most tools offered in one request.
MAX_TOOLS = 128
#: Longest model name.
MAX_MODEL_CHARS = 200
#: Most output tokens a request may ask for.
MAX_OUTPUT_TOKENS = 1_000_000
#: Longest tool-call argument text accepted from a stream, in characters.
MAX_ARGUMENT_CHARS = 1_000_000
#: Most tool calls accepted in one streamed turn.
MAX_TOOL_CALLS = 128

#: Tool names both APIs accept.
_TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ROLES = ("user", "assistant", "tool")


def require_sdk(name: str) -> ModuleType:
    """Import the SDK ``name`` (``"openai"`` or ``"anthropic"``).

    Raises:
        InvalidInput: the SDK is not installed; the message gives the
            ``pip install 'attn[...]'`` that adds it.
    """
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise InvalidInput(
            f"the {name} provider needs the {name} SDK: pip install 'attn[{name}]'"
        ) from exc


def check_request(request: ModelRequest) -> None:
    """Refuse a request no provider should see.

    Raises:
        InvalidInput: the model name, a text, a message, a tool or a setting
            is malformed or out of bounds; the message says which.
    """
    check_text(request.model, "model", max_len=MAX_MODEL_CHARS)
    check_text(request.system, "system", max_len=MAX_TEXT_CHARS, blank_ok=True)
    if request.context is not None:
        check_text(request.context, "context", max_len=MAX_TEXT_CHARS, blank_ok=True)
    check_int(request.max_tokens, "max_tokens", low=1, high=MAX_OUTPUT_TOKENS)
    temperature = request.temperature
    if temperature is not None and not (is_finite_number(temperature) and 0 <= temperature <= 2):
        raise InvalidInput(f"temperature must be a number from 0 to 2, got {shown(temperature)}")
    if not isinstance(request.messages, list) or len(request.messages) > MAX_MESSAGES:
        raise InvalidInput(f"messages must be a list of at most {MAX_MESSAGES:,} messages")
    for index, message in enumerate(request.messages):
        _check_message(message, f"messages[{index}]")
    if not request.messages and not request.context:
        raise InvalidInput("a model request needs at least one message or a context block")
    if len(request.tools) > MAX_TOOLS:
        raise InvalidInput(f"at most {MAX_TOOLS} tools, got {len(request.tools)}")
    names: set[str] = set()
    for tool in request.tools:
        if not isinstance(tool.name, str) or not _TOOL_NAME.fullmatch(tool.name):
            raise InvalidInput(
                f"tool name must be 1 to 64 letters, digits, _ or -, got {shown(tool.name)}"
            )
        if tool.name in names:
            raise InvalidInput(f"tool {tool.name!r} is offered twice")
        names.add(tool.name)
        check_text(
            tool.description, f"tool {tool.name!r} description", max_len=100_000, blank_ok=True
        )
        if not isinstance(tool.parameters, dict):
            raise InvalidInput(f"tool {tool.name!r} parameters must be a JSON-schema object")


def _check_message(message: object, where: str) -> None:
    if not isinstance(message, dict) or message.get("role") not in _ROLES:
        raise InvalidInput(f"{where} must be a neutral message with role user, assistant or tool")
    check_text(message.get("content"), f"{where}.content", max_len=MAX_TEXT_CHARS, blank_ok=True)
    role = message["role"]
    if role == "assistant":
        calls = message.get("toolCalls") or []
        if not isinstance(calls, list) or len(calls) > MAX_TOOL_CALLS:
            raise InvalidInput(f"{where}.toolCalls must be a list of at most {MAX_TOOL_CALLS}")
        for number, call in enumerate(calls):
            at = f"{where}.toolCalls[{number}]"
            if not isinstance(call, dict) or not isinstance(call.get("arguments"), dict):
                raise InvalidInput(f"{at} must be an object with id, name and object arguments")
            check_id(call.get("id"), f"{at}.id")
            check_text(call.get("name"), f"{at}.name", max_len=64)
    elif role == "tool":
        check_id(message.get("toolCallId"), f"{where}.toolCallId")
        check_text(message.get("name"), f"{where}.name", max_len=64)
        if not isinstance(message.get("isError", False), bool):
            raise InvalidInput(f"{where}.isError must be a boolean")


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def parse_arguments(text: str, tool: str) -> dict[str, Any]:
    """A tool call's arguments from the JSON text the model streamed.

    An empty text is ``{}`` (some OpenAI-compatible servers send nothing for a
    tool without parameters).

    Raises:
        ModelStreamError: the text is cut, not JSON, not an object, or breaks
            attn's JSON limits (depth, 64-bit integers, finite numbers).
    """
    if not text.strip():
        return {}
    try:
        value = _DECODER.decode(text)
    except (ValueError, RecursionError):
        raise ModelStreamError(
            f"tool call {shown(tool)} has arguments that are not whole JSON "
            f"({len(text):,} characters): the turn failed and no tool ran"
        ) from None
    if not isinstance(value, dict):
        raise ModelStreamError(f"tool call {shown(tool)} arguments must be a JSON object")
    problem = json_problem(value)
    if problem is not None:
        raise ModelStreamError(f"tool call {shown(tool)} arguments: {problem}")
    return value


def fallback_call_id(request: ModelRequest, index: int, name: str, arguments: str) -> str:
    """A deterministic id for a tool call a server sent without one.

    Built from the conversation's length (each assistant turn has its own),
    the call's index, name and arguments, so replaying the same turn gives the
    same id and two calls of one turn never share one.
    """
    seed = f"{len(request.messages)}\x00{index}\x00{name}\x00{arguments}"
    return "call_" + hashlib.sha256(seed.encode("utf-8", "surrogatepass")).hexdigest()[:24]


__all__ = [
    "MAX_ARGUMENT_CHARS",
    "MAX_MESSAGES",
    "MAX_MODEL_CHARS",
    "MAX_OUTPUT_TOKENS",
    "MAX_TEXT_CHARS",
    "MAX_TOOLS",
    "MAX_TOOL_CALLS",
    "check_request",
    "fallback_call_id",
    "parse_arguments",
    "require_sdk",
]
