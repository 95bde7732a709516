"""Acceptance A2A-12 and A2A-21 over the Python API, on every store: capacity slots,
waking oldest mail first, no leaked slot, residency counted apart from running turns.
"""

from __future__ import annotations

import asyncio

from attn import Runtime
from attn.models import RESULT_TYPE, AgentRunState, DeliveryOutcome
from attn.testing import eventually
from tests.tree.conftest import FAST, Worker, items_of, settled, tree_of


async def test_a2a_12_at_capacity_mail_is_queued_with_a_wake_mark_and_starts_when_a_slot_frees(
    rt: Runtime,
) -> None:
    workers = {name: Worker() for name in ("a", "b", "c", "d")}
    for worker in workers.values():
        worker.hold = asyncio.Event()
    ids = await tree_of(rt, **workers)  # default capacity: 3 per root tree
    for name in ("a", "b", "c"):
        assert (await rt.tree.send("lead", f"/root/{name}", "work")).outcome == "started"
    await eventually(lambda: all(workers[n].started.is_set() for n in "abc"))

    queued = await rt.tree.send("lead", "/root/d", "work when you can")

    assert queued.outcome == DeliveryOutcome.QUEUED
    reason = queued.reason or ""
    assert "3 of 3" in reason and "starts when a slot frees" in reason
    assert all(f"/root/{n}" in reason for n in "abc")  # names the holders
    assert rt.tree.gates[ids["d"]].state == AgentRunState.WAITING
    workers["a"].hold.set()
    await eventually(lambda: workers["d"].started.is_set())
    assert workers["d"].turns == [["work when you can"]]
    for worker in workers.values():
        worker.hold.set()
    await settled(rt)


async def test_a2a_12_when_a_slot_frees_the_oldest_waking_mail_is_offered_first(
    rt: Runtime,
) -> None:
    holder = Worker()
    holder.hold = asyncio.Event()
    late, early = Worker(), Worker()
    await tree_of(rt, holder=holder, late=late, early=early)
    await rt.tree.make_root("lead", capacity=1)
    await rt.tree.send("lead", "/root/holder", "hold")
    await eventually(lambda: holder.started.is_set())
    order: list[str] = []
    early.hold = late.hold = None
    await rt.tree.send("lead", "/root/early", "first in line")
    await rt.tree.send("lead", "/root/late", "second in line")
    for name, worker in (("early", early), ("late", late)):
        worker.started = _Recorder(order, name)  # type: ignore[assignment]

    holder.hold.set()
    await settled(rt)

    assert order == ["early", "late"]


class _Recorder(asyncio.Event):
    def __init__(self, order: list[str], name: str) -> None:
        super().__init__()
        self._order, self._name = order, name

    def set(self) -> None:
        self._order.append(self._name)
        super().set()


async def test_a2a_21_twelve_waves_of_six_children_over_three_slots_never_leak(
    rt: Runtime,
) -> None:
    await rt.add_agent("lead", Worker(), FAST)
    running = 0
    most = 0

    class Counting(Worker):
        async def __call__(self, item, focus):  # type: ignore[no-untyped-def]
            nonlocal running, most
            running += 1
            most = max(most, running)
            try:
                await asyncio.sleep(0)
                return await super().__call__(item, focus)
            finally:
                running -= 1

    answers: list[DeliveryOutcome] = []
    for wave in range(12):
        for n in range(6):
            node = await rt.tree.spawn("lead", f"w{wave}-{n}", brain=Counting(), config=FAST)
            answers.append((await rt.tree.send("lead", node.id, f"wave {wave}")).outcome)
        await settled(rt)
        slots = rt.tree.slots["lead"]
        assert slots.holders == {} and slots.reserved == {} and slots.waiting == {}  # no leak

    assert most <= 3
    assert answers.count(DeliveryOutcome.STARTED) >= 12 * 3  # each wave starts three at once
    children = [n for n in rt.tree.tree_of("lead") if not n.is_root]
    assert len(children) == 72  # residency: all retained, none running
    assert all(rt.tree.gates[n.id].state == AgentRunState.IDLE for n in children)
    results = await items_of(rt, "lead", RESULT_TYPE)
    assert len(results) == 72  # exactly one RESULT per settled turn


