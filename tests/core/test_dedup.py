"""Enqueue-time dedup (000 §14): acceptance COAL-01..07."""

from __future__ import annotations

from pathlib import Path

from attn import AgentConfig, DecisionType, ItemStatus, Runtime
from attn.core.events import NEW_ITEM, Event
from attn.store.base import ItemQuery
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeClock

from .conftest import Recorder

SEP = "\n\n---\n\n"


async def _agent(runtime: Runtime, **config: object):
    return await runtime.add_agent("a", Recorder(), AgentConfig(**config), start=False)  # type: ignore[arg-type]


async def test_coal_01_comments_on_one_task_merge_and_survive_restart(
    tmp_path: Path, clock: FakeClock
) -> None:
    db = tmp_path / "attn.db"
    async with Runtime(SQLiteStore(db), clock=clock) as runtime:
        agent = await _agent(runtime)
        first = await agent.enqueue("task_comment", {"taskId": "T", "content": "one"})
        second = await agent.enqueue("task_comment", {"taskId": "T", "content": "two"})
        assert second == first and agent.depth == 1
        (item,) = agent.mailbox.queued_items()
        assert item.content == f"one{SEP}two" and item.summary.endswith("(+1)")
    async with Runtime(SQLiteStore(db), clock=clock) as runtime:
        agent = await _agent(runtime)
        (item,) = agent.mailbox.queued_items()
        assert item.content == f"one{SEP}two"


async def test_coal_02_different_tasks_do_not_merge_requirements_do(runtime: Runtime) -> None:
    agent = await _agent(runtime)
    await agent.enqueue("task_comment", {"taskId": "T", "content": "t"})
    await agent.enqueue("task_comment", {"taskId": "U", "content": "u"})
    assert agent.depth == 2
    a = await agent.enqueue("requirement_comment", {"requirementId": "R", "content": "r1"})
    b = await agent.enqueue("requirement_comment", {"requirementId": "R", "content": "r2"})
    assert a == b and agent.depth == 3


async def test_coal_03_channel_messages_keep_per_sender_entries(runtime: Runtime) -> None:
    agent = await _agent(runtime)
    for sender, text in (("alice", "hi"), ("bob", "hello"), ("carol", "hey")):
        await agent.enqueue(
            "a2a_message",
            {"content": text, "extra": {"channelKey": "group:team1"}},
            metadata={"senderId": sender, "senderName": sender.title()},
        )
    await agent.enqueue("a2a_message", {"content": "elsewhere", "extra": {"channelKey": "group:x"}})
    await agent.enqueue("a2a_message", {"content": "no channel"})
    await agent.enqueue("a2a_message", {"content": "no channel either"})
    assert agent.depth == 4
    team = next(i for i in agent.mailbox.queued_items() if i.extra("channelKey") == "group:team1")
    messages = team.payload["messages"]
    assert [(m["senderId"], m["senderName"], m["content"]) for m in messages] == [
        ("alice", "Alice", "hi"),
        ("bob", "Bob", "hello"),
        ("carol", "Carol", "hey"),
    ]
    assert all(m["timestamp"] for m in messages)


async def test_coal_04_execution_triggers_status_updates_and_processing_targets(
    runtime: Runtime,
) -> None:
    agent = await _agent(runtime)
    run = {"taskId": "T", "content": "run", "triggerExecution": True}
    await agent.enqueue("task_comment", run)
    await agent.enqueue("task_comment", {"taskId": "T", "content": "comment"})
    await agent.enqueue(
        "task_comment", {"taskId": "T", "content": "run2", "extra": {"triggerExecution": True}}
    )
    await agent.enqueue("task_status_update", {"taskId": "T", "summary": "blocked"})
    await agent.enqueue("task_status_update", {"taskId": "T", "summary": "resumed"})
    assert agent.depth == 5
    # A comment arriving while its sibling is processing becomes a new item.
    other = await agent.enqueue("task_comment", {"taskId": "P", "content": "first"})
    popped = agent.mailbox.queue.pop_nowait()
    while popped is not None and popped.id != other:
        popped = agent.mailbox.queue.pop_nowait()
    new = await agent.enqueue("task_comment", {"taskId": "P", "content": "second"})
    assert new != other


