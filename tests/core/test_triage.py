"""Burst window, consolidation, stale purge and triage tiers (COAL-10..14, 20..26)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from attn import AgentConfig, DecisionType, Focus, ItemStatus, MailboxItem, Reply, Runtime
from attn.core.deliberation import DeliberationResult
from attn.ids import new_id
from attn.store.base import InsertItem
from attn.testing import FakeClock, settle

from .conftest import Recorder


async def _decision_types(runtime: Runtime, item_id: str) -> list[str]:
    return [
        str(d.decision_type) for d in reversed(await runtime.store.find_decisions("a", item_id))
    ]


async def _status(runtime: Runtime, item_id: str) -> ItemStatus:
    item = await runtime.store.get_item(item_id)
    assert item is not None
    return item.status


class Deliberate:
    """A scripted deliberator that records what it saw."""

    def __init__(self, decide: Any) -> None:
        self.decide = decide
        self.calls: list[tuple[str, list[str]]] = []

    async def deliberate(
        self, head: MailboxItem, queued: list[MailboxItem], context: dict[str, Any]
    ) -> DeliberationResult | None:
        self.calls.append((head.id, [i.id for i in queued]))
        result = self.decide(head, queued)
        return await result if asyncio.iscoroutine(result) else result


# -- burst window (COAL-10) ---------------------------------------------------------------


async def test_coal_10_burst_window_lets_a_burst_merge(runtime: Runtime, clock: FakeClock) -> None:
    brain = Recorder()
    agent = await runtime.add_agent("a", brain, start=False)
    await agent.enqueue("a2a_message", {"content": "other"}, priority=3)
    first = await agent.enqueue("task_comment", {"taskId": "T", "content": "c1"})
    agent.start()
    await settle()
    assert brain.calls == []  # waiting the window: the burst may not be over
    await clock.advance(0.1)
    await agent.enqueue("task_comment", {"taskId": "T", "content": "c2"})  # within the window
    assert brain.calls == []
    await clock.advance(0.1)  # the window (200 ms from the latest arrival at pick) ends
    await runtime.run_until_idle()
    assert brain.calls[0] == (first, "c1\n\n---\n\nc2")


async def test_coal_10_no_wait_for_chat_head_or_empty_queue(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Recorder()
    agent = await runtime.add_agent("a", brain)
    await agent.enqueue("task_comment", {"taskId": "T", "content": "alone"})
    await runtime.run_until_idle()
    assert len(brain.calls) == 1  # empty queue: no window
    await agent.stop()
    await agent.enqueue("task_comment", {"taskId": "U", "content": "c"})
    await agent.enqueue("human_chat", {"content": "hi"})
    agent.start()
    await runtime.run_until_idle()
    assert brain.calls[1][1] == "hi"  # a chat head never waits


async def test_coal_10_window_zero_disables(runtime: Runtime) -> None:
    brain = Recorder()
    agent = await runtime.add_agent("a", brain, AgentConfig(coalesce_window_ms=0), start=False)
    await agent.enqueue("task_comment", {"taskId": "T", "content": "c1"})
    await agent.enqueue("a2a_message", {"content": "x"})
    agent.start()
    await runtime.run_until_idle()
    assert len(brain.calls) == 2


async def test_a_chat_cuts_the_window_short(runtime: Runtime, clock: FakeClock) -> None:
    brain = Recorder()
    agent = await runtime.add_agent("a", brain, start=False)
    await agent.enqueue("task_comment", {"taskId": "T", "content": "c1"})
    await agent.enqueue("a2a_message", {"content": "x"})
    agent.start()
    await settle()
    await agent.enqueue("human_chat", {"content": "now please"})
    await settle()
    assert brain.calls and brain.calls[0][1] == "now please"


# -- consolidation and purge (COAL-11..14) --------------------------------------------------


async def test_coal_11_consolidation_folds_one_task(runtime: Runtime) -> None:
    brain = Recorder()
    agent = await runtime.add_agent("a", brain, AgentConfig(coalesce_window_ms=0), start=False)
    status = await agent.enqueue(
        "task_status_update", {"taskId": "T", "summary": "assigned"}, priority=2
    )
    message = await agent.enqueue(
        "a2a_message", {"taskId": "T", "content": "please review"}, priority=1
    )
    await agent.enqueue("heartbeat", {"summary": "hb"})
    agent.start()
    await runtime.run_until_idle()
    survivor = await runtime.store.get_item(message)
    absorbed = await runtime.store.get_item(status)
    assert survivor is not None and absorbed is not None
    assert survivor.content == "please review\n\n---\n\n[task_status_update] assigned"
    assert survivor.priority == 1 and absorbed.status == ItemStatus.MERGED
    assert absorbed.merged_into == message
    assert len(brain.calls) == 2  # the task's item and the heartbeat


async def test_coal_12_never_folds_chats_or_execution_triggers(runtime: Runtime) -> None:
    agent = await runtime.add_agent("a", Recorder(), AgentConfig(coalesce_window_ms=0), start=False)
    ids = [
        await agent.enqueue("human_chat", {"content": "about T", "taskId": "T"}),
        await agent.enqueue("task_status_update", {"taskId": "T", "triggerExecution": True}),
        await agent.enqueue("a2a_message", {"content": "on T", "taskId": "T"}),
    ]
    agent.start()
    await runtime.run_until_idle()
    assert [await _status(runtime, i) for i in ids] == [ItemStatus.COMPLETED] * 3


async def test_coal_13_stale_informational_items_are_purged(
    runtime: Runtime, clock: FakeClock
) -> None:
    agent = await runtime.add_agent("a", Recorder(), AgentConfig(coalesce_window_ms=0), start=False)
    old = clock.now() - timedelta(hours=5)

    def aged(source_type: str, **payload: object) -> MailboxItem:
        return MailboxItem(
            id=new_id("mbx"),
            agent_id="a",
            source_type=source_type,
            priority=2,
            status=ItemStatus.QUEUED,
            payload=dict(payload),
            metadata={},
            queued_at=old,
        )

    items = [
        aged("task_status_update", taskId="X"),
        aged("heartbeat"),
        aged("daily_report"),
        aged("memory_consolidation"),
        aged("callback_result"),
        aged("a2a_message", content="keep"),
        aged("task_comment", content="keep", taskId="Y"),
        aged("task_status_update", taskId="Z", triggerExecution=True),
    ]
    results = await runtime.store.write([InsertItem(i) for i in items])
    for item, (stored, _) in zip(items, results, strict=True):
        item.seq = stored.seq
    agent.mailbox.restore(items)
    # (a fresh heartbeat would supersede the aged one at enqueue time, CORE-76)
    fresh = await agent.enqueue("daily_report", {"summary": "fresh"})
    agent.start()
    await runtime.run_until_idle()
    statuses = [await _status(runtime, i.id) for i in items]
    assert statuses[:5] == [ItemStatus.DROPPED] * 5
    assert statuses[5:] == [ItemStatus.COMPLETED] * 3
    assert await _status(runtime, fresh) == ItemStatus.COMPLETED
    dropped = await runtime.store.get_item(items[0].id)
    assert dropped is not None and "stale" in (dropped.reason or "")


async def test_coal_14_retry_cleanup(runtime: Runtime) -> None:
    agent = await runtime.add_agent("a", Recorder(), start=False)
    x1 = await agent.enqueue("task_status_update", {"taskId": "X", "summary": "blocked"})
    x2 = await agent.enqueue("task_status_update", {"taskId": "X", "summary": "unblocked"})
    y = await agent.enqueue("task_status_update", {"taskId": "Y", "summary": "blocked"})
    keep = [
        await agent.enqueue("task_comment", {"taskId": "X", "content": "c"}),
        await agent.enqueue("mention", {"taskId": "X", "content": "@a"}),
        await agent.enqueue("a2a_message", {"taskId": "X", "content": "m"}),
        await agent.enqueue("task_status_update", {"taskId": "X", "triggerExecution": True}),
    ]
    dropped = await agent.mailbox.drop_status_updates("X")
    assert {i.id for i in dropped} == {x1, x2}
    assert {i.id for i in agent.mailbox.queued_items()} == {y, *keep}


# -- tiers (COAL-20..26) ---------------------------------------------------------------------


async def test_coal_20_tier_0_never_calls_the_deliberator(runtime: Runtime) -> None:
    deliberator = Deliberate(lambda head, queued: DeliberationResult(head.id))
    agent = await runtime.add_agent(
        "a", Recorder(), AgentConfig(coalesce_window_ms=0), deliberator=deliberator, start=False
    )
    alone = await agent.enqueue("a2a_message", {"content": "alone"})
    agent.start()
    await runtime.run_until_idle()
    await agent.stop()
    head = await agent.enqueue("system_event", {"content": "head"}, priority=1)
    await agent.enqueue("heartbeat", {"summary": "worse"}, priority=3)
    agent.start()
    await runtime.run_until_idle()
    assert deliberator.calls == []
    assert await _decision_types(runtime, alone) == ["pick"]
    assert await _decision_types(runtime, head) == ["pick"]


async def test_coal_21_tier_2_deliberation_chooses_first(runtime: Runtime) -> None:
    def choose_last(head: MailboxItem, queued: list[MailboxItem]) -> DeliberationResult:
        return DeliberationResult(queued[-1].id, reasoning="the review unblocks the team")

    deliberator = Deliberate(choose_last)
    brain = Recorder()
    agent = await runtime.add_agent(
        "a", brain, AgentConfig(coalesce_window_ms=0), deliberator=deliberator, start=False
    )
    a = await agent.enqueue("a2a_message", {"content": "a"})
    b = await agent.enqueue("a2a_message", {"content": "b"})
    c = await agent.enqueue("review_request", {"content": "c"}, priority=2)
    agent.start()
    await runtime.run_until_idle()
    assert deliberator.calls[0] == (a, [b, c])
    assert brain.ids[0] == c
    (triage,) = await runtime.store.find_decisions("a", c)
    assert triage.decision_type == DecisionType.TRIAGE
    assert triage.reasoning == "the review unblocks the team"
    last = (await agent.mind())["lastTriage"]  # SRV-01: the mind shows the last triage
    assert last["deliberation"]["processItemId"] == brain.ids[-2]  # the last one deliberated
    assert last["deliberation"]["reasoning"] == "the review unblocks the team"
    assert last["at"]


async def test_coal_22_batch_inline_defer_drop_and_memory(runtime: Runtime) -> None:
    seen_batches: list[tuple[list[str], str | None]] = []

    async def work(item: MailboxItem, focus: Focus) -> Reply:
        seen_batches.append(([i.content for i in focus.batch], focus.batch_context))
        return Reply(f"did {item.content}")

    results: list[DeliberationResult] = []

    def plan(head: MailboxItem, queued: list[MailboxItem]) -> DeliberationResult:
        ids = {i.content: i.id for i in [head, *queued]}
        return DeliberationResult(
            ids["p"],
            process_item_ids=(ids["p"], ids["s1"], ids["s2"]),
            batch_context="ack all",
            inline_completed_ids=(ids["inline"],),
            defer_item_ids=(ids["later"],),
            drop_item_ids=(ids["stale"],),
            reasoning="batch the acks",
            situational_awareness="quiet morning",
        )

    deliberator = Deliberate(plan)
    agent = await runtime.add_agent(
        "a", Recorder(work), AgentConfig(coalesce_window_ms=0), deliberator=deliberator, start=False
    )
    agent.controller.triage.subscribe(results.append)
    ids = {
        t: await agent.enqueue("a2a_message", {"content": t})
        for t in ("p", "s1", "s2", "inline", "later", "stale")
    }
    agent.start()
    await runtime.run_until_idle()
    assert seen_batches[0] == (["s1", "s2"], "ack all")
    statuses = {t: await _status(runtime, i) for t, i in ids.items()}
    assert statuses == {
        "p": ItemStatus.COMPLETED,
        "s1": ItemStatus.COMPLETED,
        "s2": ItemStatus.COMPLETED,
        "inline": ItemStatus.COMPLETED,
        "later": ItemStatus.COMPLETED,
        "stale": ItemStatus.DROPPED,
    }
    assert "complete" in await _decision_types(runtime, ids["inline"])
    assert await _decision_types(runtime, ids["later"]) == ["defer", "resurface", "pick"]
    assert results[0].situational_awareness == "quiet morning"


async def test_coal_22_interrupted_batch_requeues_every_item(
    runtime: Runtime, clock: FakeClock
) -> None:
    async def work(item: MailboxItem, focus: Focus) -> str:
        if item.content == "p" and focus.attempt == 1:
            await focus.clock.sleep(100)  # hangs: the backstop ends the attempt
        return "ok"

    def plan(head: MailboxItem, queued: list[MailboxItem]) -> DeliberationResult:
        return DeliberationResult(head.id, process_item_ids=(head.id, queued[0].id))

    agent = await runtime.add_agent(
        "a",
        Recorder(work),
        AgentConfig(coalesce_window_ms=0, backstop_s=10),
        deliberator=Deliberate(plan),
        start=False,
    )
    p = await agent.enqueue("a2a_message", {"content": "p"})
    s = await agent.enqueue("a2a_message", {"content": "s"})
    await agent.enqueue("a2a_message", {"content": "t"})
    agent.start()
    await clock.advance(11)  # the backstop fires: the primary and its sibling go back
    sibling = await runtime.store.get_item(s)
    assert sibling is not None and "requeue" in await _decision_types(runtime, s)
    await clock.advance(200)
    await runtime.run_until_idle()
    assert await _status(runtime, p) == ItemStatus.COMPLETED
    assert await _status(runtime, s) == ItemStatus.COMPLETED


async def test_coal_23_protected_items_are_never_deferred_dropped_or_inlined(
    runtime: Runtime,
) -> None:
    def plan(head: MailboxItem, queued: list[MailboxItem]) -> DeliberationResult:
        others = tuple(i.id for i in queued)
        return DeliberationResult(
            head.id,
            drop_item_ids=others[:1],
            defer_item_ids=others[1:2],
            inline_completed_ids=others[2:],
        )

    brain = Recorder()
    agent = await runtime.add_agent(
        "a", brain, AgentConfig(coalesce_window_ms=0), deliberator=Deliberate(plan), start=False
    )
    await agent.enqueue("system_event", {"content": "head"}, priority=0)
    protected = [
        await agent.enqueue("human_chat", {"content": "chat"}, priority=0),
        await agent.enqueue(
            "task_status_update", {"taskId": "T", "triggerExecution": True}, priority=0
        ),
        await agent.enqueue("mention", {"content": "@a"}, priority=0),
    ]
    agent.start()
    await runtime.run_until_idle()
    for item_id in protected:
        types = await _decision_types(runtime, item_id)
        assert not {"defer", "drop", "complete"} & set(types), types
        assert await _status(runtime, item_id) == ItemStatus.COMPLETED
    assert len(brain.calls) == 4


@pytest.mark.parametrize("outcome", ["raise", "none", "not queued", "wrong type"])
async def test_coal_24_failed_deliberation_processes_the_head(
    runtime: Runtime, outcome: str
) -> None:
    def plan(head: MailboxItem, queued: list[MailboxItem]) -> Any:
        if outcome == "raise":
            raise RuntimeError("model down")
        if outcome == "none":
            return None
        if outcome == "wrong type":
            return {"processItemId": head.id}
        return DeliberationResult("mbx_gone")

    brain = Recorder()
    agent = await runtime.add_agent(
        "a", brain, AgentConfig(coalesce_window_ms=0), deliberator=Deliberate(plan), start=False
    )
    head = await agent.enqueue("a2a_message", {"content": "head"})
    await agent.enqueue("a2a_message", {"content": "b"})
    await agent.enqueue("a2a_message", {"content": "c"})
    agent.start()
    await runtime.run_until_idle()
    assert brain.ids[0] == head
    assert (await _decision_types(runtime, head))[0] == "pick"


@pytest.mark.parametrize(("arrival", "chat_first"), [("human_chat", True), ("a2a_message", False)])
async def test_coal_25_a_chat_aborts_deliberation(
    runtime: Runtime, clock: FakeClock, arrival: str, chat_first: bool
) -> None:
    async def slow(head: MailboxItem, queued: list[MailboxItem]) -> DeliberationResult:
        await clock.sleep(5)
        return DeliberationResult(queued[-1].id, reasoning="chosen")

    brain = Recorder()
    agent = await runtime.add_agent(
        "a", brain, AgentConfig(coalesce_window_ms=0), deliberator=Deliberate(slow), start=False
    )
    for t in ("x", "y", "z"):
        await agent.enqueue("a2a_message", {"content": t})
    agent.start()
    await clock.advance(1)
    await agent.enqueue(arrival, {"content": "now"}, priority=0 if chat_first else 3)
    await clock.advance(10)
    await clock.advance(10)
    await runtime.run_until_idle()
    if chat_first:
        assert brain.calls[0][1] == "now"
    else:
        assert brain.calls[0][1] == "z"  # the deliberation completed normally


class Classifier:
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.seen: list[tuple[str, str, int, int]] = []

    async def classify(
        self,
        focus: MailboxItem,
        new: MailboxItem,
        queue: list[MailboxItem],
        recent: list[dict[str, Any]],
    ) -> str:
        self.seen.append((focus.content, new.content, len(queue), len(recent)))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("preempt", "preempt"),
        ("CANCEL", "cancel"),
        ("merge", "merge"),
        ("defer", "continue"),
        ("continue", "continue"),
        ("maybe", "continue"),
        (RuntimeError("down"), "continue"),
    ],
)
async def test_coal_26_tier_1_classifier(
    runtime: Runtime, clock: FakeClock, answer: Any, expected: str
) -> None:
    decisions: list[Any] = []

    async def work(item: MailboxItem, focus: Focus) -> str:
        if item.content == "long":
            await focus.clock.sleep(1)
            decisions.append(await focus.yield_point())
        return "ok"

    classifier = Classifier(answer)
    agent = await runtime.add_agent(
        "a", Recorder(work), AgentConfig(coalesce_window_ms=0), classifier=classifier
    )
    await agent.enqueue("review_request", {"content": "long"}, priority=1)
    await clock.advance(0.5)
    new = await agent.enqueue("heartbeat", {"content": "hb"})
    await clock.advance(1)
    await clock.advance(5)
    await runtime.run_until_idle()
    assert classifier.seen and classifier.seen[0][:2] == ("long", "hb")
    assert str(decisions[0].action) == expected
    if answer == "defer":
        assert "defer" in await _decision_types(runtime, new)


async def test_core_71_a_follow_up_never_overtakes_a_deliberated_batch(runtime: Runtime) -> None:
    """A deliberation batches messages 1..3 of one sender on one channel while
    message 4 (with an idempotency key, so it was not merged at enqueue) waits:
    the brain reads 1, 2, 3 and only then 4, never 4 inside message 1."""
    seen: list[str] = []

    async def work(item: MailboxItem, focus: Focus) -> Reply:
        seen.extend(item.content.split("\n\n---\n\n"))
        seen.extend(i.content for i in focus.batch)
        decision = await focus.yield_point()
        seen.extend(m.content for m in decision.merged)
        return Reply("ok")

    def plan(head: MailboxItem, queued: list[MailboxItem]) -> DeliberationResult:
        by_text = {i.content: i.id for i in [head, *queued]}
        return DeliberationResult(
            by_text["m1"], process_item_ids=(by_text["m1"], by_text["m2"], by_text["m3"])
        )

    agent = await runtime.add_agent(
        "a",
        Recorder(work),
        AgentConfig(coalesce_window_ms=0),
        deliberator=Deliberate(plan),
        start=False,
    )
    for n in range(1, 5):
        await agent.enqueue(
            "a2a_message",
            {"content": f"m{n}", "extra": {"channelKey": "c"}},
            metadata={"senderId": "w"},
            idempotency_key=f"k{n}",
        )
    agent.start()
    await runtime.run_until_idle()
    assert [t for t in seen if t.startswith("m")] == ["m1", "m2", "m3", "m4"]
