"""The tool loop against the fake provider over both protocols (LLM-01, 02, 03, 06, 21).

Real parts: the official SDK clients made by the brain from its options,
real loopback HTTP to :class:`attn.testing.FakeProvider`, which validates
every request as the real API does; the runtime on the in-memory store and a
fake clock.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from typing import Any

from attn import Runtime
from attn.core.events import Event
from attn.models import COMPLETION_MARKER
from attn.testing import FakeProvider, FakeToolCall, Turn
from tests.brains.llm.loop_kit import Tools, fake_agent, send_soon

PROTOCOLS = ["openai", "anthropic"]


async def _logs(runtime: Runtime, agent_id: str, item_id: str) -> tuple[Any, list[Any]]:
    [activity] = await runtime.store.find_activities(agent_id, [item_id])
    return activity, await runtime.store.find_activity_logs(activity.id)


async def test_llm_01_chat_with_one_tool_call(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    fp.script(
        Turn(tool_calls=[FakeToolCall("add", {"a": 2, "b": 3})], usage=(30, 8)),
        Turn(text="2+3 is 5.", usage=(50, 6)),
    )
    agent, _brain, tools = await fake_agent(runtime, fp, protocol)
    deltas: list[str] = []
    reply = await agent.send_message("what is 2+3?", on_delta=deltas.append, timeout_s=30)
    assert reply.text == "2+3 is 5."
    assert "".join(deltas) == "2+3 is 5."
    assert len(deltas) > 1  # streamed, not sent whole
    assert tools.calls == [("add", {"a": 2, "b": 3})]
    requests = fp.requests
    assert [r.accepted for r in requests] == [True, True]
    # The second request carries the tool's result for the call of the first answer.
    assert '"result":5' in requests[1].raw.decode().replace(" ", "").replace("\\", "")
    activity, logs = await _logs(runtime, "calc", reply.item_id)
    kinds = [str(log.type) for log in logs]
    assert kinds.count("llm_request") == 2
    assert kinds.count("tool_start") == 1 and kinds.count("tool_end") == 1
    assert kinds.index("tool_start") < kinds.index("tool_end")
    assert (activity.total_tokens, activity.total_tools) == (30 + 8 + 50 + 6, 1)
    assert activity.success is True


async def test_llm_21_streamed_deltas_never_show_the_marker(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    # An agent message is not chat: its scenario asks for the marker, which arrives
    # split across deltas (chunks=7 cuts the text in 7 pieces).
    text = f"All done here. {COMPLETION_MARKER}"
    fp.script(Turn(text=text, chunks=7))
    agent, _brain, _tools = await fake_agent(runtime, fp, protocol)
    seen: list[Event] = []
    runtime.bus.subscribe(seen.append)
    deltas: list[str] = []
    reply = await agent.send_message(
        "report please",
        source_type="a2a_message",
        sender_id="boss",
        on_delta=deltas.append,
        timeout_s=30,
    )
    assert COMPLETION_MARKER not in reply.text and "<<" not in "".join(deltas)
    assert "".join(deltas).strip() == reply.text.strip() == "All done here."
    assert [e for e in seen if e.type == "agent:incomplete"] == []


def _messages(body: Any, protocol: str) -> list[Any]:
    """The conversation part of a request body, without the context block (last message)
    and, for Anthropic, without cache breakpoints (they move to the newest message)."""
    messages = json.loads(json.dumps(body["messages"]))
    if protocol == "openai":
        messages = messages[1:-1]  # the system message; the context block, sent last
    else:  # the context block is the last text block, in the last user message
        last = messages[-1]["content"]
        assert last[-1]["text"].startswith("# Context")
        del last[-1]
        if not last:
            messages.pop()
    text = json.dumps(messages, sort_keys=False)
    return json.loads(text.replace(', "cache_control": {"type": "ephemeral"}', ""))


async def test_llm_02_chat_waits_for_no_further_task_turn_and_the_task_resumes(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    fp.script(
        Turn(text="Step one.", tool_calls=[FakeToolCall("add", {"a": 1, "b": 1})]),
        Turn(text="Step two.", tool_calls=[FakeToolCall("add", {"a": 2, "b": 2})]),
        Turn(text="Step three.", tool_calls=[FakeToolCall("add", {"a": 3, "b": 3})]),
        Turn(text="Hello, person."),  # the chat's turn
        Turn(text=f"Task finished. {COMPLETION_MARKER}"),  # the task, resumed
    )
    chats: list[asyncio.Task[Any]] = []
    agent_box: list[Any] = []

    def on_call(name: str, arguments: Any) -> Awaitable[None] | None:
        if arguments != {"a": 3, "b": 3}:
            return None
        # The task is in its third model turn: a person's chat arrives.
        task, enqueued = send_soon(agent_box[0], "hi!")
        chats.append(task)
        return enqueued

    agent, _brain, _tools = await fake_agent(runtime, fp, protocol, tools=Tools(on_call))
    agent_box.append(agent)
    task_reply = await agent.send_message(
        "run the task", source_type="a2a_message", sender_id="boss", timeout_s=30
    )
    chat_reply = await chats[0]
    assert chat_reply.text == "Hello, person."
    assert task_reply.text.rstrip().endswith("Task finished.")
    bodies = [r.body for r in fp.requests]
    assert [r.accepted for r in fp.requests] == [True] * 5
    # Request 4 is the chat's: no task turn was asked for between the chat's arrival
    # and its answer. Request 5 resumes the task from its saved conversation, with
    # all three answered turns and their results, and asks for the next turn only.
    assert "hi!" in json.dumps(bodies[3]) and "run the task" not in json.dumps(bodies[3])
    task_history = _messages(bodies[4], protocol)
    assert _messages(bodies[2], protocol) == task_history[: len(_messages(bodies[2], protocol))]
    assert json.dumps(task_history).count("Step ") == 3
    assert fp.remaining == 0
    item = await runtime.store.get_item(task_reply.item_id)
    assert item is not None and (str(item.status), item.attempt) == ("completed", 1)
    decisions = [str(d.decision_type) for d in await runtime.store.find_decisions("calc", item.id)]
    assert "preempt" in decisions


async def test_llm_03_a_merge_appends_one_user_message_and_keeps_the_prefix(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    fp.script(
        Turn(text="Adding.", tool_calls=[FakeToolCall("add", {"a": 2, "b": 3})]),
        Turn(text="2+3 is 5, and 5+1 is 6."),
    )
    follow_ups: list[asyncio.Task[Any]] = []
    agent_box: list[Any] = []

    def on_call(name: str, arguments: Any) -> Awaitable[None]:
        task, enqueued = send_soon(agent_box[0], "and plus one?")
        follow_ups.append(task)
        return enqueued

    agent, _brain, _tools = await fake_agent(runtime, fp, protocol, tools=Tools(on_call))
    agent_box.append(agent)
    reply = await agent.send_message("what is 2+3?", timeout_s=30)
    merged = await follow_ups[0]
    assert reply.text.endswith("2+3 is 5, and 5+1 is 6.")
    assert merged.text == reply.text  # the follow-up was answered by the same reply
    first, second = (r.body for r in fp.requests)
    assert all(r.accepted for r in fp.requests)
    before, after = _messages(first, protocol), _messages(second, protocol)
    # Nothing sent before was edited: the first request's history is the start
    # of the second's, byte for byte, followed by the answer, the tool result and
    # ONE new user message holding the merged text.
    assert json.dumps(after[: len(before)]) == json.dumps(before)
    assert "and plus one?" in json.dumps(after[-1]) and "and plus one?" not in json.dumps(before)
    assert first["tools"] == second["tools"]
    assert (first.get("system"), first.get("model")) == (second.get("system"), second.get("model"))
    if protocol == "openai":
        assert first["messages"][0] == second["messages"][0]  # the system prompt


async def test_llm_06_the_turn_limit_ends_incomplete_keeping_the_text(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    fp.script(
        Turn(text="Let me add.", tool_calls=[FakeToolCall("add", {"a": 2, "b": 3})]),
        Turn(text="Adding again.", tool_calls=[FakeToolCall("add", {"a": 5, "b": 0})]),
        Turn(text="never asked for"),
    )
    seen: list[Event] = []
    runtime.bus.subscribe(seen.append)
    agent, _brain, tools = await fake_agent(runtime, fp, protocol, max_turns=2)
    reply = await agent.send_message(
        "keep adding", source_type="a2a_message", sender_id="boss", timeout_s=30
    )
    assert reply.text == "Let me add.\n\nAdding again."
    assert len(fp.requests) == 2 and fp.remaining == 1
    assert len(tools.calls) == 2
    incomplete = [e for e in seen if e.type == "agent:incomplete"]
    assert len(incomplete) == 1 and "2 model turns" in incomplete[0].data["reason"]
    item = await runtime.store.get_item(reply.item_id)
    assert item is not None and (str(item.status), item.attempt) == ("completed", 1)


async def test_llm_01_over_http_and_sse(fp: FakeProvider, protocol: str) -> None:
    """The agent is the brain's host (bound by the runtime), with a user tool, served over HTTP."""
    import httpx

    from attn.brains import build_brain
    from attn.cli.chat import iter_sse
    from attn.server.app import create_app
    from attn.server.testing import serve_app
    from attn.tools.user import Tools as UserTools
    from tests.brains.llm.loop_kit import fake_options

    added: list[tuple[float, float]] = []
    toolset = UserTools()

    @toolset.tool
    def add(a: float, b: float) -> float:
        """Add two numbers.

        Args:
            a: The first.
            b: The second.
        """
        added.append((a, b))
        return a + b

    fp.script(
        Turn(tool_calls=[FakeToolCall("add", {"a": 2, "b": 3})], usage=(30, 8)),
        Turn(text="2+3 is 5.", usage=(50, 6)),
        Turn(tool_calls=[FakeToolCall("add", {"a": 2, "b": 3})], usage=(30, 8)),
        Turn(text="Still 5.", usage=(50, 6)),
    )
    runtime = Runtime()
    await runtime.start()
    try:
        brain = build_brain("llm", fake_options(fp, protocol))
        await runtime.add_agent("calc", brain, tools=[toolset])
        async with (
            serve_app(create_app(runtime)) as url,
            httpx.AsyncClient(base_url=url, timeout=30) as http,
        ):
            answer = await http.post("/api/agents/calc/chat", json={"text": "what is 2+3?"})
            assert answer.status_code == 200, answer.text
            assert answer.json()["reply"] == "2+3 is 5."
            streamed = await http.post("/api/agents/calc/chat/stream", json={"text": "and again?"})
        events = list(iter_sse(iter(streamed.text.splitlines())))
        kinds = [e for e, _ in events]
        assert kinds[0] == "item" and kinds[-1] == "done" and "reset" not in kinds
        assert kinds.count("delta") > 1
        assert "".join(d["text"] for e, d in events if e == "delta") == "Still 5."
        assert events[-1][1]["reply"] == "Still 5."
        assert added == [(2, 3), (2, 3)]
        assert all(r.accepted for r in fp.requests) and len(fp.requests) == 4
        # The tool list offered is the agent's own (mailbox, time, memory) plus the user's.
        names = json.dumps(fp.requests[0].body.get("tools"))
        assert '"add"' in names
        item_id = answer.json()["mailboxItemId"]
        activity, logs = await _logs(runtime, "calc", item_id)
        kinds = [str(log.type) for log in logs]
        assert kinds.count("llm_request") == 2 and kinds.count("tool_start") == 1
        assert (activity.total_tokens, activity.total_tools) == (94, 1)
    finally:
        await runtime.close()


async def test_llm_02_a_chat_during_a_task_stream_preempts_it_at_once(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    """A person's chat arriving mid-stream is judged there: the task's stream is
    aborted (that turn was not answered, so it is asked again on resumption)."""
    fp.script(
        Turn(text="A long answer, word by word.", chunks=5, hang_after=2),
        Turn(text="Hello, person."),
        Turn(text=f"The task, answered whole. {COMPLETION_MARKER}"),
    )
    agent, _brain, _tools = await fake_agent(runtime, fp, protocol)
    task = asyncio.ensure_future(
        agent.send_message("long task", source_type="a2a_message", sender_id="boss", timeout_s=30)
    )
    stream = await fp.wait_streaming()
    chat, enqueued = send_soon(agent, "hi!")
    await enqueued
    await fp.wait_closed(stream)
    assert (await chat).text == "Hello, person."
    reply = await task
    assert reply.text.startswith("The task, answered whole.")
    first, _chat, resumed = (r.body for r in fp.requests)
    assert all(r.accepted for r in fp.requests)
    assert _messages(resumed, protocol) == _messages(first, protocol)  # asked again, unchanged
