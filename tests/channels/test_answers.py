"""Answers, delegations, coalescing by channel key and timed-out waiters (000 §11, §14)."""

from __future__ import annotations

import asyncio

from attn import Runtime
from attn.core.focus import Focus, Reply
from attn.models import DelegationStatus, DeliveryOutcome, MailboxItem
from attn.store.base import ItemQuery
from attn.testing import FakeClock, eventually
from tests.channels.conftest import FAST, answering, recording


async def test_a_delegation_is_answered_by_the_delegates_reply(rt: Runtime) -> None:
    lead_seen: list[MailboxItem] = []
    await rt.add_agent("lead", recording(lead_seen), FAST)
    await rt.add_agent("ann", answering("ann did it"), FAST)
    await rt.add_agent("ben", answering("ben did it"), FAST)

    to_ann = await rt.channels.delegate("lead", "ann", "write the tests", origin_session_id="s1")
    to_ben = await rt.channels.delegate("lead", "ben", "write the docs", origin_session_id="s1")
    await eventually(lambda: len(lead_seen) == 2, what="both answers came back")
    await rt.run_until_idle()

    assert {i.source_type for i in lead_seen} == {"callback_result"}
    assert {i.extra("originSessionId") for i in lead_seen} == {"s1"}
    records = {d.delegate: d for d in await rt.channels.delegations("lead")}
    assert {n: d.status for n, d in records.items()} == {
        "ann": DelegationStatus.ANSWERED,
        "ben": DelegationStatus.ANSWERED,
    }
    assert to_ann.delegation is not None and to_ben.delegation is not None
    assert records["ann"].goal == "write the tests"
    answer = await rt.channels.message(records["ann"].answer_message_id)
    assert answer.sender_id == "ann" and answer.reply_to == to_ann.delegation.message_id
    assert "ann did it: " in answer.text
    # The delegate saw the goal as a delegation in its DM channel.
    [ann_item] = await rt.store.find_items(ItemQuery("ann", source_types=("a2a_message",)))
    assert ann_item.extra("kind") == "delegation"
    assert "Task delegated to you by lead" in ann_item.content


async def test_a_reply_in_a_group_with_a_mention_resolves_the_delegation(rt: Runtime) -> None:
    """A worker may answer on the team channel instead of the DM: the conversation id
    carries the answer to the waiting lead all the same."""
    lead_seen: list[MailboxItem] = []

    async def worker(item: MailboxItem, focus: Focus) -> None:
        await rt.channels.post(
            "group:core",
            "ann",
            "@lead tests are written",
            conversation_id=item.extra("conversationId"),
        )

    await rt.add_agent("lead", recording(lead_seen), FAST)
    await rt.add_agent("ann", worker, FAST)
    await rt.channels.ensure_team("core", ["lead", "ann"])
    sent = await rt.channels.delegate("lead", "ann", "write the tests")
    await eventually(lambda: lead_seen, what="the group answer came back")
    await rt.run_until_idle()
    [answer] = lead_seen
    assert answer.source_type == "callback_result"
    assert answer.extra("channelKey") == "group:core"
    [record] = await rt.channels.delegations("ann")
    assert record.status == DelegationStatus.ANSWERED
    assert sent.delegation is not None and record.id == sent.delegation.id
    # The worker's own post was the answer: nothing else was posted back on the DM.
    dm = (await rt.channels.history("dm:a2a:ann:lead")).messages
    assert [m.sender_id for m in dm] == ["lead"]


async def test_two_messages_of_one_channel_coalesce_into_one_item(rt: Runtime) -> None:
    release = asyncio.Event()
    seen: list[MailboxItem] = []

    async def worker(item: MailboxItem, focus: Focus) -> Reply:
        if item.source_type == "human_chat":
            await release.wait()
        seen.append(item)
        return Reply("ok")

    await rt.add_agent("w", worker, FAST)
    await rt.add_agent("a", recording([]), FAST)
    chat = asyncio.create_task(rt.get_agent("w").send_message("hold on"))
    await eventually(lambda: rt.get_agent("w").focus_item is not None, what="w is busy")
    first = await rt.channels.send("a", "w", "part one")
    second = await rt.channels.send("a", "w", "part two")
    assert first.deliveries[0].outcome == DeliveryOutcome.QUEUED
    assert second.deliveries[0].outcome == DeliveryOutcome.QUEUED
    assert (second.deliveries[0].reason or "").startswith("merged into waiting item")
    assert second.deliveries[0].item_id == first.deliveries[0].item_id
    release.set()
    await chat
    await rt.run_until_idle()
    [merged] = [i for i in seen if i.source_type == "a2a_message"]
    assert "part one" in merged.content and "part two" in merged.content
    assert [m["senderId"] for m in merged.payload["messages"]] == ["a", "a"]


async def test_an_answer_goes_to_each_conversation_it_was_asked_in_once(rt: Runtime) -> None:
    release = asyncio.Event()
    got: list[MailboxItem] = []
    calls = 0

    async def worker(item: MailboxItem, focus: Focus) -> Reply:
        nonlocal calls
        calls += 1
        if item.source_type == "human_chat":
            await release.wait()
        return Reply("both done")

    await rt.add_agent("w", worker, FAST)
    await rt.add_agent("a", recording(got), FAST)
    chat = asyncio.create_task(rt.get_agent("w").send_message("hold on"))
    await eventually(lambda: rt.get_agent("w").focus_item is not None, what="w is busy")
    one = await rt.channels.send("a", "w", "task one", await_reply=True)
    two = await rt.channels.send("a", "w", "task two", await_reply=True)
    release.set()
    await chat
    await eventually(lambda: len(got) == 2, what="both waiters answered")
    await rt.run_until_idle()
    assert calls == 2  # the chat, then one turn for both merged messages
    assert one.message is not None and two.message is not None
    assert {i.extra("conversationId") for i in got} == {
        one.message.conversation_id,
        two.message.conversation_id,
    }
    assert await rt.time.list_callbacks("a") == []


async def test_an_awaited_reply_that_never_comes_is_listed_at_the_next_heartbeat(
    rt: Runtime, clock: FakeClock
) -> None:
    beats: list[MailboxItem] = []

    async def lead(item: MailboxItem, focus: Focus) -> None:
        if item.source_type == "heartbeat":
            beats.append(item)

    await rt.add_agent("lead", lead, FAST)
    await rt.add_agent("mute", recording([]), FAST)
    sent = await rt.channels.send(
        "lead", "mute", "are the numbers ready?", await_reply=True, timeout_s=60
    )
    [waiting] = await rt.time.list_callbacks("lead")
    assert waiting.to_dict()["expiresAt"] is not None  # what REST shows
    await rt.time.set_heartbeat_interval("lead", 300)
    await clock.advance(301)
    await eventually(lambda: beats, what="the heartbeat ran")
    listed = beats[0].payload["timedOutOperations"]
    assert [(op["callbackId"], op["type"]) for op in listed] == [(sent.callback_id, "a2a_reply")]
    assert "are the numbers ready?" in beats[0].payload["content"]
    assert await rt.time.list_callbacks("lead") == []
