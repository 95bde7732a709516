"""Focus, yield points, interrupts, backstop, retries, stop (CORE-11, 20..51)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from attn import (
    AgentConfig,
    DecisionType,
    EchoBrain,
    Focus,
    ItemStatus,
    MailboxItem,
    Reply,
    ReplyCancelled,
    Runtime,
    YieldAction,
)
from attn.core.events import INCOMPLETE, ITEM_UPDATED, Event
from attn.models import COMPLETION_MARKER
from attn.store.base import ItemQuery
from attn.testing import FakeClock, MemoryStore, settle

from .conftest import Recorder


async def _decisions(runtime: Runtime, agent: str, item_id: str) -> list[str]:
    found = await runtime.store.find_decisions(agent, item_id)
    return [str(d.decision_type) for d in reversed(found)]


async def _status(runtime: Runtime, item_id: str) -> ItemStatus:
    item = await runtime.store.get_item(item_id)
    assert item is not None
    return item.status


class Stepper:
    """A brain doing ``steps`` steps of ``step_s`` with a yield point between steps,
    recording (time, item, step) and the yield decisions it saw."""

    def __init__(self, clock: FakeClock, steps: int, step_s: float) -> None:
        self.clock, self.steps, self.step_s = clock, steps, step_s
        self.trace: list[tuple[float, str, int]] = []
        self.decisions: list[tuple[str, Any]] = []
        self.running: set[str] = set()
        self.overlap = False

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | None:
        if self.running:
            self.overlap = True
        self.running.add(item.id)
        try:
            step = focus.session.get("step", 0)
            steps = self.steps if item.source_type != "human_chat" else 1
            while step < steps:
                await focus.clock.sleep(self.step_s)
                step += 1
                focus.session["step"] = step
                self.trace.append((self.clock.monotonic(), item.id, step))
                if step < steps:
                    decision = await focus.yield_point()
                    self.decisions.append((item.id, decision))
                    if decision.stop:
                        return None
            return Reply(f"done {item.content}")
        finally:
            self.running.discard(item.id)


async def test_core_11_lifecycle_timestamps_and_decision_context(runtime: Runtime) -> None:
    agent = await runtime.add_agent("a", Recorder())
    item_id = await agent.enqueue("a2a_message", {"content": "x"})
    await runtime.run_until_idle()
    item = await runtime.store.get_item(item_id)
    assert item is not None and item.status == ItemStatus.COMPLETED
    assert item.queued_at <= item.started_at <= item.completed_at  # type: ignore[operator]
    (pick,) = await runtime.store.find_decisions("a", item_id)
    assert pick.decision_type == DecisionType.PICK and pick.reasoning
    assert {"currentFocusId", "queueDepth", "queuedTypes"} <= set(pick.context)


async def test_core_11_deferred_resurface_merged_and_every_decision_stored(
    runtime: Runtime, clock: FakeClock, events: list[Event]
) -> None:
    """CORE-11: a deferred item goes back to queued when it resurfaces; a merged item
    points at the absorbing item; every decision is stored with the item id, type,
    reasoning and context (current focus, depth, queued types)."""
    release = asyncio.Event()

    async def work(item: MailboxItem, focus: Focus) -> str:
        if item.content == "hold":
            await release.wait()
        return "ok"

    agent = await runtime.add_agent("a", Recorder(work), AgentConfig(coalesce_window_ms=0))
    hold = await agent.enqueue("a2a_message", {"content": "hold"})
    await settle()
    later = await agent.enqueue("a2a_message", {"content": "later"})
    await agent.mailbox.defer(later, clock.now() + timedelta(seconds=60), reason="after lunch")
    assert await _status(runtime, later) == ItemStatus.DEFERRED
    first = await agent.enqueue("task_comment", {"taskId": "T", "content": "one"})
    assert await agent.enqueue("task_comment", {"taskId": "T", "content": "two"}) == first
    (merged,) = await runtime.store.find_items(ItemQuery("a", statuses=(ItemStatus.MERGED,)))
    assert merged.merged_into == first and merged.content == "two"
    second = merged.id
    release.set()
    await runtime.run_until_idle()
    assert await _status(runtime, later) == ItemStatus.DEFERRED  # not due yet
    await clock.advance(61)
    await runtime.run_until_idle()
    statuses = [
        e.data["item"]["status"]
        for e in events
        if e.type == ITEM_UPDATED and e.data["item"]["id"] == later
    ]
    # The claim (processing) is announced by the focus event, not as an item update.
    assert statuses == ["deferred", "queued", "completed"]
    assert await _decisions(runtime, "a", later) == ["defer", "resurface", "pick"]
    for item_id in (hold, later, first, second):
        item = await runtime.store.get_item(item_id)
        assert item is not None
        if item.status == ItemStatus.COMPLETED:
            assert item.queued_at <= item.started_at <= item.completed_at  # type: ignore[operator]
        for decision in await runtime.store.find_decisions("a", item_id):
            assert decision.item_id == item_id and decision.decision_type and decision.reasoning
            assert {"currentFocusId", "queueDepth", "queuedTypes"} <= set(decision.context), (
                decision.decision_type,
                decision.context,
            )


async def test_core_20_one_item_processing_at_a_time_in_store(runtime: Runtime) -> None:
    seen: list[int] = []

    async def work(item: MailboxItem, focus: Focus) -> str:
        counts = await runtime.store.count_by_status("a")
        seen.append(counts.get("processing", 0))
        await focus.yield_point()
        return "ok"

    agent = await runtime.add_agent("a", Recorder(work))
    await asyncio.gather(*(agent.enqueue("a2a_message", {"content": str(i)}) for i in range(30)))
    await runtime.run_until_idle()
    assert seen == [1] * 30


async def test_core_21_chat_preempts_heartbeat_at_next_yield_point(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Stepper(clock, steps=10, step_s=1.0)
    agent = await runtime.add_agent("a", brain)
    hb = await agent.enqueue("heartbeat", {"summary": "patrol"})
    await clock.advance(1.5)
    reply = asyncio.ensure_future(agent.send_message("are you there?"))
    await clock.advance(0.5)  # t=2: the heartbeat's yield point
    await clock.advance(1.0)  # the chat's one step
    assert reply.done() and reply.result().text == "done are you there?"
    chat_start = next(t for t, i, _ in brain.trace if i != hb)
    assert chat_start == pytest.approx(3.0)  # started at t=2, one step of 1 s
    assert await _status(runtime, hb) in (ItemStatus.QUEUED, ItemStatus.PROCESSING)
    await clock.advance(20)
    await runtime.run_until_idle()
    assert await _status(runtime, hb) == ItemStatus.COMPLETED
    hb_steps = [s for _, i, s in brain.trace if i == hb]
    assert hb_steps == list(range(1, 11))  # resumed at step 3 with its session, never redone
    assert not brain.overlap
    assert "preempt" in await _decisions(runtime, "a", hb)


async def test_core_22_same_user_same_session_chat_merges(
    runtime: Runtime, clock: FakeClock
) -> None:
    merged_texts: list[str] = []

    async def work(item: MailboxItem, focus: Focus) -> str:
        await focus.clock.sleep(1)
        decision = await focus.yield_point()
        merged_texts.extend(i.content for i in decision.merged)
        return item.content

    agent = await runtime.add_agent("a", Recorder(work))
    first = asyncio.ensure_future(agent.send_message("one", sender_id="u", session_id="s"))
    await settle()
    same = asyncio.ensure_future(agent.send_message("two", sender_id="u", session_id="s"))
    other_session = asyncio.ensure_future(
        agent.send_message("three", sender_id="u", session_id="x")
    )
    other_user = asyncio.ensure_future(agent.send_message("four", sender_id="v", session_id="s"))
    await clock.advance(5)
    await runtime.run_until_idle()
    assert merged_texts == ["two"]
    assert first.result().text == "one\n\n---\n\ntwo" == same.result().text
    assert other_session.result().text == "three" and other_user.result().text == "four"
    two = await runtime.store.get_item(same.result().item_id)
    assert two is not None and two.status == ItemStatus.COMPLETED  # the focus answered both
    history = await agent.mailbox_timeline(statuses=["merged"])
    assert [h["mergedInto"] for h in history["history"]] == [first.result().item_id]


async def _focus_with(
    runtime: Runtime,
    clock: FakeClock,
    focus_type: str,
    focus_payload: dict,
    arrival_type: str,
    arrival_payload: dict,
    **kw: Any,
) -> tuple[Any, Stepper]:
    brain = Stepper(clock, steps=3, step_s=1.0)
    agent = await runtime.add_agent("a", brain)
    focus_id = await agent.enqueue(focus_type, focus_payload, priority=kw.get("focus_priority"))
    await clock.advance(0.5)
    arrival = await agent.enqueue(
        arrival_type, arrival_payload, priority=kw.get("priority"), metadata=kw.get("metadata")
    )
    await clock.advance(1.0)  # yield point at t=1
    decisions = [d for i, d in brain.decisions if i == focus_id]
    return (focus_id, arrival, decisions[0] if decisions else None), brain


async def test_core_23_comment_on_focus_task_merges(runtime: Runtime, clock: FakeClock) -> None:
    (focus, arrival, decision), _ = await _focus_with(
        runtime,
        clock,
        "task_status_update",
        {"taskId": "T", "triggerExecution": True},
        "task_comment",
        {"taskId": "T", "content": "please also do X"},
    )
    assert decision.action == YieldAction.MERGE
    assert [i.content for i in decision.merged] == ["please also do X"]
    stored = await runtime.store.get_item(arrival)
    assert stored is not None and stored.status == ItemStatus.MERGED and stored.merged_into == focus


async def test_core_23_comment_on_other_task_not_merged(runtime: Runtime, clock: FakeClock) -> None:
    (_, arrival, decision), _ = await _focus_with(
        runtime,
        clock,
        "task_status_update",
        {"taskId": "T", "triggerExecution": True},
        "task_comment",
        {"taskId": "U", "content": "other"},
    )
    assert decision.action == YieldAction.CONTINUE
    assert await _status(runtime, arrival) == ItemStatus.QUEUED


@pytest.mark.parametrize("arrival_type", ["requirement_comment", "requirement_update"])
async def test_core_24_requirement_merge(
    runtime: Runtime, clock: FakeClock, arrival_type: str
) -> None:
    (_, _, decision), _ = await _focus_with(
        runtime,
        clock,
        "review_request",
        {"requirementId": "R"},
        arrival_type,
        {"requirementId": "R", "content": "more"},
    )
    assert decision.action == YieldAction.MERGE


@pytest.mark.parametrize(
    ("focus_type", "focus_priority", "arrival_type", "priority", "expected"),
    [
        ("a2a_message", 2, "a2a_message", 1, YieldAction.PREEMPT),
        ("a2a_message", 2, "a2a_message", 2, YieldAction.CONTINUE),
        ("heartbeat", None, "a2a_message", None, YieldAction.PREEMPT),
        ("system_event", 1, "callback_result", 1, YieldAction.PREEMPT),
        ("heartbeat", 3, "daily_report", 3, YieldAction.PREEMPT),
        ("callback_result", 2, "system_event", 2, YieldAction.PREEMPT),
        ("daily_report", 3, "heartbeat", 3, YieldAction.PREEMPT),
        ("memory_consolidation", 3, "system_event", 3, YieldAction.PREEMPT),
        ("review_request", 2, "mention", None, YieldAction.PREEMPT),
        ("review_request", 3, "mention", 3, YieldAction.PREEMPT),
        ("a2a_message", 2, "mention", 2, YieldAction.PREEMPT),
        ("review_request", 1, "heartbeat", None, YieldAction.CONTINUE),
        ("system_event", 1, "heartbeat", None, YieldAction.CONTINUE),
    ],
)
async def test_core_25_heuristic_table(
    runtime: Runtime,
    clock: FakeClock,
    focus_type: str,
    focus_priority: int | None,
    arrival_type: str,
    priority: int | None,
    expected: YieldAction,
) -> None:
    """CORE-25: the heuristic table, row by row; it never answers cancel."""
    text = {"content": "x", "channelKey": "other"}
    (_, _, decision), _ = await _focus_with(
        runtime,
        clock,
        focus_type,
        {"content": "focus", "channelKey": "c"},
        arrival_type,
        text,
        focus_priority=focus_priority,
        priority=priority,
    )
    assert decision.action == expected
    assert decision.action != YieldAction.CANCEL


async def test_core_26_user_comment_is_user_interaction(runtime: Runtime, clock: FakeClock) -> None:
    (_, arrival, decision), _ = await _focus_with(
        runtime,
        clock,
        "review_request",
        {"content": "work"},
        "task_comment",
        {"taskId": "Z", "content": "from a person"},
        metadata={"senderRole": "user"},
    )
    assert decision.action == YieldAction.PREEMPT
    stored = await runtime.store.get_item(arrival)
    assert stored is not None and stored.priority == 0


async def test_core_26_agent_comment_keeps_priority_two(runtime: Runtime, clock: FakeClock) -> None:
    (_, arrival, decision), _ = await _focus_with(
        runtime,
        clock,
        "review_request",
        {"content": "work"},
        "task_comment",
        {"taskId": "Z", "content": "from an agent"},
        metadata={"senderRole": "agent"},
        focus_priority=1,
    )
    assert decision.action == YieldAction.CONTINUE
    stored = await runtime.store.get_item(arrival)
    assert stored is not None and stored.priority == 2


async def test_core_27_chat_not_preempted_urgent_item_runs_next(
    runtime: Runtime, clock: FakeClock
) -> None:
    order: list[str] = []

    async def work(item: MailboxItem, focus: Focus) -> str:
        order.append(item.content)
        for _ in range(3):
            await focus.clock.sleep(1)
            decision = await focus.yield_point()
            assert decision.action in (YieldAction.CONTINUE, YieldAction.MERGE)
        return item.content

    agent = await runtime.add_agent("a", Recorder(work))
    chat = asyncio.ensure_future(agent.send_message("chat"))
    await settle()
    await agent.enqueue("a2a_message", {"content": "low"}, priority=3)
    await agent.enqueue("human_chat", {"content": "urgent"}, metadata={"senderId": "other"})
    await clock.advance(10)
    await runtime.run_until_idle()
    assert chat.result().text == "chat"
    assert order == ["chat", "urgent", "low"]


async def test_core_27_cancel_on_streamed_chat_keeps_partial_text(
    runtime: Runtime, clock: FakeClock
) -> None:
    async def work(item: MailboxItem, focus: Focus) -> str | None:
        for word in ("one ", "two ", "three "):
            focus.stream(word)
            await focus.clock.sleep(1)
            if (await focus.yield_point()).stop:
                return None
        return "one two three"

    agent = await runtime.add_agent("a", Recorder(work))
    deltas: list[str] = []
    reply = asyncio.ensure_future(agent.send_message("talk", on_delta=deltas.append))
    await clock.advance(1.5)
    await agent.cancel_processing("stop talking")
    await clock.advance(1)
    result = reply.result()
    assert result.cancelled and result.text == "one two \n[cancelled]"
    assert deltas == ["one ", "two "]
    item = await runtime.store.get_item(result.item_id)
    assert item is not None and item.status == ItemStatus.COMPLETED
    assert item.reason is not None and "stop talking" in item.reason


async def test_core_28_tool_call_not_aborted(runtime: Runtime, clock: FakeClock) -> None:
    tool_done = asyncio.Event()
    tool_release = asyncio.Event()
    seen: list[Any] = []

    async def work(item: MailboxItem, focus: Focus) -> str:
        if item.content == "long":
            await tool_release.wait()  # a tool call in progress
            tool_done.set()
            seen.append(await focus.yield_point())
        return "ok"

    agent = await runtime.add_agent("a", Recorder(work))
    long_id = await agent.enqueue("a2a_message", {"content": "long"})
    await settle()
    await agent.enqueue("a2a_message", {"content": "new"}, priority=1)
    await settle()
    assert not tool_done.is_set()
    tool_release.set()
    await runtime.run_until_idle()
    assert tool_done.is_set() and seen[0].action == YieldAction.PREEMPT
    assert await _decisions(runtime, "a", long_id) == ["pick", "preempt", "resurface", "pick"]


async def test_core_29_all_messages_seen_at_one_yield_point_in_order(
    runtime: Runtime, clock: FakeClock
) -> None:
    decisions: list[Any] = []

    async def work(item: MailboxItem, focus: Focus) -> str:
        if item.content == "turn":
            await focus.clock.sleep(5)
            decisions.append(await focus.yield_point())
        return "ok"

    agent = await runtime.add_agent("b", Recorder(work))
    await agent.enqueue("a2a_message", {"content": "turn", "extra": {"channelKey": "dm:a2a:a:b"}})
    await settle()
    for i in range(1, 6):
        await clock.advance(1 if i > 1 else 0.9)
        await agent.enqueue(
            "a2a_message", {"content": f"m{i}", "extra": {"channelKey": "dm:a2a:a:b"}}
        )
    await clock.advance(0.2)
    await runtime.run_until_idle()
    assert len(decisions) == 1
    # m2..m5 merged into the queued m1 as they arrived (enqueue-time dedup, same
    # channel); the yield point then merged m1, holding all five, into the turn.
    (merged,) = decisions[0].merged
    assert merged.content.split("\n\n---\n\n") == [f"m{i}" for i in range(1, 6)]
    assert [m["content"] for m in merged.payload["messages"]] == [f"m{i}" for i in range(1, 6)]


async def test_core_30_user_cancel_does_not_leak(runtime: Runtime, clock: FakeClock) -> None:
    brain = Stepper(clock, steps=5, step_s=1.0)
    agent = await runtime.add_agent("a", brain)
    work = await agent.enqueue("review_request", {"content": "review"})
    await clock.advance(0.5)
    assert await agent.cancel_processing("changed my mind") == work
    chat = asyncio.ensure_future(agent.send_message("next"))
    await clock.advance(1)
    await clock.advance(2)
    assert chat.result().text == "done next" and not chat.result().cancelled
    item = await runtime.store.get_item(work)
    assert item is not None and item.status == ItemStatus.COMPLETED
    assert "changed my mind" in (item.reason or "")
    assert "cancel" in await _decisions(runtime, "a", work)


async def test_core_40_backstop_cancels_and_discards_late_result(clock: FakeClock) -> None:
    release = asyncio.Event()
    attempts: list[int] = []
    late: list[str] = []

    async def work(item: MailboxItem, focus: Focus) -> str:
        attempts.append(focus.attempt)
        if focus.attempt == 1:
            try:
                await release.wait()
            except asyncio.CancelledError:
                await release.wait()  # a misbehaving brain that ignores cancellation
            focus.log("text", "late log")
            late.append("returned")
            return "late result"
        return "second attempt"

    async with Runtime(MemoryStore(), clock=clock) as runtime:
        agent = await runtime.add_agent("a", Recorder(work), AgentConfig(backstop_s=0.04))
        reply = asyncio.ensure_future(agent.send_message("hang"))
        await clock.advance(0.05)
        await runtime.run_until_idle()
        assert reply.result().text == "second attempt"
        writes_before = runtime.store.statistics().write_calls
        release.set()
        await settle()
        assert late == ["returned"]
        assert runtime.store.statistics().write_calls == writes_before
        item = await runtime.store.get_item(reply.result().item_id)
        assert item is not None and item.status == ItemStatus.COMPLETED and item.attempt == 2
        assert attempts == [1, 2]
        assert await _decisions(runtime, "a", item.id) == ["pick", "requeue", "pick"]


async def test_core_41_poison_item_dropped_after_three_attempts(runtime: Runtime) -> None:
    incomplete: list[Event] = []
    runtime.bus.subscribe(lambda e: e.type == INCOMPLETE and incomplete.append(e))

    async def work(item: MailboxItem, focus: Focus) -> str:
        if item.content == "poison":
            raise RuntimeError("boom")
        return "ok"

    brain = Recorder(work)
    agent = await runtime.add_agent("a", brain)
    poison = await agent.enqueue("a2a_message", {"content": "poison"})
    fine = await agent.enqueue("a2a_message", {"content": "fine"})
    await runtime.run_until_idle()
    item = await runtime.store.get_item(poison)
    assert item is not None and item.status == ItemStatus.DROPPED and "boom" in (item.reason or "")
    assert brain.ids.count(poison) == 3 and fine in brain.ids
    assert len(incomplete) == 1 and incomplete[0].data["mailboxItemId"] == poison


@pytest.mark.parametrize("how", ["timeout", "raise", "cancel", "hard_cancel"])
async def test_core_42_next_item_runs_after_failure_without_new_enqueue(
    runtime: Runtime, clock: FakeClock, how: str
) -> None:
    """CORE-42: A times out, raises, or is cancelled through the API; B runs without
    any new enqueue."""

    async def work(item: MailboxItem, focus: Focus) -> str:
        if item.content == "A":
            if how == "raise":
                raise RuntimeError("A broke")
            for _ in range(100):
                await focus.clock.sleep(1)
                if how == "cancel" and (await focus.yield_point()).stop:
                    return "stopped"
        return "ok"

    brain = Recorder(work)
    agent = await runtime.add_agent(
        "a",
        brain,
        AgentConfig(backstop_s=1, max_attempts=1)
        if how == "timeout"
        else AgentConfig(max_attempts=1),
    )
    a = await agent.enqueue("a2a_message", {"content": "A"})
    b = await agent.enqueue("a2a_message", {"content": "B"})
    await settle()
    if how in ("cancel", "hard_cancel"):
        assert await agent.cancel_processing("not needed", hard=how == "hard_cancel") == a
    await clock.advance(1.5)
    await runtime.run_until_idle()
    assert brain.ids == [a, b]
    assert await _status(runtime, b) == ItemStatus.COMPLETED
    assert await _status(runtime, a) in (ItemStatus.COMPLETED, ItemStatus.DROPPED)


class MarkerBrain:
    uses_completion_marker = True

    def __init__(self, replies: list[str]) -> None:
        self.replies = replies
        self.calls = 0

    async def __call__(self, item: MailboxItem, focus: Focus) -> str:
        self.calls += 1
        return self.replies.pop(0) if self.replies else f"fine {COMPLETION_MARKER}"


@pytest.mark.parametrize("reply", ["no marker", f"<think>{COMPLETION_MARKER}</think> hidden"])
async def test_core_43_missing_marker_completes_once_with_incomplete(
    runtime: Runtime, reply: str
) -> None:
    incomplete: list[Event] = []
    runtime.bus.subscribe(lambda e: e.type == INCOMPLETE and incomplete.append(e))
    brain = MarkerBrain([reply])
    agent = await runtime.add_agent("a", brain)
    item_id = await agent.enqueue("system_event", {"content": "do it"})
    await runtime.run_until_idle()
    assert brain.calls == 1 and len(incomplete) == 1
    assert await _status(runtime, item_id) == ItemStatus.COMPLETED


async def test_core_43_chat_needs_no_marker(runtime: Runtime) -> None:
    """Chat is never told to write the marker (000 §20), so its absence is no incomplete."""
    incomplete: list[Event] = []
    runtime.bus.subscribe(lambda e: e.type == INCOMPLETE and incomplete.append(e))
    agent = await runtime.add_agent("a", MarkerBrain(["plain answer"]))
    reply = await agent.send_message("hi")
    assert reply.text == "plain answer" and incomplete == []


async def test_core_43_marker_is_stripped(runtime: Runtime) -> None:
    agent = await runtime.add_agent("a", MarkerBrain([f"all good {COMPLETION_MARKER}"]))
    reply = await agent.send_message("hi")
    assert reply.text == "all good"


async def test_core_43_empty_reply_retried_for_background_not_for_chat(runtime: Runtime) -> None:
    brain = MarkerBrain(["", "", "", ""])
    agent = await runtime.add_agent("a", brain)
    bg = await agent.enqueue("daily_report", {"content": "report"})
    await runtime.run_until_idle()
    assert brain.calls == 3 and await _status(runtime, bg) == ItemStatus.DROPPED
    brain.replies = [""]
    reply = await agent.send_message("hello?")
    assert brain.calls == 4 and reply.text == ""
    assert await _status(runtime, reply.item_id) == ItemStatus.COMPLETED


@pytest.mark.parametrize("how", ["stop", "pause"])
async def test_core_50_stop_requeues_in_flight_and_keeps_deferred(
    runtime: Runtime, clock: FakeClock, how: str
) -> None:
    brain = Stepper(clock, steps=4, step_s=1.0)
    agent = await runtime.add_agent("a", brain)
    deferred = await agent.enqueue("a2a_message", {"content": "later"}, priority=4)
    await agent.mailbox.defer(deferred, None)
    work = await agent.enqueue("review_request", {"content": "work"})
    await clock.advance(1.5)
    await (agent.stop() if how == "stop" else agent.pause())
    assert await _status(runtime, work) == ItemStatus.QUEUED
    assert await _status(runtime, deferred) == ItemStatus.DEFERRED
    await (agent.resume() if how == "pause" else asyncio.sleep(0))
    if how == "stop":
        agent.start()
    await clock.advance(10)
    await runtime.run_until_idle()
    assert await _status(runtime, work) == ItemStatus.COMPLETED
    assert await _status(runtime, deferred) == ItemStatus.COMPLETED
    assert [s for _, i, s in brain.trace if i == work] == [1, 2, 3, 4]


async def test_core_51_waiting_caller_gets_cancellation_on_stop(clock: FakeClock) -> None:
    runtime = Runtime(MemoryStore(), clock=clock)
    await runtime.start()
    agent = await runtime.add_agent("a", EchoBrain(steps=5, step_s=1))
    reply = asyncio.ensure_future(agent.send_message("hi"))
    await clock.advance(1.5)
    await runtime.close()
    with pytest.raises(ReplyCancelled):
        await reply


async def test_backstop_is_long_while_awaiting_approval(runtime: Runtime, clock: FakeClock) -> None:
    answered = asyncio.Event()

    async def work(item: MailboxItem, focus: Focus) -> str:
        with focus.awaiting_approval():
            await answered.wait()  # a person takes an hour to answer
        await focus.clock.sleep(5)
        return "approved"

    agent = await runtime.add_agent("a", Recorder(work), AgentConfig(backstop_s=60))
    item_id = await agent.enqueue("review_request", {"content": "ship it?"})
    await clock.advance(3600)
    assert await _status(runtime, item_id) == ItemStatus.PROCESSING
    answered.set()
    await clock.advance(10)
    await runtime.run_until_idle()
    item = await runtime.store.get_item(item_id)
    assert item is not None and item.status == ItemStatus.COMPLETED and item.attempt == 1


async def test_backstop_applies_again_after_the_approval(
    runtime: Runtime, clock: FakeClock
) -> None:
    async def work(item: MailboxItem, focus: Focus) -> str:
        with focus.awaiting_approval():
            await focus.clock.sleep(1)
        await focus.clock.sleep(1000)  # hangs after the answer
        return "never"

    agent = await runtime.add_agent("a", Recorder(work), AgentConfig(backstop_s=60, max_attempts=1))
    item_id = await agent.enqueue("review_request", {"content": "ship it?"})
    await clock.advance(62)
    await runtime.run_until_idle()
    assert await _status(runtime, item_id) == ItemStatus.DROPPED


async def test_item_of_an_unregistered_type_is_dropped_not_stuck(runtime: Runtime) -> None:
    from attn.ids import new_id
    from attn.store.base import InsertItem

    stored = MailboxItem(
        id=new_id("mbx"),
        agent_id="a",
        source_type="gone_type",
        priority=2,
        status=ItemStatus.QUEUED,
        payload={},
        metadata={},
        queued_at=runtime.clock.now(),
    )
    await runtime.store.write([InsertItem(stored)])
    brain = Recorder()
    agent = await runtime.add_agent("a", brain)
    ok = await agent.enqueue("a2a_message", {"content": "next"})
    await runtime.run_until_idle()
    assert await _status(runtime, stored.id) == ItemStatus.DROPPED
    assert await _status(runtime, ok) == ItemStatus.COMPLETED and brain.ids == [ok]


async def test_follow_ups_queued_before_the_focus_began_merge_in_order(
    runtime: Runtime, clock: FakeClock
) -> None:
    async def work(item: MailboxItem, focus: Focus) -> str:
        await focus.clock.sleep(1)
        await focus.yield_point()
        return item.content

    agent = await runtime.add_agent("a", Recorder(work))
    texts = [f"part {i}" for i in range(6)]
    # All six arrive in one burst while the agent is idle: the first becomes the
    # focus before the others are seen as arrivals.
    replies = [
        asyncio.ensure_future(agent.send_message(t, sender_id="u", session_id="s")) for t in texts
    ]
    await settle()
    await clock.advance(2)
    await runtime.run_until_idle()
    answers = {r.result().text for r in replies}
    assert answers == {"\n\n---\n\n".join(texts)}


async def test_items_queued_before_the_focus_never_preempt_it(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Stepper(clock, steps=3, step_s=1.0)
    agent = await runtime.add_agent("a", brain)
    first = await agent.enqueue("system_event", {"content": "one"}, priority=1)
    second = await agent.enqueue("system_event", {"content": "two"}, priority=1)
    await clock.advance(10)
    await runtime.run_until_idle()
    assert [i for _, i, _ in brain.trace] == [first] * 3 + [second] * 3


async def test_a_second_chat_merges_into_the_first_that_preempted_work(
    runtime: Runtime, clock: FakeClock
) -> None:
    seen: list[str] = []

    async def work(item: MailboxItem, focus: Focus) -> str:
        for _ in range(3):
            await focus.clock.sleep(1)
            if (await focus.yield_point()).stop:
                return "paused"
        seen.append(item.content)
        return item.content

    agent = await runtime.add_agent("a", Recorder(work), AgentConfig(coalesce_window_ms=0))
    await agent.enqueue("review_request", {"content": "long work"})
    await clock.advance(0.5)
    first = asyncio.ensure_future(agent.send_message("one", sender_id="u", session_id="s"))
    second = asyncio.ensure_future(agent.send_message("two", sender_id="u", session_id="s"))
    await clock.advance(0.6)  # the work's yield point: "one" preempts, "two" waits
    await clock.advance(20)
    await runtime.run_until_idle()
    assert first.result().text == second.result().text == "one\n\n---\n\ntwo"


async def test_informational_updates_never_reach_the_brain(runtime: Runtime) -> None:
    brain = Recorder()
    agent = await runtime.add_agent("a", brain, AgentConfig(coalesce_window_ms=0))
    info = await agent.enqueue("task_status_update", {"taskId": "T", "summary": "blocked"})
    action = await agent.enqueue(
        "requirement_update", {"requirementId": "R", "actionRequired": True}
    )
    run = await agent.enqueue("task_status_update", {"taskId": "U", "triggerExecution": True})
    await runtime.run_until_idle()
    assert set(brain.ids) == {action, run}
    item = await runtime.store.get_item(info)
    assert item is not None and item.status == ItemStatus.COMPLETED
    assert "informational" in (item.reason or "")
    off = await runtime.add_agent("b", Recorder(), AgentConfig(auto_complete_informational=False))
    await off.enqueue("task_status_update", {"taskId": "T", "summary": "blocked"})
    await runtime.run_until_idle()
    assert len(off.brain.calls) == 1  # type: ignore[attr-defined]
