"""What a brain can ask of its focus beyond yield points: the cancel and mail
signals, checkpoints, incomplete and tool-error reports (000 §4, §20; LLM-04, 05)."""

from __future__ import annotations

import asyncio

from attn import AgentConfig, Focus, MailboxItem, Reply, Runtime
from attn.core.events import Event

CONFIG = AgentConfig(coalesce_window_ms=0)


async def test_cancel_signal_is_set_by_a_soft_cancel_before_any_yield_point(
    runtime: Runtime,
) -> None:
    started = asyncio.Event()

    async def brain(item: MailboxItem, focus: Focus) -> Reply | None:
        started.set()
        await focus.cancel_signal().wait()  # e.g. a model stream raced against it
        assert focus.cancelled
        assert (await focus.yield_point()).stop
        return None

    agent = await runtime.add_agent("a", brain, CONFIG)
    reply = asyncio.ensure_future(agent.send_message("hi", timeout_s=30))
    await started.wait()
    await agent.cancel_processing("no thanks")
    assert (await reply).cancelled


async def test_mail_signal_is_set_by_an_arrival_and_cleared_by_the_yield_point(
    runtime: Runtime,
) -> None:
    seen: list[tuple[bool, bool]] = []
    started = asyncio.Event()

    async def brain(item: MailboxItem, focus: Focus) -> str:
        if item.source_type != "system_event":
            return "other"
        started.set()
        await focus.mail_signal().wait()
        before = focus.mail_signal().is_set()
        await focus.yield_point()
        seen.append((before, focus.mail_signal().is_set()))
        return "done"

    agent = await runtime.add_agent("a", brain, CONFIG)
    await agent.enqueue("system_event", {"content": "work"})
    await started.wait()
    await agent.enqueue("a2a_message", {"content": "hello"}, metadata={"senderId": "b"})
    await runtime.run_until_idle()
    assert seen == [(True, False)]


async def test_checkpoint_writes_the_session_to_the_processing_item(runtime: Runtime) -> None:
    stored: list[object] = []

    async def brain(item: MailboxItem, focus: Focus) -> str:
        focus.session["step"] = 1
        focus.log("status", "step one")
        await focus.checkpoint()
        row = await runtime.store.get_item(item.id)
        assert row is not None
        stored.append((str(row.status), row.session))
        return "ok"

    agent = await runtime.add_agent("a", brain, CONFIG)
    reply = await agent.send_message("go", timeout_s=30)
    assert stored == [("processing", {"step": 1})]
    [activity] = await runtime.store.find_activities("a", [reply.item_id])
    logs = await runtime.store.find_activity_logs(activity.id)
    assert "step one" in [log.content for log in logs]


async def test_report_incomplete_completes_once_without_retry(runtime: Runtime) -> None:
    events: list[Event] = []
    runtime.bus.subscribe(events.append)

    async def brain(item: MailboxItem, focus: Focus) -> str:
        focus.report_incomplete("the model stopped early (max_tokens)")
        focus.report_incomplete("a second reason is ignored")
        return ""  # even an empty reply: not retried

    agent = await runtime.add_agent("a", brain, CONFIG)
    item_id = await agent.enqueue("system_event", {"content": "work"})
    await runtime.run_until_idle()
    item = await runtime.store.get_item(item_id)
    assert item is not None and (str(item.status), item.attempt) == ("completed", 1)
    reasons = [e.data["reason"] for e in events if e.type == "agent:incomplete"]
    assert reasons == ["the model stopped early (max_tokens)"]


async def test_report_tool_error_emits_one_event_and_logs(runtime: Runtime) -> None:
    events: list[Event] = []
    runtime.bus.subscribe(events.append)

    async def brain(item: MailboxItem, focus: Focus) -> str:
        focus.report_tool_error("search", "tool_failed", "index offline")
        return "sorry"

    agent = await runtime.add_agent("a", brain, CONFIG)
    reply = await agent.send_message("find it", timeout_s=30)
    [event] = [e for e in events if e.type == "agent:tool-error"]
    assert event.data == {
        "mailboxItemId": reply.item_id,
        "sourceType": "human_chat",
        "tool": "search",
        "error": "tool_failed",
        "message": "index offline",
    }
    [activity] = await runtime.store.find_activities("a", [reply.item_id])
    logs = await runtime.store.find_activity_logs(activity.id)
    assert [str(log.type) for log in logs if "index offline" in log.content] == ["error"]
