"""A merged item's size is bounded (000 §14 extended): past 100 stimuli, or half of
``max_payload_bytes`` of text, the next item of a group stays its own and takes
the group's later ones. Enqueue-time dedup, restart recovery and pre-triage
consolidation all follow it; no text is lost or reordered."""

from __future__ import annotations

from pathlib import Path

from attn import AgentConfig, ItemStatus, Runtime, YieldAction
from attn.core.mailbox.merge import MAX_MERGED_MESSAGES
from attn.models import MailboxItem
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeClock

from .conftest import Recorder

SEP = "\n\n---\n\n"
DM = {"channelKey": "dm:a2a:ada:lead"}


async def _agent(runtime: Runtime, **config: object):
    return await runtime.add_agent("a", Recorder(), AgentConfig(**config), start=False)  # type: ignore[arg-type]


def _texts(items: list[MailboxItem]) -> list[str]:
    ordered = sorted(items, key=lambda i: i.seq)
    return [text for item in ordered for text in item.content.split(SEP)]


async def test_a_sender_that_never_stops_makes_items_of_at_most_100_messages(
    runtime: Runtime,
) -> None:
    agent = await _agent(runtime)
    sent = [f"message {n}" for n in range(250)]
    for text in sent:
        await agent.enqueue(
            "a2a_message", {"content": text, "extra": DM}, metadata={"senderId": "lead"}
        )
    items = sorted(agent.mailbox.queued_items(), key=lambda i: i.seq)
    assert [len(i.payload["messages"]) for i in items] == [MAX_MERGED_MESSAGES, 100, 50]
    assert _texts(items) == sent  # every text, once, in order
    assert [m["content"] for i in items for m in i.payload["messages"]] == sent
    assert items[1].summary.endswith("(+99)") and items[2].summary.endswith("(+49)")


async def test_merged_text_stays_within_half_the_payload_limit(runtime: Runtime) -> None:
    agent = await _agent(runtime, max_payload_bytes=4_000)
    sent = [f"{n:02d}" + "x" * 498 for n in range(12)]
    for text in sent:
        await agent.enqueue("task_comment", {"taskId": "T", "content": text})
    items = sorted(agent.mailbox.queued_items(), key=lambda i: i.seq)
    assert len(items) > 1
    assert all(len(i.content) <= 2_000 for i in items)
    assert _texts(items) == sent


async def test_restart_recovery_merges_no_further_than_enqueue_would(
    tmp_path: Path, clock: FakeClock
) -> None:
    db = tmp_path / "attn.db"
    sent = [f"comment {n}" for n in range(130)]
    async with Runtime(SQLiteStore(db), clock=clock) as runtime:
        agent = await _agent(runtime, dedup=False)
        for text in sent:
            await agent.enqueue("task_comment", {"taskId": "T", "content": text})
        assert agent.depth == 130
    async with Runtime(SQLiteStore(db), clock=clock) as runtime:
        agent = await _agent(runtime)  # dedup on: recovery merges what it may
        items = sorted(agent.mailbox.queued_items(), key=lambda i: i.seq)
        assert [len(i.payload["messages"]) for i in items] == [100, 30]
        assert _texts(items) == sent


async def test_a_full_focus_merges_no_more_at_its_yield_point(
    runtime: Runtime, clock: FakeClock
) -> None:
    from .test_attention import _focus_with

    earlier = [{"content": f"comment {n}"} for n in range(MAX_MERGED_MESSAGES)]
    (_, arrival, decision), _ = await _focus_with(
        runtime,
        clock,
        "task_status_update",
        {"taskId": "T", "triggerExecution": True, "messages": earlier},
        "task_comment",
        {"taskId": "T", "content": "please also do X"},
    )
    assert decision.action == YieldAction.CONTINUE
    stored = await runtime.store.get_item(arrival)
    assert stored is not None and stored.status == ItemStatus.QUEUED
    reasons = [d.reasoning for d in await runtime.store.find_decisions("a", arrival)]
    assert any("not merged, it runs as an item of its own" in r for r in reasons), reasons
