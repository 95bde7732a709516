"""LLM-10: every stop reason of each installed SDK maps to an action; unknown stops."""

from __future__ import annotations

import typing

import pytest

from attn.brains.providers import (
    ANTHROPIC_STOP_ACTIONS,
    OPENAI_STOP_ACTIONS,
    Stop,
    StopAction,
    anthropic_stop,
    openai_stop,
)


def _literal_values(annotation: object) -> set[str]:
    """The strings of a ``Literal`` (inside ``Optional`` too)."""
    values: set[str] = set()
    for arg in typing.get_args(annotation):
        if isinstance(arg, str):
            values.add(arg)
        elif arg is not type(None):
            values |= _literal_values(arg)
    return values


def anthropic_reasons() -> set[str]:
    import anthropic.types

    return _literal_values(anthropic.types.StopReason)


def openai_reasons() -> set[str]:
    from openai.types.chat.chat_completion_chunk import Choice

    return _literal_values(Choice.model_fields["finish_reason"].annotation)


def test_llm_10_the_sdks_have_stop_reasons_to_enumerate() -> None:
    # Guards the enumeration itself: an empty set would make the tests below vacuous.
    assert {"end_turn", "tool_use", "max_tokens"} <= anthropic_reasons()
    assert {"stop", "tool_calls", "length"} <= openai_reasons()


def test_llm_10_every_anthropic_stop_reason_is_in_the_table() -> None:
    assert anthropic_reasons() == set(ANTHROPIC_STOP_ACTIONS)


def test_llm_10_every_openai_finish_reason_is_in_the_table() -> None:
    assert openai_reasons() == set(OPENAI_STOP_ACTIONS)


@pytest.mark.parametrize(
    ("reason", "action"),
    [
        ("end_turn", StopAction.FINISH),
        ("stop_sequence", StopAction.FINISH),
        ("tool_use", StopAction.TOOLS),
        ("pause_turn", StopAction.CONTINUE),
        ("max_tokens", StopAction.INCOMPLETE),
        ("refusal", StopAction.INCOMPLETE),
        ("model_context_window_exceeded", StopAction.INCOMPLETE),
    ],
)
def test_llm_10_anthropic_actions(reason: str, action: StopAction) -> None:
    assert anthropic_stop(reason) == Stop(action, reason)


@pytest.mark.parametrize(
    ("reason", "action"),
    [
        ("stop", StopAction.FINISH),
        ("tool_calls", StopAction.TOOLS),
        ("length", StopAction.INCOMPLETE),
        ("content_filter", StopAction.INCOMPLETE),
    ],
)
def test_llm_10_openai_actions(reason: str, action: StopAction) -> None:
    assert openai_stop(reason) == Stop(action, reason)


def test_llm_10_an_unknown_reason_stops_incomplete_and_is_kept_short() -> None:
    assert anthropic_stop("brand_new_reason") == Stop(StopAction.INCOMPLETE, "brand_new_reason")
    assert openai_stop("eos").action is StopAction.INCOMPLETE
    assert len(openai_stop("x" * 10_000).reason) == 64
