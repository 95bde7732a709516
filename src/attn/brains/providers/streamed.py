"""One streamed turn being put together, the same way for both providers.

Text deltas pass straight through; tool calls are gathered (their argument
JSON arrives in pieces) and handed out only once the stream has ended with a
stop reason, each parsed whole. So a cut stream or cut JSON raises
:class:`~attn.errors.ModelStreamError` before any :class:`ToolCall` is yielded,
and no tool ever runs with half its arguments (LLM-12). Everything a server
sends is bounded: text and argument sizes, the number of tool calls, token
counts.

Spec: issue 12 point 1; acceptance LLM-12.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from attn.brains.providers.base import (
    ModelEvent,
    ModelRequest,
    Stop,
    StopAction,
    TextDelta,
    ToolCall,
    Usage,
)
from attn.brains.providers.neutral import (
    MAX_ARGUMENT_CHARS,
    MAX_TEXT_CHARS,
    MAX_TOOL_CALLS,
    fallback_call_id,
    parse_arguments,
)
from attn.errors import ModelStreamError

#: Longest tool name accepted from a stream.
MAX_NAME_CHARS = 200
#: Largest token count believed; a bigger or malformed one reads as 0.
MAX_TOKEN_COUNT = 10**12


def token_count(value: object) -> int:
    """``value`` if it is a plausible token count (an int in 0 .. 10**12), else 0."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKEN_COUNT:
        return 0
    return value


@dataclass(slots=True)
class ToolCallParts:
    """A tool call as it streams in: id and name once, arguments in pieces."""

    id: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)
    size: int = 0

    def add_name(self, name: str | None) -> None:
        # Some servers repeat the whole name in every delta; the rest send it once.
        if name and name != self.name:
            self.name += name
            if len(self.name) > MAX_NAME_CHARS:
                raise ModelStreamError(f"tool name longer than {MAX_NAME_CHARS} characters")

    def add_arguments(self, piece: str | None) -> None:
        if not piece:
            return
        self.size += len(piece)
        if self.size > MAX_ARGUMENT_CHARS:
            raise ModelStreamError(
                f"tool call arguments longer than {MAX_ARGUMENT_CHARS:,} characters"
            )
        self.parts.append(piece)


class StreamedTurn:
    """The state of one turn's stream; ``finish()`` gives the closing events.

    Args:
        request: the request being answered (for fallback tool-call ids).
        provider: ``"openai"`` or ``"anthropic"``, for messages.
    """

    __slots__ = ("_calls", "_provider", "_request", "_text_chars", "stop", "usage")

    def __init__(self, request: ModelRequest, provider: str) -> None:
        self._request = request
        self._provider = provider
        self._calls: dict[object, ToolCallParts] = {}
        self._text_chars = 0
        #: The stop reason, once the stream gave it.
        self.stop: Stop | None = None
        #: The usage so far (providers send it at the start, the end, or both).
        self.usage: Usage | None = None

    def text(self, piece: object) -> TextDelta | None:
        """The event for a text delta (None for an empty or non-text one)."""
        if not isinstance(piece, str) or not piece:
            return None
        self._text_chars += len(piece)
        if self._text_chars > MAX_TEXT_CHARS:
            raise ModelStreamError(
                f"{self._provider} answer longer than {MAX_TEXT_CHARS:,} characters"
            )
        return TextDelta(piece)

    def tool_call(self, key: object) -> ToolCallParts:
        """The parts of the tool call ``key`` (a stream index), made on first use."""
        parts = self._calls.get(key)
        if parts is None:
            if len(self._calls) >= MAX_TOOL_CALLS:
                raise ModelStreamError(f"more than {MAX_TOOL_CALLS} tool calls in one turn")
            parts = self._calls[key] = ToolCallParts()
        return parts

    @property
    def last_tool_call(self) -> ToolCallParts | None:
        """The tool call begun last, if any."""
        return next(reversed(self._calls.values()), None)

    def finish(self) -> list[ModelEvent]:
        """The tool calls, the usage and the stop, once the stream has ended.

        Raises:
            ModelStreamError: the stream ended without a stop reason, or a tool
                call's arguments are not a whole JSON object; no ToolCall is given.
        """
        if self.stop is None:
            raise ModelStreamError(
                f"{self._provider} stream ended before its stop reason: the turn failed"
            )
        events: list[ModelEvent] = []
        for index, parts in enumerate(self._calls.values()):
            if not parts.name:
                raise ModelStreamError(f"{self._provider} sent a tool call without a name")
            text = "".join(parts.parts)
            arguments = parse_arguments(text, parts.name)
            call_id = parts.id or fallback_call_id(self._request, index, parts.name, text)
            events.append(ToolCall(call_id, parts.name, arguments))
        if self.usage is not None:
            events.append(self.usage)
        stop = self.stop
        if events and isinstance(events[0], ToolCall) and stop.action is StopAction.FINISH:
            # Some OpenAI-compatible servers end a tool-calling turn with "stop".
            stop = Stop(StopAction.TOOLS, stop.reason)
        elif stop.action is StopAction.TOOLS and not self._calls:
            # Tools asked for, none given (e.g. the legacy function_call form).
            stop = Stop(StopAction.INCOMPLETE, stop.reason)
        events.append(stop)
        return events


__all__ = ["MAX_NAME_CHARS", "MAX_TOKEN_COUNT", "StreamedTurn", "ToolCallParts", "token_count"]
