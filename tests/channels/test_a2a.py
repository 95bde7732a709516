"""Acceptance A2A-01..08 over the Python API (``runtime.channels``), on every store.

Each test is named after its scenario in ``agents.md``; the HTTP versions are in
tests/server/test_routes_channels.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from attn import Runtime
from attn.core.focus import Focus, Reply
from attn.errors import InvalidInput, NotAMember, SendRefused, UnknownChannel
from attn.models import DeliveryOutcome, ItemStatus, MailboxItem
from attn.store.base import ItemQuery, Store
from attn.testing import FakeClock, eventually
from tests.channels.conftest import FAST, answering, recording


async def items_of(rt: Runtime, agent: str, source_type: str | None = None) -> list[MailboxItem]:
    types = (source_type,) if source_type else None
    return await rt.store.find_items(
        ItemQuery(agent, source_types=types, oldest_first=True, limit=500)
    )


async def test_a2a_01_dm_channel_key_is_the_same_whichever_side_sends(rt: Runtime) -> None:
    seen_a: list[MailboxItem] = []
    seen_b: list[MailboxItem] = []
    await rt.add_agent("bob", recording(seen_b), FAST)
    await rt.add_agent("alice", recording(seen_a), FAST)

    first = await rt.channels.send("bob", "alice", "hello alice")
    second = await rt.channels.send("alice", "bob", "hello bob")
    await rt.run_until_idle()

    assert first.message is not None and second.message is not None
    assert first.message.channel_key == second.message.channel_key == "dm:a2a:alice:bob"
    history = await rt.channels.history("dm:a2a:alice:bob")
    assert [(m.sender_id, m.text) for m in history.messages] == [
        ("bob", "hello alice"),
        ("alice", "hello bob"),
    ]
    [item] = seen_a
    assert item.source_type == "a2a_message"
    assert item.extra("channelKey") == "dm:a2a:alice:bob"
    assert item.metadata["sessionId"] == "channel_dm:a2a:alice:bob_alice"
    assert item.extra("conversationId") == first.message.conversation_id
    assert f"[conversation:{first.message.conversation_id}]" in item.content
    assert seen_b[0].metadata["sessionId"] == "channel_dm:a2a:alice:bob_bob"
    # One channel for the pair, listed for both.
    assert [c.key for c in await rt.channels.list_channels("alice")] == ["dm:a2a:alice:bob"]


async def test_a2a_02_group_message_reaches_members_but_the_sender_and_mentions_narrow_it(
    rt: Runtime,
) -> None:
    seen: dict[str, list[MailboxItem]] = {n: [] for n in ("lead", "ann", "ben")}
    for name, got in seen.items():
        await rt.add_agent(name, recording(got), FAST)
    team = await rt.channels.ensure_team("core", ["lead", "ann", "ben"])
    assert team.key == "group:core"

    everyone = await rt.channels.post("group:core", "lead", "standup in five")
    await rt.run_until_idle()
    assert [d.recipient for d in everyone.deliveries] == ["ann", "ben"]
    assert not seen["lead"]  # the sender never gets its own message back
    assert [len(seen["ann"]), len(seen["ben"])] == [1, 1]

    narrowed = await rt.channels.post("group:core", "lead", "@ben can you review? cc @nobody")
    await rt.run_until_idle()
    assert narrowed.message is not None
    assert narrowed.message.mentions == ("ben",)
    assert [d.recipient for d in narrowed.deliveries] == ["ben"]
    assert [len(seen["ann"]), len(seen["ben"])] == [1, 2]
    assert seen["ben"][1].extra("channelKey") == "group:core"

    # A mention of someone outside the channel, given explicitly, is refused whole.
    with pytest.raises(NotAMember):
        await rt.channels.post("group:core", "lead", "hi", mentions=["stranger"])
    assert len((await rt.channels.history("group:core")).messages) == 2


async def test_a2a_03_send_returns_at_once_and_the_reply_continues_the_asking_session(
    rt: Runtime,
) -> None:
    release = asyncio.Event()
    lead_seen: list[MailboxItem] = []

    async def slow_worker(item: MailboxItem, focus: Focus) -> Reply:
        await release.wait()
        return Reply("the numbers are in")

    await rt.add_agent("worker", slow_worker, FAST)
    await rt.add_agent("lead", recording(lead_seen), FAST)

    receipt = await rt.channels.send(
        "lead", "worker", "compile the numbers", await_reply=True, origin_session_id="ses_plan"
    )
    # Returned while the worker is still busy with it: nothing blocked on the answer.
    assert receipt.message is not None and receipt.callback_id is not None
    assert receipt.message.channel_key == "dm:a2a:lead:worker"
    assert receipt.message.conversation_id.startswith("conv_")
    assert [d.outcome for d in receipt.deliveries] == [DeliveryOutcome.STARTED]
    pending = await rt.time.list_callbacks("lead")
    assert [c.correlation_id for c in pending] == [receipt.message.conversation_id]

    release.set()
    await eventually(lambda: lead_seen, what="the answer reached the lead")
    await rt.run_until_idle()
    [answer] = lead_seen
    assert answer.source_type == "callback_result"
    assert "the numbers are in" in answer.content
    assert answer.extra("originSessionId") == "ses_plan"
    assert answer.extra("conversationId") == receipt.message.conversation_id
    assert await rt.time.list_callbacks("lead") == []
    history = (await rt.channels.history("dm:a2a:lead:worker")).messages
    assert [(m.sender_id, m.reply_to) for m in history] == [
        ("lead", None),
        ("worker", receipt.message.id),
    ]
    assert history[1].expects_reply is False  # an answer asks for nothing back


async def test_a2a_04_a_partial_broadcast_is_reported_as_partial(rt: Runtime) -> None:
    for name in ("lead", "ann", "ben"):
        await rt.add_agent(name, answering(), FAST)
    await rt.channels.ensure_team("core", ["lead", "ann", "ben"])
    await rt.remove_agent("ben")

    receipt = await rt.channels.post("group:core", "lead", "ship it", expects_reply=False)
    by_name = {d.recipient: d for d in receipt.deliveries}
    assert by_name["ann"].outcome == DeliveryOutcome.STARTED
    assert by_name["ben"].outcome == DeliveryOutcome.REFUSED
    assert by_name["ben"].reason == "recipient removed"
    assert receipt.partial and not receipt.refused
    assert receipt.to_dict()["partial"] is True

    status = await rt.channels.broadcast_status("lead", "build is green", to=["ann", "ghost"])
    assert [(d.recipient, d.outcome) for d in status.deliveries] == [
        ("ann", DeliveryOutcome.LOGGED),
        ("ghost", DeliveryOutcome.REFUSED),
    ]
    assert status.partial
    # The status line is in ann's activity log, and no turn ran for it.
    activity = await rt.store.get_activity(status.deliveries[0].item_id or "")
    assert activity is not None and activity.item_id is None
    logs = await rt.store.find_activity_logs(activity.id)
    assert [entry.content for entry in logs] == ["build is green"]


async def test_a2a_05_two_agents_asking_each_other_at_once_both_get_answers(rt: Runtime) -> None:
    got: dict[str, list[MailboxItem]] = {"a": [], "b": []}

    def brain(name: str) -> Callable[[MailboxItem, Focus], object]:
        async def run(item: MailboxItem, focus: Focus) -> Reply | None:
            if item.source_type == "a2a_message":
                return Reply(f"{name} answers")
            got[name].append(item)
            return None

        return run

    await rt.add_agent("a", brain("a"), FAST)  # type: ignore[arg-type]
    await rt.add_agent("b", brain("b"), FAST)  # type: ignore[arg-type]
    ask_b, ask_a = await asyncio.gather(
        rt.channels.send("a", "b", "what do you think?", await_reply=True),
        rt.channels.send("b", "a", "and you?", await_reply=True),
    )
    await eventually(lambda: got["a"] and got["b"], what="both answers arrived")
    await rt.run_until_idle()
    assert [i.source_type for i in got["a"]] == ["callback_result"]
    assert [i.source_type for i in got["b"]] == ["callback_result"]
    assert "b answers" in got["a"][0].content and "a answers" in got["b"][0].content
    assert ask_b.message is not None and ask_a.message is not None
    assert got["a"][0].extra("conversationId") == ask_b.message.conversation_id


async def test_a2a_06_every_outcome_is_stored_and_the_same_everywhere(
    rt: Runtime, clock: FakeClock
) -> None:
    release = asyncio.Event()

    async def busy(item: MailboxItem, focus: Focus) -> None:
        await release.wait()

    await rt.add_agent("idle", answering(), FAST)
    await rt.add_agent("busy", busy, FAST)
    await rt.add_agent("off", answering(), FAST, start=False)
    await rt.add_agent("me", answering(), FAST)

    idle = await rt.channels.send("me", "idle", "hi")
    assert [(d.outcome, d.reason) for d in idle.deliveries] == [(DeliveryOutcome.STARTED, None)]

    await rt.channels.send("me", "busy", "first")  # starts a turn that waits
    await eventually(lambda: rt.get_agent("busy").focus_item is not None, what="busy is busy")
    steered = await rt.channels.send("me", "busy", "second, same channel")
    assert steered.deliveries[0].outcome == DeliveryOutcome.STEERED
    await rt.channels.ensure_team("t", ["me", "busy"])
    queued = await rt.channels.post("group:t", "me", "other channel")
    assert queued.deliveries[0].outcome == DeliveryOutcome.QUEUED
    assert (queued.deliveries[0].reason or "").startswith("busy")

    stopped = await rt.channels.send("me", "off", "are you there?")
    assert [(d.outcome, d.reason) for d in stopped.deliveries] == [
        (DeliveryOutcome.QUEUED, "stopped")
    ]

    # Refusals store nothing: no message, no item, no channel.
    before = len(await rt.channels.list_channels())
    for to, text, reason in (
        ("nobody", "hello", "unknown recipient"),
        ("idle", "   ", "empty text"),
        ("me", "talking to myself", "sent to oneself"),
    ):
        with pytest.raises(SendRefused) as refused:
            await rt.channels.send("me", to, text)
        assert refused.value.reason == reason
        assert refused.value.outcome == "refused"
    assert len(await rt.channels.list_channels()) == before
    assert len((await rt.channels.history("dm:a2a:idle:me")).messages) == 1
    with pytest.raises(UnknownChannel):
        await rt.channels.history("dm:a2a:me:nobody")

    # What the send answered is what the store keeps.
    for receipt in (idle, steered, queued, stopped):
        assert receipt.message is not None
        stored = await rt.channels.message(receipt.message.id)
        assert stored.deliveries == receipt.deliveries
        assert stored.to_dict()["deliveries"] == receipt.to_dict()["deliveries"]
    release.set()


async def test_a2a_07_several_waiters_get_the_same_answer(rt: Runtime) -> None:
    got: dict[str, list[MailboxItem]] = {"a": [], "c": []}
    await rt.add_agent("a", recording(got["a"]), FAST)
    await rt.add_agent("c", recording(got["c"]), FAST)
    await rt.add_agent("b", recording([]), FAST)
    await rt.channels.ensure_team("t", ["a", "b", "c"])
    ask = await rt.channels.post("group:t", "a", "@b when is the release?", await_reply=True)
    assert ask.message is not None
    conversation = ask.message.conversation_id
    await rt.channels.post(
        "group:t", "c", "@b same question", await_reply=True, conversation_id=conversation
    )
    await rt.channels.post(
        "group:t", "a", "@b and the date?", await_reply=True, conversation_id=conversation
    )
    await rt.run_until_idle()
    got["a"].clear()
    got["c"].clear()

    await rt.channels.post("group:t", "b", "@a @c Friday", conversation_id=conversation)
    await eventually(lambda: len(got["a"]) == 2 and got["c"], what="every waiter answered")
    await rt.run_until_idle()
    assert [i.source_type for i in got["a"]] == ["callback_result", "callback_result"]
    assert [i.source_type for i in got["c"]] == ["callback_result"]
    assert {i.content.splitlines()[-1] for i in got["a"] + got["c"]} == {"@a @c Friday"}
    assert await rt.time.list_callbacks("a") == await rt.time.list_callbacks("c") == []


async def test_a2a_07_a_late_reply_never_answers_a_newer_question(
    rt: Runtime, clock: FakeClock
) -> None:
    got: list[MailboxItem] = []
    await rt.add_agent("a", recording(got), FAST)
    await rt.add_agent("b", recording([]), FAST)
    old = await rt.channels.send("a", "b", "question one", await_reply=True, timeout_s=10)
    assert old.message is not None
    conversation = old.message.conversation_id
    await clock.advance(11)
    expired = await rt.time.callbacks.expire_timed_out("a", clock.now())
    assert [c.id for c in expired] == [old.callback_id]
    new = await rt.channels.send(
        "a", "b", "question two", await_reply=True, conversation_id=conversation
    )
    await rt.run_until_idle()

    # b answers the first question: a late reply, stored, and the newer waiter still waits.
    await rt.channels.send(
        "b", "a", "answer one", conversation_id=conversation, reply_to=old.message.id
    )
    await eventually(lambda: got, what="the late reply arrived")
    await rt.run_until_idle()
    [late] = got
    assert late.source_type == "system_event" and late.extra("late") is True
    assert "answer one" in late.content
    assert [c.id for c in await rt.time.list_callbacks("a")] == [new.callback_id]

    await rt.channels.send("b", "a", "answer two", conversation_id=conversation)
    await eventually(lambda: len(got) == 2, what="the newer answer arrived")
    assert got[1].source_type == "callback_result" and "answer two" in got[1].content
    history = (await rt.channels.history(old.message.channel_key)).messages
    assert [m.text for m in history] == ["question one", "question two", "answer one", "answer two"]


async def test_a2a_08_history_pages_by_before_and_limit(rt: Runtime) -> None:
    await rt.add_agent("a", recording([]), FAST)
    await rt.add_agent("b", recording([]), FAST)
    for n in range(7):
        sender, to = ("a", "b") if n % 2 == 0 else ("b", "a")
        await rt.channels.send(sender, to, f"message {n}")
    key = "dm:a2a:a:b"
    page = await rt.channels.history(key, limit=3)
    assert [m.text for m in page.messages] == ["message 4", "message 5", "message 6"]
    older = await rt.channels.history(key, limit=3, before=page.next_before)
    assert [m.text for m in older.messages] == ["message 1", "message 2", "message 3"]
    oldest = await rt.channels.history(key, limit=3, before=older.next_before)
    assert [m.text for m in oldest.messages] == ["message 0"]
    assert oldest.next_before is None
    for bad in ({"limit": 0}, {"limit": 501}, {"before": -1}, {"limit": "3"}):
        with pytest.raises(Exception) as error:
            await rt.channels.history(key, **bad)  # type: ignore[arg-type]
        assert type(error.value).__name__ == "InvalidInput"


async def test_a2a_08_history_keeps_order_and_senders_across_a_restart(
    make_store: Callable[[], Store], clock: FakeClock, backend: str
) -> None:
    if backend == "memory":
        pytest.skip("the memory store does not outlive its process")
    async with Runtime(make_store(), clock=clock) as rt:
        await rt.add_agent("a", answering(), FAST)
        await rt.add_agent("b", answering(), FAST)
        await rt.channels.ensure_team("t", ["a", "b"])
        await rt.channels.post("group:t", "a", "one", expects_reply=False)
        await rt.channels.post("group:t", "b", "two", expects_reply=False)
        await rt.channels.post(
            "group:t", "alice", "three", sender_kind="person", expects_reply=False
        )
        await rt.run_until_idle()
        before = [
            (m.seq, m.sender_id, m.text) for m in (await rt.channels.history("group:t")).messages
        ]
    async with Runtime(make_store(), clock=clock) as rt:
        after = [
            (m.seq, m.sender_id, m.text) for m in (await rt.channels.history("group:t")).messages
        ]
        channel = await rt.channels.get("group:t")
    assert after == before
    assert [(s, t) for _, s, t in after] == [("a", "one"), ("b", "two"), ("alice", "three")]
    assert channel.members == ("a", "b")


async def test_a_message_left_pending_by_a_crash_is_delivered_once_on_restart(
    make_store: Callable[[], Store], clock: FakeClock, backend: str
) -> None:
    """A crash between storing a message and enqueueing it loses nothing, and the
    redelivery after it duplicates nothing (never lost, never twice)."""
    if backend == "memory":
        pytest.skip("the memory store does not outlive its process")
    from attn.models import ChannelMessage, Delivery, SenderKind
    from attn.store.base import InsertChannelMessage

    async with Runtime(make_store(), clock=clock) as rt:
        await rt.add_agent("a", answering(), FAST)
        await rt.add_agent("b", answering(), FAST, start=False)
        channel = await rt.channels.ensure_dm("a", "b")
        # What a crash right after the insert leaves: a message still pending for b.
        pending = ChannelMessage(
            "chm_crashed",
            channel.key,
            "a",
            SenderKind.AGENT,
            "left pending",
            "conv_x",
            clock.now(),
            deliveries=(Delivery("b", DeliveryOutcome.PENDING),),
        )
        await rt.store.write([InsertChannelMessage(pending)])
    for _ in range(2):  # two restarts: delivered by the first, not again by the second
        async with Runtime(make_store(), clock=clock) as rt:
            await rt.add_agent("a", answering(), FAST)
            await rt.add_agent("b", recording([]), FAST, start=False)
            items = await items_of(rt, "b", "a2a_message")
            stored = await rt.channels.message("chm_crashed")
            assert await rt.store.find_undelivered_messages() == []
    assert [i.extra("messageId") for i in items] == ["chm_crashed"]
    assert items[0].status == ItemStatus.QUEUED
    assert [(d.outcome, d.reason) for d in stored.deliveries] == [
        (DeliveryOutcome.QUEUED, "stopped")
    ]


async def state(rt: Runtime, *agents: str) -> tuple[object, ...]:
    """Everything a send could have changed: channels, delegations, callbacks, items."""
    channels = [c.key for c in await rt.channels.list_channels()]
    rest = []
    for agent in agents:
        rest.append(len(await rt.channels.delegations(agent)))
        rest.append(len(await rt.time.list_callbacks(agent)))
        rest.append(len(await items_of(rt, agent)))
    return (channels, *rest)


@pytest.mark.parametrize(
    "options",
    [
        {"timeout_s": 1e300},
        {"timeout_s": -1},
        {"timeout_s": "soon"},
        {"await_reply": "yes"},
        {"conversation_id": ""},
        {"conversation_id": "x" * 201},
        {"origin_session_id": "s" * 201},
        {"idempotency_key": "k" * 201},
    ],
)
async def test_a2a_06_a_send_with_a_bad_option_stores_nothing(
    rt: Runtime, options: dict[str, object]
) -> None:
    await rt.add_agent("a", answering(), FAST)
    await rt.add_agent("b", answering(), FAST)
    before = await state(rt, "a", "b")
    with pytest.raises(InvalidInput):
        await rt.channels.send("a", "b", "hello", **{"await_reply": True, **options})  # type: ignore[arg-type]
    delegate_options = {k: v for k, v in options.items() if k != "await_reply"}
    if delegate_options and "idempotency_key" not in delegate_options:
        with pytest.raises(InvalidInput):
            await rt.channels.delegate("a", "b", "a goal", **delegate_options)  # type: ignore[arg-type]
    assert await state(rt, "a", "b") == before


async def test_reading_an_unused_dm_channel_stores_nothing(rt: Runtime) -> None:
    await rt.add_agent("a", answering(), FAST)
    await rt.add_agent("b", answering(), FAST)
    page = await rt.channels.history("dm:a2a:a:b")
    assert page.messages == [] and await rt.channels.list_channels() == []
    with pytest.raises(NotAMember):
        await rt.channels.post("dm:a2a:a:b", "a", "x", mentions=["zed"])
    assert await rt.channels.list_channels() == []


async def test_long_names_keep_the_session_id_within_bounds(rt: Runtime) -> None:
    long_a, long_b = "a" * 64, "b" * 64
    await rt.add_agent(long_a, answering(), FAST)
    await rt.add_agent(long_b, recording([]), FAST)
    receipt = await rt.channels.send(long_a, long_b, "hi", await_reply=True)
    [waiting] = await rt.time.list_callbacks(long_a)
    assert waiting.origin_session_id is not None and len(waiting.origin_session_id) <= 200
    assert receipt.deliveries[0].outcome == DeliveryOutcome.STARTED
