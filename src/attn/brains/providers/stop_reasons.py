"""What each provider's stop reasons mean for the tool loop (LLM-10).

One table per provider maps every stop reason value of its installed SDK to a
:class:`~attn.brains.providers.base.StopAction`. A reason missing from the
table (a newer API, an OpenAI-compatible server's own word) is
:attr:`StopAction.INCOMPLETE`: the loop stops with an incomplete event rather
than guess. ``tests/brains/providers/test_stop_reasons.py`` enumerates the
SDKs' values, so a value added by an SDK upgrade fails until it is placed here.

Spec: issue 12 point 1; acceptance LLM-10.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from attn.brains.providers.base import Stop, StopAction

#: Anthropic Messages ``stop_reason`` (``anthropic.types.StopReason``).
ANTHROPIC_STOP_ACTIONS: Mapping[str, StopAction] = MappingProxyType(
    {
        "end_turn": StopAction.FINISH,
        "stop_sequence": StopAction.FINISH,
        "tool_use": StopAction.TOOLS,
        # A server tool's long turn paused: send the conversation again as is.
        "pause_turn": StopAction.CONTINUE,
        "max_tokens": StopAction.INCOMPLETE,
        "refusal": StopAction.INCOMPLETE,
        "model_context_window_exceeded": StopAction.INCOMPLETE,
    }
)

#: OpenAI Chat Completions ``finish_reason`` (``ChatCompletionChunk.choices[].finish_reason``).
OPENAI_STOP_ACTIONS: Mapping[str, StopAction] = MappingProxyType(
    {
        "stop": StopAction.FINISH,
        "tool_calls": StopAction.TOOLS,
        # The deprecated single-function form; attn sends tools, but some
        # OpenAI-compatible servers still answer with it.
        "function_call": StopAction.TOOLS,
        "length": StopAction.INCOMPLETE,
        "content_filter": StopAction.INCOMPLETE,
    }
)

#: Longest stop reason kept in a :class:`Stop` (a server could send anything).
MAX_REASON_CHARS = 64


def anthropic_stop(reason: str) -> Stop:
    """The :class:`Stop` for an Anthropic ``stop_reason``; unknown values are INCOMPLETE."""
    return _stop(ANTHROPIC_STOP_ACTIONS, reason)


def openai_stop(reason: str) -> Stop:
    """The :class:`Stop` for an OpenAI ``finish_reason``; unknown values are INCOMPLETE."""
    return _stop(OPENAI_STOP_ACTIONS, reason)


def _stop(table: Mapping[str, StopAction], reason: str) -> Stop:
    return Stop(table.get(reason, StopAction.INCOMPLETE), reason[:MAX_REASON_CHARS])


__all__ = [
    "ANTHROPIC_STOP_ACTIONS",
    "MAX_REASON_CHARS",
    "OPENAI_STOP_ACTIONS",
    "anthropic_stop",
    "openai_stop",
]
