"""The prompt as the provider receives it, from a real agent (LLM-20, LLM-22).

The agent is hosted by the runtime, which binds it as the brain's host (its
real mailbox, working memory and long-term memory, and attn's tools), and
talks to :class:`attn.testing.FakeProvider` over loopback HTTP with the
official SDKs, on both protocols.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from attn import AgentConfig, Runtime
from attn.brains import build_brain
from attn.models import COMPLETION_MARKER
from attn.testing import FakeClock, FakeProvider, FakeToolCall, ReceivedRequest, Turn
from tests.brains.llm.loop_kit import fake_options


def _system(request: ReceivedRequest) -> str:
    body = request.body or {}
    if request.protocol == "anthropic":
        return "".join(block["text"] for block in body["system"])
    return str(body["messages"][0]["content"])


def _texts(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


def _context(request: ReceivedRequest) -> str:
    """The changing context block: the request's last text (OpenAI: the last message;
    Anthropic: the last block, which joins the last user message)."""
    last = (request.body or {})["messages"][-1]
    content = last["content"]
    return str(content if isinstance(content, str) else content[-1]["text"])


def _history(request: ReceivedRequest) -> list[Any]:
    """The messages without the context block, Anthropic's cache marks left out
    (they move to the newest message, and do not change what is cached)."""
    messages = json.loads(json.dumps((request.body or {})["messages"]))
    last = messages[-1]
    if isinstance(last["content"], str):
        messages.pop()
    else:
        last["content"].pop()
        if not last["content"]:
            messages.pop()
    for message in messages:
        for block in message["content"] if isinstance(message["content"], list) else []:
            block.pop("cache_control", None)
    return list(messages)


async def _agent(runtime: Runtime, fp: FakeProvider, protocol: str, name: str = "scout") -> Any:
    brain = build_brain("llm", fake_options(fp, protocol))
    config = AgentConfig(coalesce_window_ms=0)
    return await runtime.add_agent(
        name, brain, config, description="reads the team's mail", start=False
    )


async def test_llm_20_the_request_holds_identity_scenario_queue_and_memory(
    runtime: Runtime, clock: FakeClock, fp: FakeProvider, protocol: str
) -> None:
    agent = await _agent(runtime, fp, protocol)
    waiting = [
        await agent.enqueue("system_event", {"content": f"background job {n} finished"})
        for n in range(40)
    ]
    agent.working_memory.update("plan", "ship the release on Friday")
    await clock.advance(150)
    fp.script(Turn(text=f"Looked at the comment. {COMPLETION_MARKER}"))
    comment = await agent.enqueue(
        "task_comment",
        {"content": "Why is the build red?", "taskId": "tsk_1"},
        0,
        {"senderId": "dana", "senderName": "Dana"},
    )
    agent.start()
    [request] = await fp.wait_requests(1)
    system = _system(request)
    assert "scout" in system and "reads the team's mail" in system
    assert COMPLETION_MARKER in system  # a comment is not chat: the marker is asked for
    assert "task_get" in system or "comment" in system.lower()  # context-first protocol
    context = _context(request)
    assert "40 items waiting" in context
    for item_id in waiting:  # the whole queue, never cut to a few
        assert item_id in context
    assert comment not in context  # the item in focus is the conversation, not the queue
    assert "ship the release on Friday" in context
    assert "plan (updated 2 min ago)" in context  # each entry with its age
    first = _texts(_history(request)[-1])
    assert comment in first and "Why is the build red?" in first and "Dana" in first


async def test_llm_22_only_appended_content_differs_between_requests(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    agent = await _agent(runtime, fp, protocol)
    fp.script(
        Turn(tool_calls=[FakeToolCall("check_mailbox", {})]),
        Turn(tool_calls=[FakeToolCall("update_working_memory", {"key": "k", "content": "v"})]),
        Turn(text=f"Done. {COMPLETION_MARKER}"),
    )
    agent.start()
    reply = await agent.send_message(
        "tidy up", source_type="a2a_message", sender_id="peer", timeout_s=30
    )
    assert reply.text.strip() == "Done."  # the blank before the removed marker stays
    requests = fp.requests
    assert [r.accepted for r in requests] == [True, True, True]
    [activity] = await runtime.store.find_activities("scout", [reply.item_id])
    logs = await runtime.store.find_activity_logs(activity.id)
    # The answer of non-chat work is kept where people look: the activity log.
    assert [log.content for log in logs if str(log.type) == "text"] == [reply.text]
    for before, after in itertools.pairwise(requests):
        stable = _history(before)
        # The stable prefix (tools, system, history) repeats byte for byte...
        assert json.dumps(_history(after)[: len(stable)]) == json.dumps(stable)
        assert json.dumps(after.body["tools"]) == json.dumps(before.body["tools"])  # type: ignore[index]
        assert _system(after) == _system(before)
        # ...and only the context block, last, changes (it names the new working memory).
    assert "- k (updated just now): v" in _context(requests[2])
    if protocol == "anthropic":
        body = requests[1].body or {}
        marks = [b for b in body["system"] if "cache_control" in b]
        marks += [t for t in body["tools"] if "cache_control" in t]
        marks += [
            block
            for message in body["messages"][:-1]
            for block in (message["content"] if isinstance(message["content"], list) else [])
            if isinstance(block, dict) and "cache_control" in block
        ]
        assert 2 <= len(marks) <= 4  # breakpoints on the stable prefix only
        last = body["messages"][-1]["content"]
        assert "cache_control" not in last[-1]  # never on the context block


def _tool_names(request: ReceivedRequest) -> set[str]:
    tools = (request.body or {}).get("tools") or []
    return {t["function"]["name"] if "function" in t else t["name"] for t in tools}


@pytest.mark.parametrize("shell", [False, True])
async def test_llm_41_the_work_loop_offers_no_shell_and_no_deliberation_tools(
    runtime: Runtime, fp: FakeProvider, protocol: str, shell: bool, tmp_path: Any
) -> None:
    """``background_exec`` runs commands on the host: offered only when the option says so;
    ``complete_deliberation`` and ``prioritize_mailbox_item`` belong to deliberation."""
    brain = build_brain("llm", fake_options(fp, protocol, background_exec=shell))
    agent = await runtime.add_agent("worker", brain, AgentConfig(coalesce_window_ms=0))
    marker_file = tmp_path / "ran"
    fp.script(
        Turn(tool_calls=[FakeToolCall("background_exec", {"command": f"touch {marker_file}"})]),
        Turn(tool_calls=[FakeToolCall("complete_deliberation", {"process_item_id": "x"})]),
        Turn(text="ok"),
    )
    await agent.send_message("hello", timeout_s=30)
    requests = fp.requests
    names = _tool_names(requests[0])
    assert {"check_mailbox", "update_working_memory", "memory_search"} <= names
    assert ("background_exec" in names) is shell
    assert not names & {"complete_deliberation", "prioritize_mailbox_item"}
    refused = requests[2].raw.decode()
    assert "is not offered to you here" in refused  # complete_deliberation, always
    if not shell:
        assert "is not offered to you here" in requests[1].raw.decode()
        assert not marker_file.exists()
