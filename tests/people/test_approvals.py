"""Approvals park the item, not the loop, and resume it once (PPL-02..08)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from attn import Runtime
from attn.errors import ApprovalClosed, ApprovalNotFound, InvalidInput, UnknownUser
from attn.models import ItemStatus
from attn.store.base import Store
from attn.testing import FakeClock
from tests.people.conftest import FAST, Asker, items_of, settled, snapshot


async def test_ppl_02_two_identical_requests_in_one_turn_get_two_ids_and_each_its_answer(
    rt: Runtime,
) -> None:
    asker = Asker(rt)
    await rt.add_agent("ops", asker, FAST)
    await rt.get_agent("ops").enqueue("task_comment", {"content": "ask 2", "taskId": "t1"})
    await settled(rt)
    first, second = asker.asked
    assert first != second
    (parked,) = await items_of(rt, "ops", ItemStatus.PARKED)
    a = await rt.people.approvals.get(first)
    b = await rt.people.approvals.get(second)
    assert (a.title, a.description) == (b.title, b.description)  # identical requests
    assert a.item_id == b.item_id == parked.id and a.pending and b.pending

    _, resumed = await rt.people.approvals.answer(first, option="approve", comment="yes")
    assert resumed is False  # the other is still open: the item waits for it
    await settled(rt)
    assert asker.resumed == []
    _, resumed = await rt.people.approvals.answer(second, option="reject", comment="not now")
    assert resumed is True
    await settled(rt)
    ((item_id, answers),) = asker.resumed
    assert item_id == parked.id
    assert answers[first]["selected_option"] == "approve" and answers[first]["comment"] == "yes"
    assert answers[second]["selected_option"] == "reject" and answers[second]["approved"] is False
    assert asker.actions == []  # one answer rejected: no action


async def test_ppl_03_the_loop_serves_other_mail_while_an_item_is_parked(rt: Runtime) -> None:
    asker = Asker(rt)
    await rt.add_agent("ops", asker, FAST)
    agent = rt.get_agent("ops")
    await agent.enqueue("task_comment", {"content": "ask", "taskId": "t1"})
    await settled(rt)
    (approval_id,) = asker.asked
    for n in range(3):
        await agent.enqueue("task_comment", {"content": f"other {n}", "taskId": f"t{n + 2}"})
    reply = await agent.send_message("are you there?", timeout_s=10)  # a chat meanwhile
    await settled(rt)
    assert sorted(asker.served) == ["are you there?", "other 0", "other 1", "other 2"]
    assert reply.text == "served are you there?"
    assert (await rt.people.approvals.get(approval_id)).pending  # the chat discarded nothing
    assert agent.state.value == "idle" and agent.depth == 0

    await rt.people.approvals.answer(approval_id, option="approve", comment="ship it")
    await settled(rt)
    ((item_id, answers),) = asker.resumed
    assert answers[approval_id]["approved"] is True
    assert answers[approval_id]["comment"] == "ship it"
    (done,) = [i for i in await items_of(rt, "ops") if i.id == item_id]
    assert done.status == ItemStatus.COMPLETED


async def test_ppl_04_pending_approvals_survive_a_restart_and_answering_resumes(
    make_store: Callable[[], Store], clock: FakeClock, backend: str
) -> None:
    if backend == "memory":
        pytest.skip("the memory store keeps nothing across a restart")
    async with Runtime(make_store(), clock=clock) as rt:
        asker = Asker(rt)
        await rt.add_agent("ops", asker, FAST)
        await rt.get_agent("ops").enqueue("task_comment", {"content": "ask", "taskId": "t1"})
        await settled(rt)
        (approval_id,) = asker.asked
    async with Runtime(make_store(), clock=clock) as rt:
        asker = Asker(rt)
        await rt.add_agent("ops", asker, FAST)
        await settled(rt)
        pending, total = await rt.people.approvals.page(states=["pending"])
        assert total == 1 and pending[0].id == approval_id
        (parked,) = await items_of(rt, "ops", ItemStatus.PARKED)
        assert asker.before == []  # nothing ran again after the restart
        await rt.people.approvals.answer(approval_id, option="approve")
        await settled(rt)
        assert [i for i, _ in asker.resumed] == [parked.id]
        assert asker.actions == [parked.id]


async def test_ppl_04_an_approval_that_expires_resumes_the_work_with_an_expired_outcome(
    rt: Runtime, clock: FakeClock
) -> None:
    asker = Asker(rt, expires_in_s=60)
    await rt.add_agent("ops", asker, FAST)
    await rt.get_agent("ops").enqueue("task_comment", {"content": "ask", "taskId": "t1"})
    await settled(rt)
    (approval_id,) = asker.asked
    await clock.advance(59)
    await settled(rt)
    assert asker.resumed == []
    await clock.advance(2)
    await settled(rt)
    ((_, answers),) = asker.resumed
    assert answers[approval_id]["status"] == "expired"
    assert answers[approval_id]["approved"] is False
    expired = await rt.people.approvals.get(approval_id)
    assert expired.state.value == "expired" and expired.answered_by == "system"
    with pytest.raises(ApprovalClosed) as closed:
        await rt.people.approvals.answer(approval_id, option="approve")
    assert closed.value.state == "expired"


async def test_ppl_05_bad_answers_are_clear_errors_and_change_nothing(rt: Runtime) -> None:
    asker = Asker(rt)
    await rt.add_agent("ops", asker, FAST)
    await rt.get_agent("ops").enqueue("task_comment", {"content": "ask", "taskId": "t1"})
    await settled(rt)
    (approval_id,) = asker.asked
    before = await snapshot(rt, "ops")
    approvals = rt.people.approvals
    refusals = [
        (approvals.answer("apr_nope", option="approve"), ApprovalNotFound),
        (approvals.answer(approval_id, option="maybe"), InvalidInput),
        (approvals.answer(approval_id), InvalidInput),  # no option, no free text allowed
        (approvals.answer(approval_id, option="approve", by="mallory"), UnknownUser),
        (approvals.answer(approval_id, option="approve", comment="x" * 10_001), InvalidInput),
        (approvals.answer(approval_id, option=["approve"]), InvalidInput),
        (approvals.answer(None, option="approve"), ApprovalNotFound),
    ]
    for call, error in refusals:
        with pytest.raises(error):
            await call
        assert await snapshot(rt, "ops") == before
    await approvals.answer(approval_id, option="approve")
    await settled(rt)
    after_answer = await snapshot(rt, "ops")
    with pytest.raises(ApprovalClosed) as closed:
        await approvals.answer(approval_id, option="reject")
    assert "already" in str(closed.value) and closed.value.state == "approved"
    assert await snapshot(rt, "ops") == after_answer
    assert asker.actions == [asker.before[0]]


async def test_ppl_06_the_approved_action_runs_once_and_nothing_before_it_again(
    rt: Runtime,
) -> None:
    asker = Asker(rt)
    await rt.add_agent("ops", asker, FAST)
    await rt.get_agent("ops").enqueue("task_comment", {"content": "ask", "taskId": "t1"})
    await settled(rt)
    (approval_id,) = asker.asked
    stored = await rt.people.approvals.get(approval_id)
    assert stored.pending  # stored before anything else ran
    await rt.people.approvals.answer(approval_id, option="approve")
    await settled(rt)
    with pytest.raises(ApprovalClosed):
        await rt.people.approvals.answer(approval_id, option="approve")
    await rt.people.approvals.settle()
    await settled(rt)
    assert len(asker.before) == 1 and len(asker.actions) == 1 and len(asker.resumed) == 1
    (item,) = await items_of(rt, "ops")
    assert item.status == ItemStatus.COMPLETED
    assert list(item.session["approvals"]) == [approval_id]  # keyed by (item, request id)


async def test_ppl_07_an_answer_resumes_an_idle_agent_at_once(
    rt: Runtime, clock: FakeClock
) -> None:
    """No time has to pass: the answer's commit wakes the loop (the benchmark measures
    how long it takes on a real clock)."""
    asker = Asker(rt)
    await rt.add_agent("ops", asker, FAST)
    await rt.get_agent("ops").enqueue("task_comment", {"content": "ask", "taskId": "t1"})
    await settled(rt)
    at = clock.now()
    await rt.people.approvals.answer(asker.asked[0], option="approve")
    await settled(rt)
    assert clock.now() == at and len(asker.resumed) == 1


async def test_ppl_07_three_parked_items_leave_the_other_items_flowing(rt: Runtime) -> None:
    asker = Asker(rt)
    await rt.add_agent("ops", asker, FAST)
    agent = rt.get_agent("ops")
    for n in range(3):
        await agent.enqueue("task_comment", {"content": "ask", "taskId": f"a{n}"})
    await settled(rt)
    assert len(await items_of(rt, "ops", ItemStatus.PARKED)) == 3
    for n in range(100):
        await agent.enqueue("task_comment", {"content": f"item {n}", "taskId": f"b{n}"})
    await settled(rt)
    assert asker.served == [f"item {n}" for n in range(100)]  # in order, none held back
    assert len(await items_of(rt, "ops", ItemStatus.PARKED)) == 3


async def test_ppl_08_the_first_answer_wins(rt: Runtime) -> None:
    asker = Asker(rt)
    await rt.add_agent("ops", asker, FAST)
    await rt.get_agent("ops").enqueue("task_comment", {"content": "ask", "taskId": "t1"})
    await settled(rt)
    (approval_id,) = asker.asked
    answers = await asyncio.gather(
        rt.people.approvals.answer(approval_id, option="approve", comment="first"),
        rt.people.approvals.answer(approval_id, option="reject", comment="second"),
        return_exceptions=True,
    )
    won = [a for a in answers if not isinstance(a, BaseException)]
    lost = [a for a in answers if isinstance(a, ApprovalClosed)]
    assert len(won) == 1 and len(lost) == 1
    assert lost[0].state == won[0][0].state.value
    await settled(rt)
    assert len(asker.resumed) == 1


async def test_cancelling_an_approval_resumes_with_a_cancelled_outcome(rt: Runtime) -> None:
    asker = Asker(rt)
    await rt.add_agent("ops", asker, FAST)
    await rt.get_agent("ops").enqueue("task_comment", {"content": "ask", "taskId": "t1"})
    await settled(rt)
    await rt.people.approvals.cancel(asker.asked[0], reason="not needed")
    await settled(rt)
    ((_, answers),) = asker.resumed
    assert answers[asker.asked[0]]["status"] == "cancelled"


async def test_dropping_a_parked_item_cancels_its_approvals(rt: Runtime) -> None:
    asker = Asker(rt)
    await rt.add_agent("ops", asker, FAST)
    agent = rt.get_agent("ops")
    await agent.enqueue("task_comment", {"content": "ask", "taskId": "t1"})
    await settled(rt)
    (parked,) = await items_of(rt, "ops", ItemStatus.PARKED)
    await agent.mailbox.drop(parked.id, reason="a person changed their mind")
    await settled(rt)
    approval = await rt.people.approvals.get(asker.asked[0])
    assert approval.state.value == "cancelled" and asker.resumed == []


async def test_an_answer_during_the_asking_turn_resumes_the_item_once_it_parked(
    rt: Runtime,
) -> None:
    """A person answers before the brain returned: the item parks and resumes at once."""
    gate = asyncio.Event()
    seen: list[dict[str, object]] = []

    async def brain(item, focus):  # type: ignore[no-untyped-def]
        if focus.approvals:
            seen.append(focus.approvals)
            return "done"
        approval = await rt.people.approvals.request(focus, "Go?", "")
        await rt.people.approvals.answer(approval.id, option="approve")
        await gate.wait()
        return None

    await rt.add_agent("ops", brain, FAST)
    await rt.get_agent("ops").enqueue("task_comment", {"content": "x", "taskId": "t1"})
    await asyncio.sleep(0.05)
    gate.set()
    await settled(rt)
    assert len(seen) == 1
    (item,) = await items_of(rt, "ops")
    assert item.status == ItemStatus.COMPLETED


async def test_asking_with_bad_arguments_stores_nothing_and_parks_nothing(rt: Runtime) -> None:
    errors: list[Exception] = []
    cases = [
        {"title": ""},
        {"title": "two\nlines"},
        {"title": "x" * 201},
        {"title": "ok", "options": []},
        {"title": "ok", "options": [{"id": "a", "label": "A"}, {"id": "a", "label": "B"}]},
        {"title": "ok", "options": [{"id": "", "label": "A"}]},
        {"title": "ok", "options": [{"id": "a", "label": "A", "x": 1}]},
        {"title": "ok", "expires_in_s": 0},
        {"title": "ok", "expires_in_s": float("nan")},
        {"title": "ok", "expires_in_s": 10**400},
        {"title": "ok", "priority": "low"},
        {"title": "ok", "user_id": "nobody"},
        {"title": "ok", "allow_freeform": "yes"},
        {"title": "ok", "context": [1]},
    ]

    async def brain(item, focus):  # type: ignore[no-untyped-def]
        for case in cases:
            try:
                await rt.people.approvals.request(focus, **case)
            except InvalidInput as exc:
                errors.append(exc)
        return "asked nothing"

    await rt.add_agent("ops", brain, FAST)
    await rt.get_agent("ops").enqueue("task_comment", {"content": "x", "taskId": "t1"})
    await settled(rt)
    assert len(errors) == len(cases)
    (item,) = await items_of(rt, "ops")
    assert item.status == ItemStatus.COMPLETED
    assert (await rt.people.approvals.page())[1] == 0
    assert (await rt.people.notifications.page()).total_count == 0


async def test_an_answer_marks_its_bell_entry_read_and_says_so_live(rt: Runtime) -> None:
    from attn.core.events import NOTIFICATIONS_READ, Event

    asker = Asker(rt)
    await rt.add_agent("ops", asker, FAST)
    await rt.get_agent("ops").enqueue("task_comment", {"content": "ask", "taskId": "t1"})
    await settled(rt)
    events: list[Event] = []
    rt.bus.subscribe(events.append)
    approval = await rt.people.approvals.get(asker.asked[0])
    assert (await rt.people.notifications.page()).unread_count == 1
    await rt.people.approvals.answer(approval.id, option="approve")
    (read,) = [e for e in events if e.type == NOTIFICATIONS_READ]
    assert read.data == {"userId": "user", "ids": [approval.notification_id], "unreadCount": 0}


async def test_a_free_text_answer_is_neither_a_yes_nor_a_no(rt: Runtime) -> None:
    """'NO, do not deploy' typed as free text must not approve (newcomer, issue 15)."""
    asker = Asker(rt, allow_freeform=True)
    await rt.add_agent("ops", asker, FAST)
    await rt.get_agent("ops").enqueue("task_comment", {"content": "ask", "taskId": "t1"})
    await settled(rt)
    closed, _ = await rt.people.approvals.answer(asker.asked[0], comment="NO, wait for me")
    assert closed.state.value == "answered" and not closed.approved
    await settled(rt)
    ((_, answers),) = asker.resumed
    answer = answers[asker.asked[0]]
    assert (answer["approved"], answer["selected_option"]) == (False, None)
    assert answer["comment"] == "NO, wait for me" and asker.actions == []