async def test_a2a_21_residency_is_counted_apart_from_running_turns(rt: Runtime) -> None:
    busy = Worker()
    busy.hold = asyncio.Event()
    await tree_of(rt, busy=busy, idle1=Worker(), idle2=Worker(), idle3=Worker())
    await rt.tree.send("lead", "/root/busy", "go")
    await eventually(lambda: busy.started.is_set())

    slots = rt.tree.slots["lead"]
    assert len(slots.holders) == 1 and slots.free == 2  # three idle agents hold nothing
    third = await rt.tree.send("lead", "/root/idle1", "you too")
    assert third.outcome == DeliveryOutcome.STARTED
    busy.hold.set()
    await settled(rt)
    assert slots.holders == {}


async def test_a2a_21_a_slot_is_freed_by_every_terminal_transition(rt: Runtime) -> None:
    failing, cancelled, done = Worker(), Worker(), Worker()
    failing.fail = True
    cancelled.hold = asyncio.Event()
    ids = await tree_of(rt, failing=failing, cancelled=cancelled, done=done)
    await rt.tree.make_root("lead", capacity=1)

    await rt.tree.send("lead", "/root/failing", "fail")
    await settled(rt)
    await rt.tree.send("lead", "/root/cancelled", "be interrupted")
    await eventually(lambda: cancelled.started.is_set())
    await rt.tree.interrupt(ids["cancelled"], "enough")
    cancelled.hold.set()
    await settled(rt)
    assert (await rt.tree.send("lead", "/root/done", "last")).outcome == "started"
    await settled(rt)

    assert rt.tree.slots["lead"].holders == {}
    outcomes = [r.extra("outcome") for r in await items_of(rt, "lead", RESULT_TYPE)]
    assert outcomes == ["errored", "interrupted", "completed"]


async def test_a2a_21_removing_a_child_mid_turn_frees_its_slot_and_reports_the_interruption(
    rt: Runtime,
) -> None:
    busy, next_one = Worker(), Worker()
    busy.hold = asyncio.Event()
    ids = await tree_of(rt, busy=busy, next_one=next_one)
    await rt.tree.make_root("lead", capacity=1)
    await rt.tree.send("lead", "/root/busy", "long work")
    await eventually(lambda: busy.started.is_set())
    queued = await rt.tree.send("lead", "/root/next_one", "after it")
    assert queued.outcome == DeliveryOutcome.QUEUED

    assert await rt.tree.remove(ids["busy"]) == [ids["busy"]]
    await settled(rt)

    assert rt.find_agent(ids["busy"]) is None and ids["busy"] not in rt.tree.nodes
    assert next_one.turns == [["after it"]]  # the freed slot went to the waiting agent
    assert rt.tree.slots["lead"].holders == {}
    stored = {n.id: n.state for n in await rt.store.find_tree_agents("lead")}
    assert stored[ids["busy"]] == "removed"
    outcomes = [r.extra("outcome") for r in await items_of(rt, "lead", RESULT_TYPE)]
    assert outcomes[0] == "interrupted"


async def test_removing_the_root_agent_stops_hosting_its_children_and_keeps_the_tree(
    rt: Runtime,
) -> None:
    ids = await tree_of(rt, ada=Worker(), ben=Worker())
    await rt.remove_agent("lead")
    assert rt.agents == [] and rt.tree.nodes == {}
    states = {n.id: n.state for n in await rt.store.find_tree_agents("lead")}
    assert states[ids["ada"]] == states[ids["ben"]] == "active"  # hosted again with lead

    rt.tree.brain_factory = lambda node: Worker()
    await rt.add_agent("lead", Worker(), FAST)
    assert sorted(rt.tree.nodes) == ["lead", ids["ada"], ids["ben"]]


async def test_a_removed_childs_unread_mail_never_reaches_a_new_child_of_that_path(
    rt: Runtime,
) -> None:
    old, new = Worker(), Worker()
    ids = await tree_of(rt, r1=old)
    await rt.tree.stop(ids["r1"])
    await rt.tree.send("lead", "/root/r1", "old secret mail")
    await rt.tree.remove(ids["r1"])

    await rt.tree.spawn("lead", "r1", "fresh task", brain=new, config=FAST)
    await settled(rt)
    assert new.turns == [["fresh task"]]