async def test_coal_05_merging_keeps_every_field(runtime: Runtime) -> None:
    agent = await _agent(runtime)
    channel = {"channelKey": "dm:a2a:a:b"}
    first = await agent.enqueue(
        "a2a_message",
        {"content": "see file", "attachments": ["f.png"], "extra": channel},
        metadata={"senderId": "b"},
    )
    await agent.enqueue(
        "a2a_message",
        {"content": "@a look", "mentions": ["a"], "extra": channel},
        metadata={"senderId": "b"},
    )
    await agent.enqueue(
        "a2a_message", {"content": "plain", "extra": channel}, metadata={"senderId": "b"}
    )
    (item,) = agent.mailbox.queued_items()
    assert item.id == first
    messages = item.payload["messages"]
    assert [m["content"] for m in messages] == ["see file", "@a look", "plain"]
    assert messages[0]["payload"]["attachments"] == ["f.png"]
    assert messages[1]["payload"]["mentions"] == ["a"]
    assert len(item.payload["mergedItemIds"]) == 2 and item.payload["attachments"] == ["f.png"]


async def test_coal_06_merged_items_keep_their_rows(runtime: Runtime) -> None:
    agent = await _agent(runtime)
    seen: list[Event] = []
    runtime.bus.subscribe(seen.append)
    first = await agent.enqueue("task_comment", {"taskId": "T", "content": "one"})
    await agent.enqueue("task_comment", {"taskId": "T", "content": "two"})
    rows = await runtime.store.find_items(ItemQuery("a", oldest_first=True))
    assert [(r.status, r.merged_into) for r in rows] == [
        (ItemStatus.QUEUED, None),
        (ItemStatus.MERGED, first),
    ]
    (decision,) = await runtime.store.find_decisions("a", rows[1].id)
    assert decision.decision_type == DecisionType.MERGE and "dedup" in decision.reasoning
    # CORE-07: a merge also emits a new-item event carrying the resulting item.
    assert [e.data["item"]["id"] for e in seen if e.type == NEW_ITEM] == [first, first]


async def test_coal_07_retries_with_a_key_are_recognised_distinct_answers_are_kept(
    runtime: Runtime,
) -> None:
    agent = await _agent(runtime)
    channel = {"channelKey": "dm:a2a:a:b"}
    first = await agent.enqueue(
        "a2a_message", {"content": "yes", "extra": channel}, idempotency_key="q1-answer"
    )
    again = await agent.enqueue(
        "a2a_message", {"content": "yes", "extra": channel}, idempotency_key="q1-answer"
    )
    other = await agent.enqueue(
        "a2a_message", {"content": "yes", "extra": channel}, idempotency_key="q2-answer"
    )
    # The retry is recognised; the distinct "yes" is kept, merged into the same
    # channel's queued item as its own entry (both are delivered).
    assert again == first and other == first and agent.depth == 1
    kept = agent.mailbox.find(first)
    assert kept is not None and kept.content == f"yes{SEP}yes"
    assert len(kept.payload["messages"]) == 2
    # A retry of the merged one is recognised too: nothing more is added.
    retry = await agent.enqueue_result(
        "a2a_message", {"content": "yes", "extra": channel}, idempotency_key="q2-answer"
    )
    assert retry.duplicate and retry.item.merged_into == first
    assert kept.content == f"yes{SEP}yes"
    plain = await agent.enqueue("a2a_message", {"content": "yes", "extra": {"channelKey": "c"}})
    plain2 = await agent.enqueue("a2a_message", {"content": "yes", "extra": {"channelKey": "c"}})
    merged = agent.mailbox.find(plain)
    assert plain2 == plain and merged is not None and merged.content == f"yes{SEP}yes"


async def test_dedup_can_be_switched_off(runtime: Runtime) -> None:
    agent = await _agent(runtime, dedup=False)
    await agent.enqueue("task_comment", {"taskId": "T", "content": "one"})
    await agent.enqueue("task_comment", {"taskId": "T", "content": "two"})
    assert agent.depth == 2


async def test_a_full_mailbox_still_accepts_a_merge(runtime: Runtime) -> None:
    agent = await _agent(runtime, max_queued=1)
    first = await agent.enqueue("task_comment", {"taskId": "T", "content": "one"})
    assert await agent.enqueue("task_comment", {"taskId": "T", "content": "two"}) == first
