"""The memory tools: memory_save, memory_search and recall_activity (000 §8, §21, §24)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from attn.models import MAX_MEMORY_CHARS, ItemStatus
from attn.store.base import InsertActivity, InsertItem, InsertLogs, Store, UpdateActivity
from attn.store.memory import MemoryStore
from attn.store.memory import writes as memory_writes
from attn.store.sqlite import SQLiteStore
from attn.store.sqlite import memories as sqlite_memories
from attn.testing import FakeClock
from attn.tools import MemoryToolset
from tests.store.records import activity, item, log


@pytest.fixture(params=["memory", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    made: Store = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "a.db")
    await made.open()
    yield made
    await made.close()


def tools(store: Store, clock: FakeClock, agent: str = "alice") -> MemoryToolset:
    return MemoryToolset(store, agent, clock)


async def test_saved_memories_are_found_by_their_words(store: Store, clock: FakeClock) -> None:
    alice = tools(store, clock)
    saved = await alice.call("memory_save", {"content": "Bob prefers reviews on Mondays"})
    assert saved["ok"] is True and saved["replaced"] is False
    assert saved["memory"]["content"] == "Bob prefers reviews on Mondays"
    assert saved["memory"]["key"] is None and saved["memory"]["agentId"] == "alice"
    await clock.advance(5)
    await alice.call("memory_save", {"content": "Reviews go to the #eng channel"})
    found = await alice.call("memory_search", {"query": "when does Bob want reviews?"})
    assert [m["content"] for m in found["memories"]] == [
        "Bob prefers reviews on Mondays",
        "Reviews go to the #eng channel",
    ]
    one = await alice.call("memory_search", {"query": "reviews", "limit": 1})
    assert [m["content"] for m in one["memories"]] == ["Reviews go to the #eng channel"]
    nothing = await tools(store, clock, "bob").call("memory_search", {"query": "reviews"})
    assert nothing == {"ok": True, "query": "reviews", "memories": []}


async def test_saving_under_a_key_updates_that_memory(store: Store, clock: FakeClock) -> None:
    alice = tools(store, clock)
    first = await alice.call("memory_save", {"content": "deploy on friday", "key": "deploy"})
    await clock.advance(60)
    second = await alice.call("memory_save", {"content": "deploy on monday", "key": "deploy"})
    assert second["replaced"] is True
    assert second["memory"]["id"] == first["memory"]["id"]
    assert second["memory"]["createdAt"] == first["memory"]["createdAt"]
    assert second["memory"]["updatedAt"] > first["memory"]["updatedAt"]
    assert await store.count_memories("alice") == 1
    found = await alice.call("memory_search", {"query": "deploy"})
    assert [m["content"] for m in found["memories"]] == ["deploy on monday"]


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("memory_save", {"content": "  "}, "content must be a non-blank string"),
        ("memory_save", {"content": "x" * (MAX_MEMORY_CHARS + 1)}, "at most 4,000 characters"),
        ("memory_save", {"content": 5}, "memory_save(content) must be a string"),
        ("memory_save", {"content": "ok", "key": " "}, "key must be a non-blank string"),
        (
            "memory_save",
            {"content": "ok", "key": "k" * 101},
            "memory_save(key) must be at most 100 characters",
        ),
        ("memory_save", {"content": "lone \ud800"}, "content"),
        ("memory_search", {"query": ""}, "memory_search(query) must be at least 1 character"),
        ("memory_search", {"query": "q" * 1001}, "at most 1,000 characters"),
        ("memory_search", {"query": "q", "limit": 51}, "memory_search(limit) must be at most 50"),
        ("recall_activity", {"limit": 0}, "recall_activity(limit) must be at least 1"),
        ("recall_activity", {"activity_id": "a\x00"}, "activity_id must be a non-blank string"),
        ("recall_activity", {"activity_id": "a" * 201}, "at most 200 characters"),
    ],
)
async def test_bad_arguments_are_refused_and_change_nothing(
    store: Store, clock: FakeClock, tool: str, arguments: dict[str, Any], message: str
) -> None:
    alice = tools(store, clock)
    await alice.call("memory_save", {"content": "kept", "key": "k"})
    answer = await alice.call(tool, arguments)
    assert answer["ok"] is False and answer["error"] == "invalid_input", answer
    assert message in answer["message"]
    assert await store.count_memories("alice") == 1
    [kept] = await store.search_memories("alice", "kept", 5)
    assert kept.content == "kept" and kept.key == "k"


async def test_a_full_memory_answers_memory_full_and_keeps_what_it_has(
    store: Store, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    for module in (memory_writes, sqlite_memories):
        monkeypatch.setattr(module, "MAX_MEMORIES_PER_AGENT", 2)
    alice = tools(store, clock)
    await alice.call("memory_save", {"content": "one", "key": "a"})
    await alice.call("memory_save", {"content": "two"})
    answer = await alice.call("memory_save", {"content": "three"})
    assert answer["ok"] is False and answer["error"] == "memory_full"
    assert "save under the key of an entry to replace it" in answer["message"]
    assert await store.count_memories("alice") == 2
    replaced = await alice.call("memory_save", {"content": "one again", "key": "a"})
    assert replaced["ok"] is True and replaced["replaced"] is True


async def _worked(store: Store, agent: str, seconds: float, **values: Any) -> tuple[str, str]:
    """A completed item of ``agent`` with one activity started at ``T0 + seconds``."""
    done = item(agent, status=ItemStatus.COMPLETED, payload={"content": f"task at {seconds}"})
    act = activity(done.id, agent, seconds)
    await store.write([InsertItem(done), InsertActivity(act)])
    if values:
        await store.write([UpdateActivity(act.id, values)])
    return done.id, act.id


async def test_recall_activity_lists_only_the_agents_own_recent_activities(
    store: Store, clock: FakeClock
) -> None:
    _, first = await _worked(store, "alice", 0, ended_at=item().queued_at, success=False)
    second_item, second = await _worked(
        store, "alice", 10, total_tokens=120, total_tools=3, ended_at=item().queued_at
    )
    _, running = await _worked(store, "alice", 20)
    await _worked(store, "bob", 30)
    queued = item("alice")
    await store.write([InsertItem(queued), InsertActivity(activity(queued.id, "alice", 40))])
    answer = await tools(store, clock).call("recall_activity")
    listed = answer["activities"]
    assert [a["activityId"] for a in listed] == [running, second, first]
    assert [a["status"] for a in listed] == ["running", "succeeded", "failed"]
    assert listed[1] == {
        "activityId": second,
        "type": "chat",
        "label": "answering",
        "mailboxItemId": second_item,
        "startedAt": listed[1]["startedAt"],
        "endedAt": listed[1]["endedAt"],
        "totalTokens": 120,
        "totalTools": 3,
        "status": "succeeded",
        "itemType": "human_chat",
        "itemSummary": "task at 10",
        "itemStatus": "completed",
    }
    two = await tools(store, clock).call("recall_activity", {"limit": 2})
    assert [a["activityId"] for a in two["activities"]] == [running, second]


async def test_recall_activity_reads_one_activitys_log_bounded_and_cut(
    store: Store, clock: FakeClock
) -> None:
    _, act = await _worked(store, "alice", 0)
    entries = [log(act, 1, "x" * 5000), log(act, 2, "short"), log(act, 3, "third")]
    await store.write([InsertLogs(tuple(entries))])
    alice = tools(store, clock)
    answer = await alice.call("recall_activity", {"activity_id": act, "limit": 2})
    assert answer["ok"] is True and answer["activity"]["activityId"] == act
    first, second = answer["logs"]
    assert first["content"] == "x" * 2000 and first["truncated"] is True
    assert first["contentChars"] == 5000
    assert second == {
        "seq": 2,
        "type": "text",
        "content": "short",
        "createdAt": second["createdAt"],
    }
    assert answer["more"] is True
    everything = await alice.call("recall_activity", {"activity_id": act})
    assert [e["seq"] for e in everything["logs"]] == [1, 2, 3] and everything["more"] is False


async def test_another_agents_activity_is_not_found(store: Store, clock: FakeClock) -> None:
    _, bobs = await _worked(store, "bob", 0)
    await store.write([InsertLogs((log(bobs, 1, "secret"),))])
    for activity_id in (bobs, "act_nope"):
        answer = await tools(store, clock).call("recall_activity", {"activity_id": activity_id})
        assert answer["ok"] is False and answer["error"] == "activity_not_found"
        assert "secret" not in answer["message"]


def test_the_tools_have_the_seed_names() -> None:
    assert MemoryToolset.tool_definitions()[0].name == "memory_save"
    names = [d.name for d in MemoryToolset.tool_definitions()]
    assert names == ["memory_save", "memory_search", "recall_activity"]
