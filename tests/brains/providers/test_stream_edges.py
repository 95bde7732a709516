"""Stream reading without a server: what OpenAI-compatible servers leave out, and
Anthropic's cache counts (the fake provider reports them as 0)."""

from __future__ import annotations

from types import SimpleNamespace as NS
from typing import Any

import pytest

from attn.brains.providers import Stop, StopAction, TextDelta, ToolCall, Usage
from attn.brains.providers.anthropic_messages import _AnthropicTurn
from attn.brains.providers.openai_chat import _take
from attn.brains.providers.streamed import StreamedTurn
from attn.errors import ModelStreamError
from tests.brains.providers.providerhelp import request


def chunk(
    *,
    content: str | None = None,
    calls: list[Any] | None = None,
    finish: str | None = None,
    usage: Any = None,
) -> Any:
    delta = NS(content=content, tool_calls=calls)
    return NS(choices=[NS(index=0, delta=delta, finish_reason=finish)], usage=usage)


def call(
    index: int | None, *, id: str | None = None, name: str | None = None, args: str | None = None
) -> Any:
    return NS(index=index, id=id, function=NS(name=name, arguments=args))


def run(chunks: list[Any]) -> list[object]:
    turn = StreamedTurn(request(), "openai")
    events: list[object] = []
    for item in chunks:
        events.extend(_take(turn, item))
    return [*events, *turn.finish()]


def test_missing_ids_indexes_and_usage_are_tolerated() -> None:
    events = run(
        [
            chunk(content="Hi"),
            chunk(calls=[call(None, name="search", args='{"q":')]),
            chunk(calls=[call(None, args='"x"}')]),
            chunk(finish="tool_calls"),
        ]
    )
    assert events[0] == TextDelta("Hi")
    tool = events[1]
    assert isinstance(tool, ToolCall)
    assert (tool.name, tool.arguments) == ("search", {"q": "x"})
    assert tool.id.startswith("call_")
    assert (
        run(
            [chunk(calls=[call(None, name="search", args='{"q":"x"}')]), chunk(finish="tool_calls")]
        )[0]
        == tool
    )  # the made-up id is deterministic
    assert events[-1] == Stop(StopAction.TOOLS, "tool_calls")
    assert not [event for event in events if isinstance(event, Usage)]


def test_a_tool_call_ending_with_stop_still_runs_its_tools() -> None:
    events = run([chunk(calls=[call(0, id="c1", name="search", args="{}")], finish="stop")])
    assert events == [ToolCall("c1", "search", {}), Stop(StopAction.TOOLS, "stop")]


def test_tools_asked_for_but_none_given_is_incomplete() -> None:
    assert run([chunk(content="x", finish="tool_calls")])[-1] == Stop(
        StopAction.INCOMPLETE, "tool_calls"
    )


def test_repeated_names_and_usage_with_cached_tokens() -> None:
    usage = NS(prompt_tokens=100, completion_tokens=9, prompt_tokens_details=NS(cached_tokens=64))
    events = run(
        [
            chunk(calls=[call(0, id="c1", name="search", args='{"a"')]),
            chunk(calls=[call(0, name="search", args=":1}")]),
            chunk(finish="tool_calls"),
            NS(choices=[], usage=usage),
        ]
    )
    assert events[0] == ToolCall("c1", "search", {"a": 1})
    assert events[1] == Usage(input_tokens=100, output_tokens=9, cache_read_tokens=64)


@pytest.mark.parametrize(
    "args", ['{"a": NaN}', '{"a": 1e999}', "[1, 2]", '{"a": ' + "9" * 30 + "}", "{" * 40 + "}" * 40]
)
def test_arguments_outside_attns_json_limits_fail_the_turn(args: str) -> None:
    with pytest.raises(ModelStreamError):
        run([chunk(calls=[call(0, id="c", name="t", args=args)], finish="tool_calls")])


def test_no_finish_reason_fails_the_turn() -> None:
    with pytest.raises(ModelStreamError, match="before its stop reason"):
        run([chunk(content="partial")])


def test_silly_token_counts_read_as_zero() -> None:
    usage = NS(prompt_tokens=-5, completion_tokens=10**20, prompt_tokens_details=None)
    events = run([chunk(finish="stop", usage=usage)])
    assert events[0] == Usage()


def test_anthropic_cache_counts_from_the_sdks_own_event_types() -> None:
    import anthropic.types as types

    turn = _AnthropicTurn(request())
    raw = [
        types.RawMessageStartEvent.model_validate(
            {
                "type": "message_start",
                "message": {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "model": "m",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": 20,
                        "output_tokens": 1,
                        "cache_read_input_tokens": 900,
                        "cache_creation_input_tokens": 300,
                    },
                },
            }
        ),
        types.RawContentBlockStartEvent.model_validate(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": "", "citations": None},
            }
        ),
        types.RawContentBlockDeltaEvent.model_validate(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "ok"},
            }
        ),
        types.RawMessageDeltaEvent.model_validate(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 7},
            }
        ),
        types.RawMessageStopEvent.model_validate({"type": "message_stop"}),
    ]
    events = [event for item in raw for event in turn.take(item)]
    events += turn.finish()
    assert events == [
        TextDelta("ok"),
        Usage(input_tokens=20, output_tokens=7, cache_read_tokens=900, cache_write_tokens=300),
        Stop(StopAction.FINISH, "end_turn"),
    ]


def test_anthropic_without_message_stop_fails_the_turn() -> None:
    turn = _AnthropicTurn(request())
    turn.take(NS(type="message_delta", delta=NS(stop_reason="end_turn"), usage=None))
    with pytest.raises(ModelStreamError, match="message_stop"):
        turn.finish()


def test_anthropic_tool_input_given_whole_at_block_start() -> None:
    turn = _AnthropicTurn(request())
    block = NS(type="tool_use", id="toolu_1", name="search", input={"q": "x"})
    turn.take(NS(type="content_block_start", index=1, content_block=block))
    turn.take(NS(type="message_delta", delta=NS(stop_reason="tool_use"), usage=None))
    turn.take(NS(type="message_stop"))
    assert turn.finish() == [
        ToolCall("toolu_1", "search", {"q": "x"}),
        Stop(StopAction.TOOLS, "tool_use"),
    ]
