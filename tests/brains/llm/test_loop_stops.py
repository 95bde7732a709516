"""What each stop action does, the completion marker, and tool errors (000 §20; LLM-10, 21, 40).

A scripted model client gives exact control of the events of each turn.
"""

from __future__ import annotations

import json
from typing import Any

from attn import Runtime
from attn.brains.providers.base import Stop, StopAction, TextDelta, ToolCall, Usage
from attn.core.events import Event
from attn.models import COMPLETION_MARKER
from tests.brains.llm.loop_kit import ScriptedClient, llm_agent, text_turn, tool_turn


def _events(runtime: Runtime) -> list[Event]:
    seen: list[Event] = []
    runtime.bus.subscribe(seen.append)
    return seen


async def _task(agent: Any, text: str = "work") -> Any:
    return await agent.send_message(text, source_type="a2a_message", sender_id="boss", timeout_s=30)


async def test_an_incomplete_stop_keeps_the_partial_text_with_one_event(runtime: Runtime) -> None:
    seen = _events(runtime)
    client = ScriptedClient(
        [text_turn("Half of the ans", reason="max_tokens", action=StopAction.INCOMPLETE)]
    )
    agent, _brain, _tools = await llm_agent(runtime, client)
    reply = await _task(agent)
    assert reply.text == "Half of the ans"
    incomplete = [e for e in seen if e.type == "agent:incomplete"]
    assert len(incomplete) == 1 and "max_tokens" in incomplete[0].data["reason"]
    item = await runtime.store.get_item(reply.item_id)
    assert item is not None and (str(item.status), item.attempt) == ("completed", 1)


async def test_a_continue_stop_asks_again_and_joins_the_text(runtime: Runtime) -> None:
    client = ScriptedClient(
        [
            text_turn("First part.", reason="pause_turn", action=StopAction.CONTINUE),
            text_turn(f"Second part. {COMPLETION_MARKER}"),
        ]
    )
    agent, _brain, _tools = await llm_agent(runtime, client)
    deltas: list[str] = []
    reply = await agent.send_message(
        "work", source_type="a2a_message", sender_id="boss", on_delta=deltas.append, timeout_s=30
    )
    assert reply.text == "First part.\n\nSecond part. "
    assert "".join(deltas) == reply.text
    # The second request carries the first answer as it was, then asks again.
    assert client.requests[1].messages[:2] == [
        client.requests[0].messages[0],
        {"role": "assistant", "content": "First part."},
    ]


async def test_a_missing_marker_is_one_incomplete_event_and_chat_needs_none(
    runtime: Runtime,
) -> None:
    seen = _events(runtime)
    client = ScriptedClient([text_turn("Done, no marker."), text_turn("Hi, person.")])
    agent, _brain, _tools = await llm_agent(runtime, client)
    task = await _task(agent)
    chat = await agent.send_message("hello", timeout_s=30)
    assert (task.text, chat.text) == ("Done, no marker.", "Hi, person.")
    incomplete = [e for e in seen if e.type == "agent:incomplete"]
    assert [e.data["mailboxItemId"] for e in incomplete] == [task.item_id]
    assert "marker" in incomplete[0].data["reason"]


async def test_a_marker_split_across_deltas_never_shows(runtime: Runtime) -> None:
    seen = _events(runtime)
    half = len(COMPLETION_MARKER) // 2
    client = ScriptedClient(
        [
            [
                TextDelta("All good. "),
                TextDelta(COMPLETION_MARKER[:half]),
                TextDelta(COMPLETION_MARKER[half:]),
                Usage(1, 1),
                Stop(StopAction.FINISH, "stop"),
            ]
        ]
    )
    agent, _brain, _tools = await llm_agent(runtime, client)
    deltas: list[str] = []
    reply = await agent.send_message(
        "work", source_type="a2a_message", sender_id="boss", on_delta=deltas.append, timeout_s=30
    )
    assert deltas and all("<" not in d and ">" not in d for d in deltas)
    assert "".join(deltas) == reply.text == "All good. "
    assert [e for e in seen if e.type == "agent:incomplete"] == []


async def test_a_tool_error_is_an_event_a_log_line_and_the_models_result(
    runtime: Runtime,
) -> None:
    seen = _events(runtime)
    client = ScriptedClient(
        [tool_turn("c1", name="subtract", arguments={"a": 1}), text_turn("Sorry, no such tool.")]
    )
    agent, _brain, _tools = await llm_agent(runtime, client)
    reply = await agent.send_message("5-1?", timeout_s=30)
    assert reply.text == "Sorry, no such tool."
    errors = [e for e in seen if e.type == "agent:tool-error"]
    assert len(errors) == 1
    assert errors[0].data == {
        "mailboxItemId": reply.item_id,
        "sourceType": "human_chat",
        "tool": "subtract",
        "error": "unknown_tool",
        "message": "no tool 'subtract'",
    }
    result = client.requests[1].messages[-1]
    assert result["role"] == "tool" and result["isError"] is True
    assert json.loads(result["content"])["error"] == "unknown_tool"
    [activity] = await runtime.store.find_activities(agent.name, [reply.item_id])
    logs = await runtime.store.find_activity_logs(activity.id)
    assert [log.content for log in logs if str(log.type) == "error"] == [
        "tool subtract failed: unknown_tool: no tool 'subtract'"
    ]


async def test_tools_run_only_when_the_model_stopped_for_them(runtime: Runtime) -> None:
    # A tool call in a turn that ends with "stop" (not "tool_calls") is not run.
    client = ScriptedClient(
        [[ToolCall("c1", "add", {"a": 1, "b": 1}), Usage(1, 1), Stop(StopAction.FINISH, "stop")]]
    )
    agent, _brain, tools = await llm_agent(runtime, client)
    await agent.send_message("hi", timeout_s=30)
    assert tools.calls == []


async def test_arguments_too_deep_to_store_are_refused_without_running(runtime: Runtime) -> None:
    deep: Any = {"a": 1}
    for _ in range(40):
        deep = {"x": deep}
    client = ScriptedClient([tool_turn("c1", arguments=deep), tool_turn("c2"), text_turn("5.")])
    agent, _brain, tools = await llm_agent(runtime, client)
    reply = await agent.send_message("2+3?", timeout_s=30)
    assert reply.text == "5."
    assert tools.calls == [("add", {"a": 2, "b": 3})]  # the deep call never ran
    refused = client.requests[1].messages[-1]
    assert json.loads(refused["content"])["error"] == "invalid_arguments"
    item = await runtime.store.get_item(reply.item_id)
    assert item is not None and item.session is not None  # the session was stored
