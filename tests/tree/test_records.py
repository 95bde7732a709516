"""Acceptance A2A-18 and A2A-19, and the delivery race of seed 002, on every store:
background completions (to the working child, else to its parent as EXECUTION
records that wake nobody), Plan stamps, and a delivery retry after the next turn began.
"""

from __future__ import annotations

import asyncio

import pytest

from attn import Runtime
from attn.models import EXECUTION_TYPE, RESULT_TYPE, DeliveryOutcome, ItemStatus
from attn.testing import eventually
from tests.tree.conftest import Worker, items_of, settled, tree_of


async def _queued_completion(rt: Runtime, agent_id: str) -> bool:
    items = await items_of(rt, agent_id, "callback_result")
    return any(i.status == ItemStatus.QUEUED for i in items)


async def test_a2a_18_a_completion_that_arrives_while_the_child_works_reaches_the_child(
    rt: Runtime,
) -> None:
    ada = Worker()
    ada.hold = asyncio.Event()
    ids = await tree_of(rt, ada=ada)
    await rt.tree.send("lead", "/root/ada", "run a probe")
    await eventually(lambda: ada.started.is_set())
    await rt.time.background_exec(ids["ada"], "echo probe-output-early")
    await eventually(lambda: rt.tree.gates[ids["ada"]].agent.mailbox.depth == 1, timeout_s=20)

    ada.hold.set()  # its next safe boundary (model request) reads the completion
    await settled(rt)

    assert "probe-output-early" in "\n".join(ada.turns[0])
    assert await items_of(rt, "lead", EXECUTION_TYPE) == []


async def test_a2a_18_a_completion_after_the_final_answer_goes_to_the_parent_and_wakes_nobody(
    rt: Runtime,
) -> None:
    root, ada = Worker(), Worker()
    ids = await tree_of(rt, root=root, ada=ada)
    await rt.find_agent("lead").stop()  # so the RESULT does not run a root turn
    await rt.tree.send("lead", "/root/ada", "start a probe and answer")
    await settled(rt)

    await rt.time.background_exec(ids["ada"], "echo probe-output-late")
    await eventually(lambda: rt.tree.gates["lead"].unread() == 2, timeout_s=20)
    rt.find_agent("lead").start()  # the RESULT wakes it; the EXECUTION record alone would not
    await settled(rt)

    (record,) = await items_of(rt, "lead", EXECUTION_TYPE)
    assert record.metadata["senderId"] == ids["ada"]
    assert "probe-output-late" in record.content
    assert len(ada.turns) == 1  # the child was not woken either
    assert len(root.turns) == 1  # one turn, for the RESULT, reading the EXECUTION too
    assert "probe-output-late" in "\n".join(root.turns[0])


async def test_a2a_18_an_execution_record_alone_never_wakes_the_parent(rt: Runtime) -> None:
    root, ada = Worker(), Worker()
    ids = await tree_of(rt, root=root, ada=ada)
    await rt.tree.send("lead", "/root/ada", "answer")
    await settled(rt)
    assert len(root.turns) == 1  # for the RESULT

    await rt.time.background_exec(ids["ada"], "echo nobody-wakes")
    await eventually(lambda: rt.tree.gates["lead"].unread() == 1, timeout_s=20)
    await settled(rt)

    assert len(root.turns) == 1 and len(ada.turns) == 1
    (record,) = await items_of(rt, "lead", EXECUTION_TYPE)
    assert record.status == ItemStatus.QUEUED  # kept for the parent's next turn


