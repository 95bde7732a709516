"""notify_user, the bell and the main session (PPL-01, PPL-09's persistence, PPL-17)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from attn import Runtime
from attn.config.people import User, Users
from attn.core.events import NOTIFICATION, SESSION_MESSAGE, Event
from attn.errors import InvalidInput, NotificationNotFound, UnknownAgent, UnknownUser
from attn.store.base import Store
from attn.testing import FakeClock
from tests.people.conftest import FAST, Asker, settled, snapshot

PEOPLE = Users((User("ana", "Ana", owner=True), User("bo", "Bo")))


async def test_ppl_01_notify_user_stores_a_notification_and_a_main_session_message(
    make_store: Callable[[], Store], clock: FakeClock
) -> None:
    async with Runtime(make_store(), clock=clock, users=PEOPLE) as rt:
        events: list[Event] = []
        rt.bus.subscribe(events.append)
        await rt.add_agent("ops", Asker(rt), FAST)
        # A person chats first: they are the default target from then on (000 §25.1).
        await rt.get_agent("ops").send_message("hi", sender_id="bo", timeout_s=10)
        await settled(rt)
        people = rt.people
        chat = await people.notify_user("ops", "Build green", "All 3,579 tests pass.")
        task = await people.notify_user(
            "ops",
            "Task done",
            "Shipped.",
            priority="high",
            related_task_id="tsk_1",
            related_requirement_id="req_9",
            target_user_id="ana",
        )
        assert chat.user_id == "bo" and task.user_id == "ana"
        assert (chat.type, chat.priority.value, chat.action_type.value) == (
            "agent_report",
            "normal",
            "open_chat",
        )
        assert chat.action_target == {"agentId": "ops", "sessionId": "main"}
        assert task.action_type.value == "navigate"
        assert task.action_target == {"path": "/work?task=tsk_1"}
        assert [e.data["notification"]["id"] for e in events if e.type == NOTIFICATION] == [
            chat.id,
            task.id,
        ]
        messages = await people.sessions.page("ops", include_activity=False)
        notify = [m for m in messages if m.metadata.get("notifyUser")]
        assert [m.content.splitlines()[0] for m in notify] == ["**Build green**", "**Task done**"]
        assert notify[1].content.endswith(
            "<!-- notify_context: task_id=tsk_1, requirement_id=req_9 -->"
        )
        assert notify[1].metadata["taskId"] == "tsk_1"
        assert notify[1].metadata["requirementId"] == "req_9"
        assert any(e.type == SESSION_MESSAGE for e in events)

        page = await people.notifications.page("ana")
        assert (page.total_count, page.unread_count) == (1, 1)
        assert (await people.notifications.page("bo", type="agent_report")).total_count == 1
        assert (await people.notifications.page("bo", type="system")).total_count == 0
        read = await people.notifications.mark_read(task.id)
        assert read.read is True
        assert (await people.notifications.page("ana")).unread_count == 0
        await people.notifications.notify("bo", "system", "Maintenance tonight")
        assert await people.notifications.mark_all_read("bo") == 2
        page = await people.notifications.page("bo", unread_only=True)
        assert (page.total_count, page.unread_count) == (0, 0)
        assert await people.notifications.mark_all_read("bo") == 0


async def test_ppl_09_notifications_survive_a_restart(
    make_store: Callable[[], Store], clock: FakeClock, backend: str
) -> None:
    if backend == "memory":
        pytest.skip("the memory store keeps nothing across a restart")
    async with Runtime(make_store(), clock=clock, users=PEOPLE) as rt:
        sent = await rt.people.notifications.notify(None, "system", "Hello", "body")
    async with Runtime(make_store(), clock=clock, users=PEOPLE) as rt:
        page = await rt.people.notifications.page("ana")
        assert [n.to_dict() for n in page.notifications] == [sent.to_dict()]
        assert page.unread_count == 1


async def test_bad_notifications_are_refused_and_change_nothing(rt: Runtime) -> None:
    await rt.add_agent("ops", Asker(rt), FAST)
    before = await snapshot(rt, "ops")
    people = rt.people
    bad = [
        people.notify_user("ops", "", "x"),
        people.notify_user("ops", "t", "x", priority="loud"),
        people.notify_user("ops", "t", "x", target_user_id="nobody"),
        people.notify_user("ops", "t", "x" * 20_001),
        people.notifications.notify(None, "no_such_type", "t"),
        people.notifications.notify(None, "system", "t", action_type="navigate"),
        people.notifications.notify(
            None, "system", "t", action_type="navigate", action_target={"path": "x"}
        ),
        people.notifications.notify(None, "system", "t", metadata={"n": float("nan")}),
        people.notifications.page(limit=0),
        people.notifications.page(offset=-1),
        people.notifications.page(unread_only="yes"),
        people.notifications.page("nobody"),
    ]
    for call in bad:
        with pytest.raises((InvalidInput, UnknownUser)):
            await call
        assert await snapshot(rt, "ops") == before
    with pytest.raises(NotificationNotFound):
        await people.notifications.mark_read("ntf_nope")


async def test_ppl_17_each_processed_non_chat_item_adds_one_activity_line(rt: Runtime) -> None:
    asker = Asker(rt)
    await rt.add_agent("ops", asker, FAST)
    agent = rt.get_agent("ops")
    await agent.enqueue("task_comment", {"content": "look at the logs", "taskId": "t1"})
    await agent.enqueue("system_event", {"content": "disk 91% full"})
    await agent.send_message("what's up?", timeout_s=10)
    await settled(rt)
    mind = await rt.people.sessions.page("ops")
    chat = await rt.people.sessions.page("ops", include_activity=False)
    activity = [m.content for m in mind if m.role.value == "activity"]
    assert sorted(activity) == [
        "[ACTIVITY: system_event] disk 91% full → processed: served disk 91% full",
        "[ACTIVITY: task_comment] look at the logs → processed: served look at the logs",
    ]
    assert [(m.role.value, m.content) for m in chat] == [
        ("user", "what's up?"),
        ("assistant", "served what's up?"),
    ]
    assert all(m.metadata.get("activityLog") for m in mind if m.role.value == "activity")


async def test_a_parked_item_gets_a_waiting_line_and_its_resumed_work_an_outcome(
    rt: Runtime,
) -> None:
    asker = Asker(rt)
    await rt.add_agent("ops", asker, FAST)
    await rt.get_agent("ops").enqueue("task_comment", {"content": "ask", "taskId": "t1"})
    await settled(rt)
    await rt.people.approvals.answer(asker.asked[0], option="approve")
    await settled(rt)
    lines = [m.content for m in await rt.people.sessions.page("ops")]
    assert lines[0].startswith("[ACTIVITY: task_comment] ask → waiting for a person's answer")
    assert lines[1] == "[ACTIVITY: task_comment] ask → processed: resumed with approved"


async def test_a_parked_chat_is_in_the_main_session_before_what_came_after_it(
    rt: Runtime,
) -> None:
    """The person's message is stored when its chat parks, not when it completes, so
    the session keeps the order things happened in (newcomer, issue 15)."""
    asker = Asker(rt)
    await rt.add_agent("ops", asker, FAST)
    agent = rt.get_agent("ops")
    chat = asyncio.ensure_future(agent.send_message("ask"))
    await asker.asking.wait()
    await settled(rt)
    await rt.people.notify_user("ops", "Waiting", "for your answer")
    await rt.people.approvals.answer(asker.asked[0], option="approve")
    assert (await chat).text == "resumed with approved"
    chat_view = await rt.people.sessions.page("ops", include_activity=False)
    assert [(m.role.value, m.content.splitlines()[0]) for m in chat_view] == [
        ("user", "ask"),
        ("assistant", "**Waiting**"),
        ("assistant", "resumed with approved"),
    ]


async def test_notify_user_refuses_an_unknown_agent_and_a_ref_that_breaks_the_comment(
    rt: Runtime,
) -> None:
    await rt.add_agent("ops", Asker(rt), FAST)
    before = await snapshot(rt, "ops")
    with pytest.raises(UnknownAgent):
        await rt.people.notify_user("ghost", "t", "b")
    with pytest.raises(InvalidInput):
        await rt.people.notify_user("ops", "t", "b", related_task_id="t1 --> <script>")
    assert await snapshot(rt, "ops") == before
