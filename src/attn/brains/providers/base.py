"""The model interface: stream one model turn as provider-neutral events.

A :class:`ModelClient` takes one :class:`ModelRequest` (system prompt,
conversation, the changing context block, tools, settings) and yields
:class:`ModelEvent` s as the provider streams them: text deltas, complete tool
calls (their JSON arguments parsed), usage, and last one :class:`Stop`.
Cancelling the task that iterates the stream closes the HTTP connection at
once (LLM-04). A failed turn raises :class:`~attn.errors.ModelError`
(``retryable`` says whether trying the turn again may help); a stream cut
before its stop reason, or a tool call whose arguments are not a whole JSON
object, raises :class:`~attn.errors.ModelStreamError` and yields no tool call
(LLM-12).

The conversation is a list of neutral messages (plain JSON, so it can be
saved in an item's session):

* ``{"role": "user", "content": str}``
* ``{"role": "assistant", "content": str, "toolCalls": [{"id", "name", "arguments"}]}``
  (``toolCalls`` may be missing or empty; ``arguments`` is a JSON object)
* ``{"role": "tool", "toolCallId": str, "name": str, "content": str, "isError": bool}``

Each provider converts them to its wire format (OpenAI Chat Completions
``tool`` messages; Anthropic ``tool_use`` / ``tool_result`` blocks).

Spec: 000 §4 (cancelActiveStream), issue 12 point 1; acceptance LLM-10..12.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from attn.types import JSON


class StopAction(StrEnum):
    """What the tool loop does with a provider's stop reason (LLM-10)."""

    #: The model asked for tools: run them, then ask again.
    TOOLS = "tools"
    #: The model paused mid-answer (e.g. Anthropic ``pause_turn``): ask again as is.
    CONTINUE = "continue"
    #: The answer is complete.
    FINISH = "finish"
    #: The answer was cut or refused (``max_tokens``, ``refusal``, an unknown
    #: reason): stop with an incomplete event, keeping the partial text.
    INCOMPLETE = "incomplete"


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool offered to the model: its name, description and JSON-schema parameters."""

    name: str
    description: str
    parameters: JSON


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One model turn.

    Attributes:
        model: the provider's model name.
        system: the stable system prompt (identity, scenario instructions).
        messages: the conversation so far, neutral messages (see the module doc).
        context: the changing block (queue, working memory, memories found),
            sent after ``messages`` as a last user message, so the bytes before
            it stay the same between turns (LLM-22). None: no block.
        tools: the tools offered, in a stable order.
        max_tokens: most output tokens of the turn (1 .. 1,000,000).
        temperature: 0 .. 2, None for the provider's default.
        cache: mark the stable prefix for prompt caching (Anthropic breakpoints).
    """

    model: str
    system: str
    messages: list[JSON]
    tools: list[ToolSpec] = field(default_factory=list)
    context: str | None = None
    max_tokens: int = 4096
    temperature: float | None = None
    cache: bool = True


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the model's answer text, as streamed."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A complete tool call: its provider id, the tool's name and parsed arguments."""

    id: str
    name: str
    arguments: JSON


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens the provider reported for the turn (cache counts when it reports them)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class Stop:
    """The last event of a turn: the provider's own stop reason and what it means."""

    action: StopAction
    reason: str


ModelEvent = TextDelta | ToolCall | Usage | Stop


class ModelClient(Protocol):
    """Streams model turns from one provider (OpenAI-compatible or Anthropic)."""

    #: ``"openai"`` or ``"anthropic"``.
    provider: str

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Stream one turn; see the module docstring for events and errors.

        Raises:
            ModelError: the provider refused or failed (``retryable`` says if
                the turn may be tried again; ``retry_after_s`` when it said).
            ModelStreamError: the stream was cut or a tool call's JSON was bad.
        """
        ...

    async def aclose(self) -> None:
        """Close the HTTP client."""
        ...


__all__ = [
    "ModelClient",
    "ModelEvent",
    "ModelRequest",
    "Stop",
    "StopAction",
    "TextDelta",
    "ToolCall",
    "ToolSpec",
    "Usage",
]
