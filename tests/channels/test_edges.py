"""Edges a newcomer found: answers next to other sends, paused recipients, reused
idempotency keys, orphaned waiters, NUL, nobody to reach, mentions at a sentence end,
and a reply without its conversation id."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from attn import Runtime
from attn.core.focus import Focus, Reply
from attn.errors import IdempotencyConflict, InvalidInput, SendRefused, UnknownAgent
from attn.models import DeliveryOutcome, MailboxItem
from attn.store.base import Store
from attn.testing import FakeClock, eventually
from tests.channels.conftest import FAST, answering, recording


async def test_a2a_05_an_answer_is_posted_even_when_the_turn_sent_other_messages(
    rt: Runtime,
) -> None:
    """Each agent asks the other during its own turn on the other's question: its own
    question is another conversation, so its answer still goes out (A2A-05)."""
    got: dict[str, list[MailboxItem]] = {"a": [], "b": []}
    asked: set[str] = set()

    def brain(me: str, other: str) -> Callable[[MailboxItem, Focus], object]:
        async def run(item: MailboxItem, focus: Focus) -> Reply | None:
            if item.source_type == "a2a_message":
                if me not in asked:  # once: ask the other something of its own
                    asked.add(me)
                    await rt.channels.send(me, other, f"{me} asks back", await_reply=True)
                return Reply(f"{me} answers")
            got[me].append(item)
            return None

        return run

    await rt.add_agent("a", brain("a", "b"), FAST)  # type: ignore[arg-type]
    await rt.add_agent("b", brain("b", "a"), FAST)  # type: ignore[arg-type]
    await rt.channels.send("a", "b", "first question", await_reply=True)
    await eventually(lambda: len(got["a"]) >= 1 and len(got["b"]) >= 1, what="both sides answered")
    await rt.run_until_idle()
    assert await rt.time.list_callbacks("a") == [] and await rt.time.list_callbacks("b") == []


async def test_a_reply_in_the_same_conversation_is_the_answer_and_is_not_doubled(
    rt: Runtime,
) -> None:
    async def worker(item: MailboxItem, focus: Focus) -> Reply:
        await rt.channels.send(
            "w", "a", "my own reply", conversation_id=item.extra("conversationId")
        )
        return Reply("final text")

    await rt.add_agent("w", worker, FAST)
    await rt.add_agent("a", recording([]), FAST)
    sent = await rt.channels.send("a", "w", "question", await_reply=True)
    await rt.run_until_idle()
    assert sent.message is not None
    history = (await rt.channels.history(sent.message.channel_key)).messages
    assert [m.text for m in history] == ["question", "my own reply"]


async def test_a2a_06_a_paused_recipient_is_queued_paused_and_a_stopped_one_stopped(
    rt: Runtime,
) -> None:
    await rt.add_agent("a", answering(), FAST)
    b = await rt.add_agent("b", answering(), FAST)
    await b.pause()
    paused = await rt.channels.send("a", "b", "are you there?")
    assert [(d.outcome, d.reason) for d in paused.deliveries] == [
        (DeliveryOutcome.QUEUED, "paused")
    ]
    await b.stop()
    assert not b.paused  # a stop ends a pause
    stopped = await rt.channels.send("a", "b", "still there?")
    [delivery] = stopped.deliveries
    assert delivery.outcome == DeliveryOutcome.QUEUED
    assert delivery.reason is not None and delivery.reason.endswith("(stopped)")


async def test_a_reused_idempotency_key_for_another_message_is_a_conflict(rt: Runtime) -> None:
    await rt.add_agent("a", recording([]), FAST, start=False)
    await rt.add_agent("b", recording([]), FAST, start=False)
    await rt.add_agent("c", recording([]), FAST, start=False)
    first = await rt.channels.send("a", "b", "one", idempotency_key="k-1")
    again = await rt.channels.send("a", "b", "one", idempotency_key="k-1")
    assert again.duplicate and again.message is not None and first.message is not None
    assert again.message.id == first.message.id
    for to, text in (("c", "one"), ("b", "two")):
        with pytest.raises(IdempotencyConflict):
            await rt.channels.send("a", to, text, idempotency_key="k-1")
    assert (await rt.channels.history("dm:a2a:a:b")).messages == [first.message]
    assert [c.key for c in await rt.channels.list_channels()] == ["dm:a2a:a:b", "dm:a2a:a:c"]
    assert (await rt.channels.history("dm:a2a:a:c")).messages == []


async def test_a_waiter_whose_message_a_crash_kept_from_being_stored_is_cancelled(
    make_store: Callable[[], Store], clock: FakeClock, backend: str
) -> None:
    if backend == "memory":
        pytest.skip("the memory store does not outlive its process")
    async with Runtime(make_store(), clock=clock) as rt:
        await rt.add_agent("a", answering(), FAST)
        # What a crash between registering the waiter and storing its message leaves.
        await rt.time.await_reply(
            "a", "conv_lost", data={"channelKey": "dm:a2a:a:b", "requestMessageId": "chm_lost"}
        )
        kept = await rt.time.await_reply("a", "conv_by_hand")  # not a channel's: it stays
        assert len(await rt.time.list_callbacks("a")) == 2
    async with Runtime(make_store(), clock=clock) as rt:
        await rt.add_agent("a", answering(), FAST)
        assert [c.id for c in await rt.time.list_callbacks("a")] == [kept.id]


@pytest.mark.parametrize(
    "call",
    [
        lambda rt: rt.channels.send("a", "b", "a\x00b"),
        lambda rt: rt.channels.send("a", "b", "hi", idempotency_key=""),
        lambda rt: rt.channels.send("a", "b", "hi", idempotency_key="   "),
        lambda rt: rt.channels.send("a", "b", "hi", origin_session_id="s\x00"),
        lambda rt: rt.channels.delegate("a", "b", "goal\x00"),
        lambda rt: rt.channels.create_group("a\x00b", ["a"], created_by="user"),
        lambda rt: rt.channels.create_group("x", ["b"], created_by="\x00"),
        lambda rt: rt.channels.broadcast_status("a", "status\x00"),
        lambda rt: rt.channels.post("group:t", "maya", "x\x00", sender_kind="person"),
    ],
)
async def test_nul_and_blank_keys_are_invalid_input_and_store_nothing(
    rt: Runtime, call: Callable[[Runtime], object]
) -> None:
    await rt.add_agent("a", answering(), FAST)
    await rt.add_agent("b", answering(), FAST)
    await rt.channels.ensure_team("t", ["a", "b"])
    with pytest.raises(InvalidInput):
        await call(rt)  # type: ignore[misc]
    assert [c.key for c in await rt.channels.list_channels()] == ["group:t"]
    assert (await rt.channels.history("group:t")).messages == []


async def test_a_message_that_would_reach_nobody_is_refused(rt: Runtime) -> None:
    await rt.add_agent("a", answering(), FAST)
    await rt.add_agent("b", answering(), FAST)
    solo = await rt.channels.create_group("Solo", ["a"], created_by="a")
    with pytest.raises(SendRefused) as refused:
        await rt.channels.post(solo.key, "a", "note to self")
    assert refused.value.reason == "no recipient"
    await rt.channels.ensure_team("t", ["a", "b"])
    with pytest.raises(SendRefused):
        await rt.channels.post("group:t", "a", "@a note to self")
    assert (await rt.channels.history("group:t")).messages == []


async def test_a_mention_at_the_end_of_a_sentence_counts(rt: Runtime) -> None:
    for name in ("lead", "ann", "bob"):
        await rt.add_agent(name, recording([]), FAST, start=False)
    await rt.channels.ensure_team("t", ["lead", "ann", "bob"])
    receipt = await rt.channels.post("group:t", "lead", "please review, @bob.")
    assert [d.recipient for d in receipt.deliveries] == ["bob"]


async def test_a_reply_without_a_conversation_id_continues_the_one_it_answers(
    rt: Runtime,
) -> None:
    await rt.add_agent("a", recording([]), FAST, start=False)
    await rt.add_agent("b", recording([]), FAST, start=False)
    question = await rt.channels.send("a", "b", "question")
    assert question.message is not None
    answer = await rt.channels.send("b", "a", "answer", reply_to=question.message.id)
    assert answer.message is not None
    assert answer.message.conversation_id == question.message.conversation_id
    assert answer.message.reply_to == question.message.id


async def test_an_unknown_sender_is_an_unknown_agent_not_a_recipient(rt: Runtime) -> None:
    await rt.add_agent("b", answering(), FAST)
    for call in (
        rt.channels.send("zed", "b", "hi"),
        rt.channels.delegate("zed", "b", "goal"),
        rt.channels.broadcast_status("zed", "status"),
    ):
        with pytest.raises(UnknownAgent, match="unknown sender"):
            await call
    assert await rt.channels.list_channels() == []
    await asyncio.sleep(0)
