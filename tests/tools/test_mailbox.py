"""Mailbox tools for brains (acceptance COAL-30..33)."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

import pytest

from attn import (
    Agent,
    AgentConfig,
    Focus,
    InvalidInput,
    InvalidPriority,
    InvalidTransition,
    ItemNotFound,
    ItemStatus,
    MailboxItem,
    ProtectedItem,
    Reply,
    Runtime,
)
from attn.core.deliberation import DeliberationResult, MemoryUpdate
from attn.store.base import ItemQuery
from attn.testing import FakeClock, settle
from attn.tools import MailboxToolset
from tests.core.conftest import Recorder

#: The burst window waits on the fake clock; these tests are about the tools.
NO_WINDOW = AgentConfig(coalesce_window_ms=0)


async def _stopped(runtime: Runtime, name: str = "a") -> Agent:
    return await runtime.add_agent(name, Recorder(), NO_WINDOW, start=False)


async def _snapshot(runtime: Runtime, agent: Agent) -> Any:
    """Everything a tool could change: stored items and decisions, queue, memory."""
    items = await runtime.store.find_items(ItemQuery(agent.name, limit=1000))
    decisions = await runtime.store.find_decisions(agent.name, None, 1000)
    return (
        [
            (i.id, i.status, i.priority, i.deferred_until, i.reason, json.dumps(i.payload))
            for i in items
        ],
        [d.id for d in decisions],
        [(i.id, i.priority) for i in agent.mailbox.queued_items()],
        [i.id for i in agent.mailbox.deferred_items()],
        agent.working_memory.to_list(),
    )


async def _decisions(runtime: Runtime, agent: Agent, item_id: str) -> list[tuple[str, str]]:
    found = await runtime.store.find_decisions(agent.name, item_id)
    return [(str(d.decision_type), d.reasoning) for d in reversed(found)]


# ------------------------------------------------------------------ COAL-30


async def test_coal_30_check_mailbox_reports_and_changes_nothing(runtime: Runtime) -> None:
    gate = asyncio.Event()

    async def wait(item: MailboxItem, focus: Focus) -> Reply:
        await gate.wait()
        return Reply("ok")

    agent = await runtime.add_agent("a", Recorder(wait), NO_WINDOW)
    chat = await agent.enqueue(
        "human_chat",
        {"content": "how is T1 going?"},
        metadata={"senderId": "u1", "senderName": "Alice"},
    )
    await settle()
    assert agent.focus_item is not None and agent.focus_item.id == chat
    low = await agent.enqueue("heartbeat", {})
    mid = await agent.enqueue(
        "a2a_message", {"content": "please review " + "x" * 400, "taskId": "T1"}
    )
    later = await agent.enqueue("a2a_message", {"content": "ping"})
    await MailboxToolset(agent).defer_mailbox_item(later, "not now")
    before = await _snapshot(runtime, agent)

    seen = await MailboxToolset(agent).check_mailbox()

    assert await _snapshot(runtime, agent) == before
    assert seen["agentId"] == "a" and seen["state"] == "focused"
    assert seen["depth"] == 2 and seen["deferredCount"] == 1
    assert seen["currentFocus"]["id"] == chat
    assert seen["currentFocus"]["protected"] is True
    assert seen["currentFocus"]["sender"] == "Alice"
    assert [i["id"] for i in seen["queued"]] == [mid, low]  # claim order
    brief = seen["queued"][0]
    assert brief["sourceType"] == "a2a_message" and brief["priority"] == 2
    assert brief["taskId"] == "T1" and brief["status"] == "queued"
    assert len(brief["preview"]) == 300 and brief["preview"].endswith("…")
    assert [i["id"] for i in seen["deferred"]] == [later]
    assert [(d["decisionType"], d["itemId"]) for d in seen["recentDecisions"]][:2] == [
        ("defer", later),
        ("pick", chat),
    ]
    json.dumps(seen)
    assert [i["id"] for i in (await MailboxToolset(agent).check_mailbox(limit=1))["queued"]] == [
        mid
    ]
    for bad in (0, 1001, True, "5", 2.0):
        with pytest.raises(InvalidInput, match="limit"):
            await MailboxToolset(agent).check_mailbox(limit=bad)  # type: ignore[arg-type]
    gate.set()
    await runtime.run_until_idle()


async def test_coal_30_check_mailbox_when_idle(runtime: Runtime) -> None:
    agent = await _stopped(runtime)
    seen = await MailboxToolset(agent).check_mailbox()
    assert seen == {
        "agentId": "a",
        "state": "idle",
        "depth": 0,
        "deferredCount": 0,
        "currentFocus": None,
        "queued": [],
        "deferred": [],
        "recentDecisions": [],
    }


# ------------------------------------------------------------------ COAL-31


async def test_coal_31_defer_sets_deferred_until_and_records_a_decision(
    runtime: Runtime, clock: FakeClock
) -> None:
    agent = await _stopped(runtime)
    first = await agent.enqueue("a2a_message", {"content": "one"})
    second = await agent.enqueue("a2a_message", {"content": "two"})
    tools = MailboxToolset(agent)

    result = await tools.defer_mailbox_item(first, "waiting for the build", delay_minutes=15)

    until = clock.now() + timedelta(minutes=15)
    assert result == {
        "itemId": first,
        "status": "deferred",
        "deferredUntil": until.isoformat(),
        "reason": "waiting for the build",
    }
    assert [i.id for i in agent.mailbox.queued_items()] == [second]
    stored = await runtime.store.get_item(first)
    assert stored is not None and stored.status == ItemStatus.DEFERRED
    assert stored.deferred_until == until and stored.reason == "waiting for the build"
    assert await _decisions(runtime, agent, first) == [("defer", "waiting for the build")]
    # No delay: back at the next idle cycle.
    result = await tools.defer_mailbox_item(second, "later", None)
    assert result["deferredUntil"] is None
    assert agent.mailbox.depth == 0


async def test_coal_31_deferred_item_resurfaces_after_the_delay(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Recorder()
    agent = await runtime.add_agent("a", brain, NO_WINDOW, start=False)
    item = await agent.enqueue("a2a_message", {"content": "later"})
    await MailboxToolset(agent).defer_mailbox_item(item, "after lunch", delay_minutes=1.5)
    agent.start()
    await runtime.run_until_idle()
    assert brain.calls == []
    await clock.advance(89)
    assert brain.calls == []
    await clock.advance(1)
    await runtime.run_until_idle()
    assert brain.ids == [item]


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ({"item_id": "", "reason": "r"}, InvalidInput, "item_id must be a non-blank"),
        ({"item_id": None, "reason": "r"}, InvalidInput, "item_id must be a non-blank"),
        ({"item_id": "ITEM", "reason": ""}, InvalidInput, "reason must be a non-blank"),
        ({"item_id": "ITEM", "reason": "   "}, InvalidInput, "reason must be a non-blank"),
        ({"item_id": "ITEM", "reason": None}, InvalidInput, "reason must be a non-blank"),
        (
            {"item_id": "ITEM", "reason": "r" * 2001},
            InvalidInput,
            "reason must be at most 2,000 characters, got 2,001",
        ),
        ({"item_id": "ITEM", "reason": "r", "delay_minutes": 0}, InvalidInput, "more than 0"),
        ({"item_id": "ITEM", "reason": "r", "delay_minutes": -5}, InvalidInput, "more than 0"),
        ({"item_id": "ITEM", "reason": "r", "delay_minutes": 43_201}, InvalidInput, "30 days"),
        ({"item_id": "ITEM", "reason": "r", "delay_minutes": "5"}, InvalidInput, "number"),
        ({"item_id": "ITEM", "reason": "r", "delay_minutes": True}, InvalidInput, "number"),
        ({"item_id": "ITEM", "reason": "r", "delay_minutes": float("nan")}, InvalidInput, "number"),
        ({"item_id": "mbx_nope", "reason": "r"}, ItemNotFound, "'mbx_nope'"),
    ],
)
async def test_coal_31_defer_rejects_bad_arguments_and_changes_nothing(
    runtime: Runtime, args: dict[str, Any], error: type[Exception], message: str
) -> None:
    agent = await _stopped(runtime)
    item = await agent.enqueue("a2a_message", {"content": "x"})
    args = {k: (item if v == "ITEM" else v) for k, v in args.items()}
    before = await _snapshot(runtime, agent)
    with pytest.raises(error, match=message):
        await MailboxToolset(agent).defer_mailbox_item(**args)
    assert await _snapshot(runtime, agent) == before


async def test_coal_31_defer_needs_an_id_and_a_reason_through_the_tool_call(
    runtime: Runtime,
) -> None:
    agent = await _stopped(runtime)
    item = await agent.enqueue("a2a_message", {"content": "x"})
    before = await _snapshot(runtime, agent)
    tools = MailboxToolset(agent)
    answer = await tools.call("defer_mailbox_item", {"item_id": item})
    assert answer == {
        "ok": False,
        "error": "invalid_input",
        "message": "defer_mailbox_item needs the argument 'reason'",
    }
    answer = await tools.call("defer_mailbox_item", {"reason": "because"})
    assert answer["ok"] is False and "'item_id'" in answer["message"]
    assert await _snapshot(runtime, agent) == before
    answer = await tools.call(
        "defer_mailbox_item", {"item_id": item, "reason": "because", "delay_minutes": 5}
    )
    assert answer["ok"] is True and answer["status"] == "deferred"


async def test_coal_31_deferring_twice_is_an_invalid_transition(runtime: Runtime) -> None:
    agent = await _stopped(runtime)
    item = await agent.enqueue("a2a_message", {"content": "x"})
    await MailboxToolset(agent).defer_mailbox_item(item, "later")
    before = await _snapshot(runtime, agent)
    with pytest.raises(InvalidTransition):
        await MailboxToolset(agent).defer_mailbox_item(item, "even later")
    assert await _snapshot(runtime, agent) == before


@pytest.mark.parametrize(
    ("given", "stored"), [(1.7, 2), (0, 0), (4, 4), (3, 3), (0.49, 0), (2.5, 3), (3.5, 4), (1.0, 1)]
)
async def test_coal_31_prioritize_accepts_numbers_0_to_4_rounded(
    runtime: Runtime, given: float, stored: int
) -> None:
    agent = await _stopped(runtime)
    item = await agent.enqueue("a2a_message", {"content": "x"}, priority=1 if stored != 1 else 3)
    previous = agent.mailbox.find(item).priority  # type: ignore[union-attr]
    result = await MailboxToolset(agent).prioritize_mailbox_item(item, given)
    assert result == {"itemId": item, "priority": stored, "previousPriority": previous}
    saved = await runtime.store.get_item(item)
    assert saved is not None and saved.priority == stored
    (decision,) = await _decisions(runtime, agent, item)
    assert decision == ("prioritize", f"priority {previous} -> {stored} (agent tool)")


async def test_coal_31_prioritize_changes_the_queue_order(runtime: Runtime) -> None:
    agent = await _stopped(runtime)
    first = await agent.enqueue("a2a_message", {"content": "first"})
    second = await agent.enqueue("a2a_message", {"content": "second"})
    await MailboxToolset(agent).prioritize_mailbox_item(second, 0.6, reason="blocks the release")
    assert [i.id for i in agent.mailbox.queued_items()] == [second, first]
    assert await _decisions(runtime, agent, second) == [("prioritize", "blocks the release")]


@pytest.mark.parametrize(
    "bad", [-1, -0.01, 4.01, 5, "2", None, True, False, float("nan"), float("inf"), [2]]
)
async def test_coal_31_prioritize_rejects_anything_else_and_changes_nothing(
    runtime: Runtime, bad: object
) -> None:
    agent = await _stopped(runtime)
    item = await agent.enqueue("a2a_message", {"content": "x"})
    before = await _snapshot(runtime, agent)
    with pytest.raises(InvalidPriority, match="number from 0"):
        await MailboxToolset(agent).prioritize_mailbox_item(item, bad)  # type: ignore[arg-type]
    assert await _snapshot(runtime, agent) == before
    answer = await MailboxToolset(agent).call(
        "prioritize_mailbox_item", {"item_id": item, "priority": bad}
    )
    assert answer["ok"] is False and answer["error"] == "invalid_priority"
    assert await _snapshot(runtime, agent) == before


async def test_coal_31_drop_records_a_drop_decision(runtime: Runtime) -> None:
    agent = await _stopped(runtime)
    stale = await agent.enqueue("heartbeat", {})
    kept = await agent.enqueue("a2a_message", {"content": "x"})
    deferred = await agent.enqueue("a2a_message", {"content": "y"})
    tools = MailboxToolset(agent)
    await tools.defer_mailbox_item(deferred, "later")
    assert await tools.drop_mailbox_item(stale, "superseded by the next heartbeat") == {
        "itemId": stale,
        "status": "dropped",
        "reason": "superseded by the next heartbeat",
    }
    await tools.drop_mailbox_item(deferred, "no longer needed")  # deferred items too
    for item_id, reason in (
        (stale, "superseded by the next heartbeat"),
        (deferred, "no longer needed"),
    ):
        saved = await runtime.store.get_item(item_id)
        assert saved is not None and saved.status == ItemStatus.DROPPED
        assert saved.reason == reason
        assert (await _decisions(runtime, agent, item_id))[-1] == ("drop", reason)
    assert [i.id for i in agent.mailbox.queued_items()] == [kept]
    assert agent.mailbox.deferred_items() == []
    before = await _snapshot(runtime, agent)
    for args in ({"item_id": kept, "reason": ""}, {"item_id": "", "reason": "x"}):
        with pytest.raises(InvalidInput):
            await tools.drop_mailbox_item(**args)
    assert await _snapshot(runtime, agent) == before


# ------------------------------------------------------------------ COAL-32


async def test_coal_32_human_chat_is_protected_from_every_tool(runtime: Runtime) -> None:
    agent = await _stopped(runtime)
    chat = await agent.enqueue("human_chat", {"content": "hello"})
    await agent.enqueue("a2a_message", {"content": "x"})
    tools = MailboxToolset(agent)
    before = await _snapshot(runtime, agent)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("defer_mailbox_item", {"item_id": chat, "reason": "busy", "delay_minutes": 10}),
        ("drop_mailbox_item", {"item_id": chat, "reason": "spam"}),
        ("prioritize_mailbox_item", {"item_id": chat, "priority": 4}),
    ]
    for name, args in calls:
        with pytest.raises(ProtectedItem, match=f"human_chat item {chat} is protected"):
            await getattr(tools, name)(**args)
        answer = await tools.call(name, args)
        assert answer["ok"] is False and answer["error"] == "protected_item"
        assert "protected" in answer["message"]
    for field in ("defer_item_ids", "drop_item_ids", "inline_completed_ids"):
        with pytest.raises(ProtectedItem, match="protected"):
            await tools.complete_deliberation("mbx_other", "r", **{field: [chat]})
    assert tools.deliberation is None
    assert await _snapshot(runtime, agent) == before
    # Choosing to process a chat is fine.
    result = await tools.complete_deliberation(chat, "a person is waiting")
    assert result.process_item_id == chat


@pytest.mark.parametrize(
    "name", ["defer_mailbox_item", "drop_mailbox_item", "prioritize_mailbox_item"]
)
async def test_coal_32_an_unknown_id_is_an_error_naming_the_id(runtime: Runtime, name: str) -> None:
    agent = await _stopped(runtime)
    await agent.enqueue("a2a_message", {"content": "x"})
    before = await _snapshot(runtime, agent)
    args: dict[str, Any] = {"item_id": "mbx_missing42", "reason": "r"}
    if name == "prioritize_mailbox_item":
        args = {"item_id": "mbx_missing42", "priority": 1}
    with pytest.raises(ItemNotFound, match="mbx_missing42"):
        await getattr(MailboxToolset(agent), name)(**args)
    answer = await MailboxToolset(agent).call(name, args)
    assert answer["ok"] is False and answer["error"] == "item_not_found"
    assert "mbx_missing42" in answer["message"]
    assert await _snapshot(runtime, agent) == before


async def test_coal_32_finished_items_and_the_focus_cannot_be_managed(runtime: Runtime) -> None:
    gate = asyncio.Event()

    async def wait(item: MailboxItem, focus: Focus) -> Reply:
        await gate.wait()
        return Reply("ok")

    agent = await runtime.add_agent("a", Recorder(wait), NO_WINDOW)
    focus = await agent.enqueue("a2a_message", {"content": "in focus"})
    await settle()
    assert agent.focus_item is not None and agent.focus_item.id == focus
    with pytest.raises(InvalidTransition, match="current focus"):
        await MailboxToolset(agent).drop_mailbox_item(focus, "r")
    with pytest.raises(InvalidTransition, match="current focus"):
        await MailboxToolset(agent).prioritize_mailbox_item(focus, 1)
    gate.set()
    await runtime.run_until_idle()
    saved = await runtime.store.get_item(focus)
    assert saved is not None and saved.status == ItemStatus.COMPLETED
    with pytest.raises(ItemNotFound, match=focus):
        await MailboxToolset(agent).defer_mailbox_item(focus, "r")


async def test_coal_32_another_agents_item_is_unknown(runtime: Runtime) -> None:
    a = await _stopped(runtime, "a")
    b = await _stopped(runtime, "b")
    theirs = await b.enqueue("a2a_message", {"content": "x"})
    with pytest.raises(ItemNotFound, match=f"agent 'a' has no queued or deferred item '{theirs}'"):
        await MailboxToolset(a).drop_mailbox_item(theirs, "not mine")
    assert b.mailbox.depth == 1


# ------------------------------------------------------------------ COAL-33


async def test_coal_33_working_memory_tools(runtime: Runtime, clock: FakeClock) -> None:
    agent = await _stopped(runtime)
    tools = MailboxToolset(agent)
    answer = await tools.call(
        "update_working_memory", {"key": "plan", "content": "review T1, then T2"}
    )
    assert answer == {"ok": True, "key": "plan", "updatedAt": clock.now().isoformat(), "entries": 1}
    await clock.advance(120)
    await tools.update_working_memory("blockers", "none")
    assert "- plan (updated 2 min ago): review T1, then T2" in agent.working_memory.render()
    before = await _snapshot(runtime, agent)
    for args in (
        {"key": "", "content": "x"},
        {"key": "k", "content": "x" * 5000},
        {"key": "k", "content": 5},
    ):
        answer = await tools.call("update_working_memory", args)
        assert answer["ok"] is False and answer["error"] == "invalid_input"
    assert await _snapshot(runtime, agent) == before
    assert await tools.call("clear_working_memory", {"key": "plan"}) == {
        "ok": True,
        "cleared": ["plan"],
        "entries": 1,
    }
    assert await tools.clear_working_memory("plan") == {"cleared": [], "entries": 1}
    await tools.update_working_memory("x", "y")
    assert await tools.call("clear_working_memory") == {
        "ok": True,
        "cleared": ["blockers", "x"],
        "entries": 0,
    }


async def test_coal_33_a_brain_uses_its_tools_while_focused(runtime: Runtime) -> None:
    holder: dict[str, Agent] = {}
    seen: list[dict[str, Any]] = []

    async def work(item: MailboxItem, focus: Focus) -> Reply:
        tools = MailboxToolset(holder["agent"])
        seen.append(await tools.check_mailbox())
        for queued in seen[-1]["queued"]:
            if queued["sourceType"] == "heartbeat":
                await tools.drop_mailbox_item(queued["id"], "redundant heartbeat")
        await tools.update_working_memory("last", f"handled {item.content}")
        return Reply("done")

    brain = Recorder(work)
    agent = holder["agent"] = await runtime.add_agent("a", brain, NO_WINDOW, start=False)
    message = await agent.enqueue("a2a_message", {"content": "m1"})
    beat = await agent.enqueue("heartbeat", {})
    agent.start()
    await runtime.run_until_idle()
    assert brain.ids == [message]
    assert seen[0]["currentFocus"]["id"] == message
    saved = await runtime.store.get_item(beat)
    assert saved is not None and saved.status == ItemStatus.DROPPED
    assert agent.working_memory.get("last").content == "handled m1"  # type: ignore[union-attr]


# ----------------------------------------------------- complete_deliberation


async def test_complete_deliberation_builds_the_result(runtime: Runtime) -> None:
    agent = await _stopped(runtime)
    ids = [await agent.enqueue("a2a_message", {"content": f"m{i}"}) for i in range(5)]
    tools = MailboxToolset(agent)
    result = await tools.complete_deliberation(
        ids[1],
        "batch the channel chatter",
        process_item_ids=[ids[2], ids[1], ids[2]],
        batch_context="answer both in one message",
        defer_item_ids=[ids[3]],
        drop_item_ids=[ids[4]],
        inline_completed_ids=[ids[0]],
        situational_awareness="Channel is busy; Bob waits on a review.",
        memory_updates=[
            {"key": "channel", "content": "busy"},
            {"key": "prefs", "content": "short", "type": "longterm"},
        ],
    )
    assert result == DeliberationResult(
        process_item_id=ids[1],
        reasoning="batch the channel chatter",
        process_item_ids=(ids[1], ids[2]),
        batch_context="answer both in one message",
        defer_item_ids=(ids[3],),
        drop_item_ids=(ids[4],),
        inline_completed_ids=(ids[0],),
        situational_awareness="Channel is busy; Bob waits on a review.",
        memory_updates=(
            MemoryUpdate("channel", "busy"),
            MemoryUpdate("prefs", "short", "longterm"),
        ),
    )
    assert tools.deliberation is result
    # Nothing is applied by the tool: the controller does that.
    assert agent.mailbox.depth == 5 and len(agent.working_memory) == 0
    single = await tools.complete_deliberation(ids[0], "just this", process_item_ids=[ids[0]])
    assert single.process_item_ids is None
    answer = await tools.call(
        "complete_deliberation", {"process_item_id": ids[0], "reasoning": "r"}
    )
    assert answer == {
        "ok": True,
        "deliberation": {
            "processItemId": ids[0],
            "processItemIds": [],
            "batchContext": None,
            "deferItemIds": [],
            "dropItemIds": [],
            "inlineCompletedIds": [],
            "reasoning": "r",
            "situationalAwareness": None,
            "memoryUpdates": [],
        },
    }
    json.dumps(answer)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"process_item_id": ""}, "process_item_id must be a non-blank"),
        ({"reasoning": " "}, "reasoning must be a non-blank"),
        ({"process_item_ids": "mbx_1"}, "process_item_ids must be a list"),
        ({"process_item_ids": ["mbx_1", 7]}, r"process_item_ids\[1\] must be a non-blank"),
        ({"defer_item_ids": ["mbx_p"]}, "cannot be both processed and deferred"),
        (
            {"drop_item_ids": ["mbx_x"], "inline_completed_ids": ["mbx_x"]},
            "cannot be both dropped and completed inline",
        ),
        ({"drop_item_ids": ["i"] * 1001}, "limit is 1000"),
        ({"batch_context": 5}, "batch_context must be a string"),
        ({"situational_awareness": "x" * 5000}, "5000 bytes; the limit is 4096"),
        ({"memory_updates": {"key": "k"}}, "memory_updates must be a list"),
        ({"memory_updates": ["k"]}, r"memory_updates\[0\] must be an object"),
        ({"memory_updates": [{"key": "k", "content": "c", "ttl": 1}]}, "unknown fields 'ttl'"),
        (
            {"memory_updates": [{"key": "k", "content": "c", "type": "episodic"}]},
            "must be 'working' or 'longterm'",
        ),
        ({"memory_updates": [{"key": "", "content": "c"}]}, r"memory_updates\[0\]: working memory"),
        ({"memory_updates": [{"key": "k", "content": "c"}] * 65}, "limit is 64"),
    ],
)
async def test_complete_deliberation_rejects_bad_arguments(
    runtime: Runtime, args: dict[str, Any], message: str
) -> None:
    agent = await _stopped(runtime)
    tools = MailboxToolset(agent)
    full: dict[str, Any] = {"process_item_id": "mbx_p", "reasoning": "why", **args}
    before = await _snapshot(runtime, agent)
    with pytest.raises(InvalidInput, match=message):
        await tools.complete_deliberation(**full)
    assert tools.deliberation is None
    assert await _snapshot(runtime, agent) == before


# ---------------------------------------------------------------- LLM edge


async def test_call_rejects_unknown_tools_and_arguments(runtime: Runtime) -> None:
    agent = await _stopped(runtime)
    tools = MailboxToolset(agent)
    answer = await tools.call("task_create", {})
    assert answer["ok"] is False and "unknown tool 'task_create'" in answer["message"]
    answer = await tools.call("check_mailbox", {"verbose": True})
    assert answer["ok"] is False and "has no argument 'verbose'" in answer["message"]
    answer = await tools.call("check_mailbox", ["x"])  # type: ignore[arg-type]
    assert answer["ok"] is False and "must be a JSON object" in answer["message"]
    answer = await tools.call("check_mailbox")
    assert answer["ok"] is True and answer["depth"] == 0