async def test_a2a_18_a_completion_unread_at_settlement_is_committed_with_the_result(
    rt: Runtime,
) -> None:
    ada = Worker(boundaries=0)  # no safe boundary after the hold: it cannot read it
    ada.hold = asyncio.Event()
    ids = await tree_of(rt, ada=ada)
    await rt.find_agent("lead").stop()
    await rt.tree.send("lead", "/root/ada", "answer without reading")
    await eventually(lambda: ada.started.is_set())
    await rt.time.background_exec(ids["ada"], "echo unread-output")
    await eventually(lambda: rt.tree.gates[ids["ada"]].agent.mailbox.depth == 1, timeout_s=20)
    ada.hold.set()
    await settled(rt)

    (record,) = await items_of(rt, "lead", EXECUTION_TYPE)
    (result,) = await items_of(rt, "lead", RESULT_TYPE)
    assert "unread-output" in record.content and record.metadata["senderId"] == ids["ada"]
    assert "unread-output" not in result.content  # the RESULT keeps the final answer only
    assert not await _queued_completion(rt, ids["ada"])


async def test_a2a_19_mail_sent_under_plan_wakes_its_reader_read_only(rt: Runtime) -> None:
    root, ada, ben = Worker(), Worker(), Worker()
    ids = await tree_of(rt, root=root, ada=ada, ben=ben)
    rt.tree.set_plan("lead", True)
    await rt.tree.send("lead", "/root/ada", "look, do not touch")
    await settled(rt)
    rt.tree.set_plan("lead", False)
    await rt.tree.send("lead", "/root/ben", "go ahead")
    await settled(rt)

    assert ada.read_only == [True] and ben.read_only == [False]
    results = await items_of(rt, "lead", RESULT_TYPE)
    assert len(results) == 2
    assert root.read_only == [False, False]  # RESULTs carry no stamp
    assert ids["ada"] not in rt.tree.plan


async def test_a2a_19_a_read_only_turn_stamps_the_mail_it_sends(rt: Runtime) -> None:
    ben = Worker()
    relay_seen: list[bool] = []

    async def relay(item, focus):  # type: ignore[no-untyped-def]
        relay_seen.append(bool(focus.session.get("readOnly")))
        await rt.tree.send("lead.ada", "/root/ben", "pass it on")
        return "relayed"

    ids = await tree_of(rt, ada=relay, ben=ben)
    rt.tree.set_plan("lead", True)
    await rt.tree.send("lead", "/root/ada", "plan only")
    await settled(rt)

    assert relay_seen == [True] and ben.read_only == [True]
    assert ids["ben"] == "lead.ben"


async def test_a2a_19_plan_stamps_are_runtime_only_and_never_reach_a_root(rt: Runtime) -> None:
    root = Worker()
    ids = await tree_of(rt, root=root, ada=Worker())
    rt.tree.set_plan(ids["ada"], True)
    await rt.tree.send(ids["ada"], "/root", "a note for the root")
    await settled(rt)
    assert root.read_only == [False]


async def test_a_delivery_retry_after_the_next_turn_started_leaves_that_turn_alone(
    rt: Runtime,
) -> None:
    ada = Worker()
    ada.hold = asyncio.Event()
    ids = await tree_of(rt, ada=ada)
    first = await rt.tree.send("lead", "/root/ada", "deliver once", idempotency_key="k-1")
    await eventually(lambda: ada.started.is_set())

    retry = await rt.tree.send("lead", "/root/ada", "deliver once", idempotency_key="k-1")
    ada.hold.set()
    await settled(rt)

    assert first.outcome == DeliveryOutcome.STARTED
    assert retry.outcome == DeliveryOutcome.QUEUED and retry.reason == "duplicate: sent before"
    assert retry.item_id == first.item_id
    assert ada.turns == [["deliver once"]]  # the running turn got nothing twice
    assert len(await items_of(rt, ids["ada"], "agent_mail")) == 1


async def test_a_key_reused_for_other_mail_is_a_conflict_and_sends_nothing(rt: Runtime) -> None:
    from attn.errors import IdempotencyConflict

    ids = await tree_of(rt, ada=Worker())
    await rt.tree.send("lead", "/root/ada", "the first text", idempotency_key="k-2")
    await settled(rt)
    with pytest.raises(IdempotencyConflict):
        await rt.tree.send("lead", "/root/ada", "another text", idempotency_key="k-2")
    assert len(await items_of(rt, ids["ada"], "agent_mail")) == 1
