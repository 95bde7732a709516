"""What the agent sees, and in which order (CORE-70..73, CORE-75)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from attn import AgentConfig, DecisionType, Focus, ItemStatus, MailboxItem, Reply, Runtime
from attn.core.heuristics import HeuristicRules, Verdict
from attn.core.registry import TypeRegistry
from attn.ids import new_id
from attn.store.base import InsertItem
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeClock, MemoryStore, settle

SEP = "\n\n---\n\n"


class Watcher:
    """A brain of ``steps`` steps of ``step_s`` (execution triggers: ``exec_steps``)
    with a yield point between steps. Records every text it is given: the item's
    content at each call, its batch, and what yield points merge in."""

    def __init__(
        self, clock: FakeClock, *, step_s: float = 1.0, steps: int = 2, exec_steps: int = 10
    ) -> None:
        self.clock, self.step_s, self.steps, self.exec_steps = clock, step_s, steps, exec_steps
        self.calls: list[tuple[float, MailboxItem, str]] = []
        self.seen: list[tuple[float, str]] = []  # (time, text) in the order the brain saw them
        self.decisions: list[tuple[str, str]] = []  # (item id, yield action)

    def _see(self, text: str) -> None:
        for part in text.split(SEP):
            self.seen.append((self.clock.monotonic(), part))

    def first_seen(self, text: str) -> float:
        return min(t for t, seen in self.seen if text in seen)

    def order(self, texts: list[str]) -> list[str]:
        firsts = {t: self.first_seen(t) for t in texts}
        index = {t: min(i for i, (_, s) in enumerate(self.seen) if t in s) for t in texts}
        return sorted(texts, key=lambda t: (firsts[t], index[t]))

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | None:
        self.calls.append((self.clock.monotonic(), item, item.content))
        if not focus.resumed:
            self._see(item.content)
        for sibling in focus.batch:
            self._see(sibling.content)
        steps = self.exec_steps if item.triggers_execution else self.steps
        step = int(focus.session.get("step", 0))
        while step < steps:
            await focus.clock.sleep(self.step_s)
            step += 1
            focus.session["step"] = step
            if step < steps:
                decision = await focus.yield_point()
                self.decisions.append((item.id, str(decision.action)))
                for merged in decision.merged:
                    self._see(merged.content)
                if decision.stop:
                    return None
        return Reply(f"done {item.id}")


async def _decision_types(runtime: Runtime, agent: str, item_id: str) -> list[str]:
    found = await runtime.store.find_decisions(agent, item_id)
    return [str(d.decision_type) for d in reversed(found)]


async def _stored(runtime: Runtime, item_id: str) -> MailboxItem:
    item = await runtime.store.get_item(item_id)
    assert item is not None
    return item


# ------------------------------------------------------------------ CORE-70


async def test_core_70_status_update_and_agent_comment_consolidated_reach_the_brain(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Watcher(clock, step_s=1.0, steps=1)
    agent = await runtime.add_agent("a", brain)
    await agent.enqueue("a2a_message", {"content": "busy"})  # queued together behind it
    await settle()
    status = await agent.enqueue("task_status_update", {"taskId": "T", "summary": "T blocked"})
    comment = await agent.enqueue(
        "task_comment",
        {"taskId": "T", "content": "flaky test"},
        metadata={"senderId": "rita", "senderRole": "agent"},
    )
    await clock.advance(5)
    await runtime.run_until_idle()
    assert any("flaky test" in text for _, text in brain.seen)  # the comment reached a brain
    absorbed = await _stored(runtime, comment)
    assert absorbed.status == ItemStatus.MERGED and absorbed.merged_into == status
    survivor = await _stored(runtime, status)
    assert survivor.status == ItemStatus.COMPLETED
    assert "without a model call" not in (survivor.reason or "")


async def test_core_70_requirement_comment_folded_into_update_reaches_the_brain(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Watcher(clock, step_s=1.0, steps=1)
    agent = await runtime.add_agent("a", brain)
    await agent.enqueue("a2a_message", {"content": "busy"})
    await settle()
    update = await agent.enqueue("requirement_update", {"requirementId": "R", "summary": "R"})
    await agent.enqueue(
        "requirement_comment",
        {"requirementId": "R", "content": "scope?"},
        metadata={"senderId": "omar", "senderRole": "agent"},
    )
    await clock.advance(5)
    await runtime.run_until_idle()
    assert any("scope?" in text for _, text in brain.seen)
    assert "without a model call" not in ((await _stored(runtime, update)).reason or "")


async def test_core_70_updates_alone_still_complete_without_a_model_call(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Watcher(clock, step_s=1.0, steps=1)
    agent = await runtime.add_agent("a", brain)
    await agent.enqueue("a2a_message", {"content": "busy"})
    await settle()
    first = await agent.enqueue("task_status_update", {"taskId": "T", "summary": "T blocked"})
    await agent.enqueue("task_status_update", {"taskId": "T", "summary": "T unblocked"})
    await clock.advance(5)
    await runtime.run_until_idle()
    assert [text for _, _, text in brain.calls] == ["busy"]
    assert "without a model call" in ((await _stored(runtime, first)).reason or "")


async def test_core_70_a_survivor_keeps_every_stimulus_when_it_is_merged_again(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Watcher(clock, step_s=1.0, steps=1)
    agent = await runtime.add_agent("a", brain, AgentConfig(coalesce_window_ms=0))
    await agent.enqueue("a2a_message", {"content": "busy"})
    await settle()
    chat = asyncio.ensure_future(agent.send_message("hello"))
    await settle()
    first = await agent.enqueue("task_status_update", {"taskId": "T", "summary": "T blocked"})
    await agent.enqueue("task_comment", {"taskId": "T", "content": "nested comment"})
    await clock.advance(1.0)  # busy ends; before the chat, the update absorbs the comment
    assert (await _stored(runtime, first)).payload["content"].endswith("nested comment")
    again = await agent.enqueue(
        "task_status_update", {"taskId": "T", "summary": "T again"}, priority=0
    )
    await clock.advance(5)  # after the chat: the newer update absorbs the first survivor
    await runtime.run_until_idle()
    assert chat.done()
    assert (await _stored(runtime, first)).merged_into == again
    assert any("nested comment" in text for _, text in brain.seen)
    survivor = await _stored(runtime, again)
    kinds = [m["sourceType"] for m in survivor.payload["messages"]]
    assert kinds == ["task_status_update", "task_status_update", "task_comment"]


async def test_core_70_stale_purge_never_ages_out_a_survivor_with_a_comment(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Watcher(clock, step_s=1.0, steps=1)
    agent = await runtime.add_agent("a", brain, AgentConfig(stale_after_s=60, coalesce_window_ms=0))
    survivor = MailboxItem(
        id=new_id("mbx"),
        agent_id="a",
        source_type="task_status_update",
        priority=1,
        status=ItemStatus.QUEUED,
        metadata={},
        queued_at=clock.now() - timedelta(hours=1),
        payload={
            "taskId": "T",
            "summary": "T blocked",
            "content": "[task_comment] keep me",
            "mergedItemIds": ["mbx_x"],
            "messages": [
                {"mailboxItemId": "s", "sourceType": "task_status_update", "content": ""},
                {"mailboxItemId": "mbx_x", "sourceType": "task_comment", "content": "keep me"},
            ],
        },
    )
    await runtime.store.write([InsertItem(survivor)])
    stored = await _stored(runtime, survivor.id)
    agent.mailbox.restore([stored])
    await agent.enqueue("a2a_message", {"content": "other"})
    await clock.advance(5)
    await runtime.run_until_idle()
    assert (await _stored(runtime, survivor.id)).status == ItemStatus.COMPLETED
    assert any("keep me" in text for _, text in brain.seen)


async def test_core_70_crash_recovery_keeps_a_survivor_with_a_comment(
    tmp_path: Path, clock: FakeClock
) -> None:
    path = tmp_path / "attn.db"
    store = SQLiteStore(path)
    await store.open()
    left = MailboxItem(
        id=new_id("mbx"),
        agent_id="a",
        source_type="task_status_update",
        priority=1,
        status=ItemStatus.PROCESSING,
        metadata={},
        queued_at=clock.now(),
        started_at=clock.now(),
        payload={
            "taskId": "T",
            "content": "[task_comment] keep me",
            "mergedItemIds": ["x"],
            "messages": [
                {"mailboxItemId": "s", "sourceType": "task_status_update"},
                {"mailboxItemId": "x", "sourceType": "task_comment"},
            ],
        },
    )
    alone = MailboxItem(
        id=new_id("mbx"),
        agent_id="a",
        source_type="task_status_update",
        priority=1,
        status=ItemStatus.PROCESSING,
        metadata={},
        queued_at=clock.now(),
        started_at=clock.now(),
        payload={"taskId": "U", "summary": "U blocked"},
    )
    await store.write([InsertItem(left), InsertItem(alone)])
    await store.close()
    runtime = Runtime(SQLiteStore(path), clock=clock)
    await runtime.start()
    try:
        await runtime.add_agent("a", Watcher(clock, steps=1), start=False)
        assert (await _stored(runtime, left.id)).status == ItemStatus.QUEUED
        assert (await _stored(runtime, alone.id)).status == ItemStatus.DROPPED
    finally:
        await runtime.close()


async def test_core_70_retry_cleanup_keeps_a_status_update_that_absorbed_a_comment(
    runtime: Runtime, clock: FakeClock
) -> None:
    agent = await runtime.add_agent("a", Watcher(clock, steps=1), start=False)
    carrier = MailboxItem(
        id=new_id("mbx"),
        agent_id="a",
        source_type="task_status_update",
        priority=1,
        status=ItemStatus.QUEUED,
        metadata={},
        queued_at=clock.now(),
        payload={
            "taskId": "X",
            "content": "[task_comment] keep me",
            "mergedItemIds": ["c"],
            "messages": [
                {"mailboxItemId": "s", "sourceType": "task_status_update"},
                {"mailboxItemId": "c", "sourceType": "task_comment"},
            ],
        },
    )
    plain = MailboxItem(
        id=new_id("mbx"),
        agent_id="a",
        source_type="task_status_update",
        priority=1,
        status=ItemStatus.QUEUED,
        metadata={},
        queued_at=clock.now(),
        payload={"taskId": "X", "summary": "X blocked"},
    )
    await runtime.store.write([InsertItem(carrier), InsertItem(plain)])
    agent.mailbox.restore([await _stored(runtime, carrier.id), await _stored(runtime, plain.id)])
    dropped = await agent.mailbox.drop_status_updates("X")
    assert [i.id for i in dropped] == [plain.id]
    assert (await _stored(runtime, carrier.id)).status == ItemStatus.QUEUED


# ------------------------------------------------------------------ CORE-71


def _msg(text: str, sender: str = "sam", channel: str = "group:c") -> dict[str, Any]:
    return {"content": text, "extra": {"channelKey": channel}}


def _from(sender: str) -> dict[str, Any]:
    return {"senderId": sender, "senderName": sender, "senderRole": "agent"}


async def test_core_71_arrival_after_the_last_yield_point_is_not_overtaken(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Watcher(clock, step_s=1.0, steps=2)
    agent = await runtime.add_agent("a", brain, AgentConfig(coalesce_window_ms=0))
    await agent.enqueue("a2a_message", _msg("m1"), metadata=_from("sam"))
    await clock.advance(1.5)  # after m1's only yield point (t=1)
    # Idempotency keys: each is an item of its own (no enqueue-time dedup).
    await agent.enqueue("a2a_message", _msg("m2"), metadata=_from("sam"), idempotency_key="k2")
    await agent.enqueue(
        "a2a_message", _msg("r1"), priority=1, metadata=_from("rob"), idempotency_key="k3"
    )
    await clock.advance(1.0)  # m1 ends at t=2; r1 (P1, same channel) is the next focus
    await clock.advance(0.2)
    await agent.enqueue("a2a_message", _msg("m3"), metadata=_from("sam"), idempotency_key="k4")
    await clock.advance(10)
    await runtime.run_until_idle()
    assert brain.order(["m1", "m2", "m3"]) == ["m1", "m2", "m3"]


async def test_core_71_enqueue_dedup_never_puts_a_message_ahead_of_a_keyed_one(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Watcher(clock, step_s=1.0, steps=1)
    agent = await runtime.add_agent("a", brain, AgentConfig(coalesce_window_ms=0))
    await agent.enqueue("a2a_message", {"content": "busy"})
    await settle()
    await agent.enqueue("a2a_message", _msg("m1"), metadata=_from("sam"))
    await agent.enqueue("a2a_message", _msg("m2"), metadata=_from("sam"), idempotency_key="k2")
    await agent.enqueue("a2a_message", _msg("m3"), metadata=_from("sam"))
    await clock.advance(20)
    await runtime.run_until_idle()
    assert brain.order(["m1", "m2", "m3"]) == ["m1", "m2", "m3"]


class RefuseOne(HeuristicRules):
    """The heuristic table, except that one text is never merged."""

    def __init__(self, registry: TypeRegistry, text: str) -> None:
        super().__init__(registry)
        self.text = text

    async def decide(self, focus: MailboxItem, new: MailboxItem) -> Verdict:
        if new.content == self.text:
            return Verdict(DecisionType.CONTINUE, "not this one", "test")
        return await super().decide(focus, new)


async def test_core_71_no_merge_ahead_of_an_earlier_queued_message_of_the_sender(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Watcher(clock, step_s=1.0, steps=3)
    # dedup off: the three queued messages stay items of their own until the yield point.
    agent = await runtime.add_agent(
        "a",
        brain,
        AgentConfig(coalesce_window_ms=0, dedup=False),
        rules=RefuseOne(runtime.registry, "m2"),
    )
    await agent.enqueue("a2a_message", _msg("r0"), metadata=_from("rob"))
    await clock.advance(0.5)
    m2 = await agent.enqueue("a2a_message", _msg("m2"), metadata=_from("sam"), idempotency_key="k2")
    m3 = await agent.enqueue("a2a_message", _msg("m3"), metadata=_from("sam"), idempotency_key="k3")
    other = await agent.enqueue(
        "a2a_message", _msg("o1"), metadata=_from("olga"), idempotency_key="k4"
    )
    await clock.advance(1.0)  # the yield point: m2 refused, so m3 must not merge; o1 may
    assert brain.decisions[0][1] == "merge"
    assert (await _stored(runtime, m3)).status == ItemStatus.QUEUED
    assert (await _stored(runtime, other)).status == ItemStatus.MERGED
    decisions = await runtime.store.find_decisions("a", m3)
    assert "earlier message from the same sender" in decisions[0].reasoning
    await clock.advance(20)
    await runtime.run_until_idle()
    assert brain.order(["m2", "m3"]) == ["m2", "m3"]
    assert (await _stored(runtime, m2)).status == ItemStatus.COMPLETED


async def test_core_71_a_continue_verdict_is_reconsidered_by_the_next_focus(
    runtime: Runtime, clock: FakeClock
) -> None:
    """c2 is judged continue (c1 already preempts); c1's reply never yields, so the
    follow-up must still merge into the next focus of the same session, in order."""
    brain = Watcher(clock, step_s=1.0, steps=1, exec_steps=4)
    agent = await runtime.add_agent("a", brain, AgentConfig(coalesce_window_ms=0))
    await agent.enqueue(
        "task_status_update", {"taskId": "X", "triggerExecution": True, "content": "long work"}
    )
    await clock.advance(0.5)
    chats = [
        asyncio.ensure_future(agent.send_message(t, sender_id="u", session_id="s"))
        for t in ("c1", "c2")
    ]
    await settle()
    await clock.advance(0.6)  # yield point at t=1: c1 preempts, c2 continue
    await clock.advance(20)
    await runtime.run_until_idle()
    assert chats[0].result().text == chats[1].result().text  # one answer for both
    assert brain.order(["c1", "c2"]) == ["c1", "c2"]
    assert (await _stored(runtime, chats[1].result().item_id)).status == ItemStatus.COMPLETED


async def test_core_71_retry_keeps_the_order(runtime: Runtime, clock: FakeClock) -> None:
    seen: list[str] = []
    failed: list[str] = []

    async def work(item: MailboxItem, focus: Focus) -> str:
        await focus.clock.sleep(1)
        if item.content.startswith("m1") and not failed:
            failed.append(item.id)
            raise RuntimeError("flaky")
        seen.extend(item.content.split(SEP))
        return "ok"

    agent = await runtime.add_agent("a", work, AgentConfig(coalesce_window_ms=0))
    await agent.enqueue("a2a_message", _msg("m1"), metadata=_from("sam"), idempotency_key="1")
    await clock.advance(0.5)
    await agent.enqueue("a2a_message", _msg("m2"), metadata=_from("sam"), idempotency_key="2")
    await clock.advance(10)
    await runtime.run_until_idle()
    assert failed and seen == ["m1", "m2"]


# ------------------------------------------------------------------ CORE-72


async def test_core_72_preempted_p1_execution_resumes_before_p2_and_p3(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Watcher(clock, step_s=1.0, steps=1, exec_steps=5)
    agent = await runtime.add_agent("a", brain, AgentConfig(coalesce_window_ms=0))
    run = await agent.enqueue(
        "task_status_update", {"taskId": "X", "triggerExecution": True, "content": "run X"}
    )
    await clock.advance(0.3)
    low = await agent.enqueue("a2a_message", {"content": "p3"}, priority=3)
    normal = await agent.enqueue("a2a_message", {"content": "p2"}, priority=2)
    chat = asyncio.ensure_future(agent.send_message("quick question"))
    await clock.advance(20)
    await runtime.run_until_idle()
    assert chat.result().text
    order = [item.id for _, item, _ in brain.calls]
    assert order == [run, chat.result().item_id, run, normal, low]
    assert await _decision_types(runtime, "a", run) == ["pick", "preempt", "resurface", "pick"]


async def test_core_72_equal_priority_preemption_is_not_undone(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Watcher(clock, step_s=1.0, steps=3)
    agent = await runtime.add_agent("a", brain, AgentConfig(coalesce_window_ms=0))
    work = await agent.enqueue("system_event", {"content": "sweep"}, priority=2)
    await clock.advance(0.5)
    first = await agent.enqueue("a2a_message", {"content": "earlier"}, priority=2)
    await clock.advance(1.0)  # yield point: system work yields to an equal-priority arrival
    await clock.advance(20)
    await runtime.run_until_idle()
    order = [item.id for _, item, _ in brain.calls]
    assert order == [work, first, work]


class PreemptFor:
    """A tier 1 judge that answers preempt for one text and continue otherwise."""

    def __init__(self, text: str) -> None:
        self.text = text

    async def classify(
        self,
        focus: MailboxItem,
        new: MailboxItem,
        queue: list[MailboxItem],
        recent: list[dict[str, Any]],
    ) -> str:
        return "preempt" if new.content == self.text else "continue"


async def test_core_72_the_agent_switches_to_the_preempting_item_then_resumes(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Watcher(clock, step_s=1.0, steps=3)
    agent = await runtime.add_agent(
        "a", brain, AgentConfig(coalesce_window_ms=0), classifier=PreemptFor("stop and look")
    )
    work = await agent.enqueue("review_request", {"content": "review"}, priority=1)
    await clock.advance(0.5)
    normal = await agent.enqueue("a2a_message", {"content": "p2"}, priority=2)
    urgent = await agent.enqueue("a2a_message", {"content": "stop and look"}, priority=3)
    await clock.advance(30)
    await runtime.run_until_idle()
    # The judge chose the P3 item: it runs next, then the P1 work resumes before P2 mail.
    assert [item.id for _, item, _ in brain.calls] == [work, urgent, work, normal]


async def test_core_72_timed_deferral_resurfaces_by_priority_not_only_when_idle(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Watcher(clock, step_s=1.0, steps=1)
    agent = await runtime.add_agent("a", brain, AgentConfig(coalesce_window_ms=0))
    later = await agent.enqueue("a2a_message", {"content": "later"}, priority=1)
    await agent.mailbox.defer(later, clock.now() + timedelta(seconds=2.5))
    ids = [
        await agent.enqueue("a2a_message", {"content": f"bulk {i}"}, priority=3) for i in range(6)
    ]
    await clock.advance(20)
    await runtime.run_until_idle()
    order = [item.id for _, item, _ in brain.calls]
    assert order == [*ids[:3], later, *ids[3:]]  # back at t=2.5, picked at t=3


async def test_core_72_untimed_deferral_still_waits_for_idle(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Watcher(clock, step_s=1.0, steps=1)
    agent = await runtime.add_agent("a", brain, AgentConfig(coalesce_window_ms=0))
    parked = await agent.enqueue("a2a_message", {"content": "parked"}, priority=0)
    await agent.mailbox.defer(parked)
    ids = [
        await agent.enqueue("a2a_message", {"content": f"bulk {i}"}, priority=3) for i in range(3)
    ]
    await clock.advance(20)
    await runtime.run_until_idle()
    assert [item.id for _, item, _ in brain.calls] == [*ids, parked]


# ------------------------------------------------------------------ CORE-73


async def test_core_73_informational_update_never_preempts(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Watcher(clock, step_s=1.0, steps=4)
    agent = await runtime.add_agent("a", brain, AgentConfig(coalesce_window_ms=0))
    work = await agent.enqueue("review_request", {"content": "review"}, priority=2)
    await clock.advance(0.5)
    info = await agent.enqueue(
        "task_status_update", {"taskId": "T", "summary": "T done"}, priority=0
    )
    acting = await agent.enqueue(
        "requirement_update", {"requirementId": "R", "actionRequired": True}, priority=3
    )
    await clock.advance(20)
    await runtime.run_until_idle()
    assert "preempt" not in await _decision_types(runtime, "a", work)
    assert all(action != "preempt" for _, action in brain.decisions)
    stored = await _stored(runtime, info)
    assert stored.status == ItemStatus.COMPLETED and "without a model call" in (stored.reason or "")
    decisions = await runtime.store.find_decisions("a", info)
    assert any("never interrupts the focus" in d.reasoning for d in decisions)
    assert [item.id for _, item, _ in brain.calls] == [work, acting]


# ------------------------------------------------------------------ CORE-75


class SlowClassifier:
    """A tier 1 judge that takes ``latency_s`` of simulated time per call and says continue."""

    def __init__(self, clock: FakeClock, latency_s: float) -> None:
        self.clock, self.latency_s, self.calls = clock, latency_s, 0

    async def classify(
        self,
        focus: MailboxItem,
        new: MailboxItem,
        queue: list[MailboxItem],
        recent: list[dict[str, Any]],
    ) -> str:
        self.calls += 1
        await self.clock.sleep(self.latency_s)
        return "continue"


@pytest.mark.parametrize("classifier", [False, True])
async def test_core_75_a_persons_chat_is_seen_within_one_yield_interval(
    clock: FakeClock, classifier: bool
) -> None:
    runtime = Runtime(MemoryStore(), clock=clock)
    await runtime.start()
    try:
        brain = Watcher(clock, step_s=1.0, steps=2, exec_steps=30)
        agent = await runtime.add_agent(
            "a",
            brain,
            AgentConfig(coalesce_window_ms=0),
            classifier=SlowClassifier(clock, 0.3) if classifier else None,
        )
        await agent.enqueue(
            "task_status_update", {"taskId": "X", "triggerExecution": True, "content": "run X"}
        )
        sent: dict[str, float] = {}
        replies = []

        async def chat(text: str, who: str, at_s: float) -> None:
            await clock.advance(at_s - clock.monotonic())
            sent[text] = clock.monotonic()
            replies.append(
                asyncio.ensure_future(agent.send_message(text, sender_id=who, session_id=who))
            )
            await settle()

        for i in range(4):  # other interrupts pending: agent messages, status updates
            await clock.advance(0.1)
            await agent.enqueue(
                "a2a_message", _msg(f"note {i}", channel=f"dm:{i}"), metadata=_from(f"bot{i}")
            )
            await agent.enqueue("task_status_update", {"taskId": f"T{i}", "summary": "moved"})
        await chat("u1", "pat", 2.2)
        await chat("u2", "pat", 2.5)  # a follow-up, judged continue behind u1
        await chat("v1", "val", 2.6)  # a second person
        await clock.advance(60)
        await runtime.run_until_idle()
        assert all(r.done() for r in replies)
        for text in ("u1", "u2"):
            assert brain.first_seen(text) - sent[text] <= 1.0 + 0.01, text
        # val waited only while pat's chat was being answered
        assert brain.first_seen("v1") - sent["v1"] <= 1.0 + 2 * 1.0 + 0.01
    finally:
        await runtime.close()


async def test_core_70_a_comment_the_brain_handles_on_its_own_is_a_chat_activity(
    runtime: Runtime,
) -> None:
    """000 §6.3: a comment processed as its own item (no running work to inject it
    into), and a status update that absorbed one, get a chat activity with their
    log lines; an informational update alone gets none."""

    async def brain(item: MailboxItem, focus: Focus) -> Reply:
        focus.log("text", f"read {item.id}")
        return Reply("noted")

    agent = await runtime.add_agent("a", brain, AgentConfig(coalesce_window_ms=0), start=False)
    comment = await agent.enqueue(
        "task_comment", {"taskId": "T1", "content": "looks off"}, metadata={"senderId": "rev"}
    )
    update = await agent.enqueue("task_status_update", {"taskId": "T2", "status": "done"})
    await agent.enqueue(
        "task_comment",
        {"taskId": "T2", "content": "but check the docs"},
        metadata={"senderId": "rev"},
    )
    alone = await agent.enqueue("task_status_update", {"taskId": "T3", "status": "done"})
    agent.start()
    await runtime.run_until_idle()
    for item_id in (comment, update):
        (act,) = await runtime.store.find_activities("a", [item_id])
        assert act.type == "chat" and act.ended_at is not None
        logs = await runtime.store.find_activity_logs(act.id)
        assert [entry.content for entry in logs] == [f"read {item_id}"]
    assert await runtime.store.find_activities("a", [alone]) == []
