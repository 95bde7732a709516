"""Replaying traces through a real runtime; the summary is checked against the store."""

from __future__ import annotations

import asyncio
import json
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from attn.config import AgentConfig
from attn.core.focus import Focus
from attn.core.item_type import Category, ItemType
from attn.errors import InvalidInput, InvalidTrace
from attn.models import DecisionType, ItemStatus, MailboxItem
from attn.runtime import Runtime
from attn.store import open_store
from attn.store.base import ItemQuery
from attn.testing import FakeClock, MemoryStore
from attn.trace.claude_protocol import PROTOCOL_TYPES
from attn.trace.claude_team import import_claude_team
from attn.trace.files import write_trace
from attn.trace.model import Trace, TraceEvent
from attn.trace.replay import ReplayProgress, replay


def _messages(root: Path) -> dict[str, list[dict[str, Any]]]:
    """Inbox files counted independently of the importer: every JSON array is an inbox."""
    found = {}
    for path in sorted(root.rglob("*.json")):
        with path.open(encoding="utf-8") as handle:
            data = json.load(handle)
        if isinstance(data, list):
            found[path.relative_to(root).as_posix()] = data
    return found


async def _stored(runtime: Runtime) -> list[MailboxItem]:
    items: list[MailboxItem] = []
    for agent in await runtime.store.agent_ids():
        items += await runtime.store.find_items(ItemQuery(agent, limit=10_000, oldest_first=True))
    return items


async def test_every_inbox_message_is_processed_once_in_sender_order(
    inbox_dir: Path, tmp_path: Path
) -> None:
    files = _messages(inbox_dir)
    total = sum(len(m) for m in files.values())
    trace_path = write_trace(import_claude_team(inbox_dir), tmp_path / "team.jsonl")
    seen: list[ReplayProgress] = []
    async with Runtime(open_store(f"sqlite:///{tmp_path / 'replay.db'}")) as runtime:
        summary = await replay(trace_path, runtime, progress=seen.append)
        items = await _stored(runtime)
        picks: dict[str, list[int]] = defaultdict(list)  # item id -> positions in pick order
        for agent in {i.agent_id for i in items}:
            history = (await runtime.store.find_decisions(agent, limit=10_000))[::-1]
            for position, decision in enumerate(history):
                if decision.decision_type == DecisionType.PICK:
                    picks[decision.item_id].append(position)

    # exactly once, counted from the store against the files
    assert len(items) == total == 60
    # A teammate's newer idle ping may supersede its older queued one (CORE-76):
    # the older is stored as merged into the newer, never processed on its own.
    merged = [i for i in items if i.status == ItemStatus.MERGED]
    assert all(i.source_type == "claude_idle_notification" for i in merged)
    by_id = {i.id: i for i in items}
    for item in merged:
        survivor = by_id[item.merged_into or ""]
        assert item.id in survivor.payload["supersededItemIds"]
        assert survivor.metadata["senderId"] == item.metadata["senderId"]
    assert Counter(i.status for i in items) == {
        ItemStatus.COMPLETED: total - len(merged),
        **({ItemStatus.MERGED: len(merged)} if merged else {}),
    }
    assert all(len(picks[i.id]) == (i.status == ItemStatus.COMPLETED) for i in items), (
        "an item was processed twice"
    )
    assert len({(i.agent_id, i.idempotency_key) for i in items}) == total
    by_source = {(i.metadata["source"]["file"], i.metadata["source"]["index"]): i for i in items}
    assert set(by_source) == {(f, n) for f, msgs in files.items() for n in range(len(msgs))}

    # typed by their type; content kept verbatim
    for (file, index), item in by_source.items():
        text = files[file][index]["text"]
        assert item.content == text
        try:
            decoded = json.loads(text)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict) and "type" in decoded:
            assert item.source_type == PROTOCOL_TYPES[decoded["type"]].name
            assert item.priority == PROTOCOL_TYPES[decoded["type"]].default_priority
        else:
            assert item.source_type == "a2a_message"

    # each sender's messages to one recipient are picked in file order within a
    # priority class (the mailbox serves lower priority numbers first by design)
    groups: dict[tuple[str, str, int], list[tuple[int, int]]] = defaultdict(list)
    for (file, index), item in by_source.items():
        if item.status == ItemStatus.MERGED:
            continue
        groups[(file, files[file][index]["from"], item.priority)].append((index, picks[item.id][0]))
    for key, members in groups.items():
        positions = [p for _, p in sorted(members)]
        assert positions == sorted(positions), f"out of order: {key}"

    # the summary (computed from the store) agrees
    assert summary.ok and summary.exactly_once and summary.in_order
    assert summary.events == summary.completed + summary.merged == total
    assert summary.merged == len(merged)
    assert (summary.lost, summary.duplicates, summary.reprocessed) == ((), (), ())
    assert summary.decisions == {
        "pick": total - len(merged),
        **({"merge": len(merged)} if merged else {}),
    }
    assert sum(sum(s.values()) for t in summary.items.values() for s in t.values()) == total
    assert summary.latency_samples == summary.completed  # merged items are never picked
    assert summary.latency_p50_s is not None and summary.latency_p99_s is not None
    assert 0 <= summary.latency_p50_s <= summary.latency_p99_s <= (summary.latency_max_s or 0)
    assert seen[-1] == ReplayProgress(total, total, total)


async def test_replaying_twice_into_one_database_never_duplicates(
    inbox_dir: Path, tmp_path: Path
) -> None:
    trace = import_claude_team(inbox_dir)
    url = f"sqlite:///{tmp_path / 'twice.db'}"
    for _ in range(2):
        async with Runtime(open_store(url)) as runtime:
            summary = await replay(trace, runtime)
            items = await _stored(runtime)
        assert summary.ok and summary.completed + summary.merged == len(items) == 60
        # superseded idle pings are merged, how many depends on timing
        assert summary.decisions == {
            "pick": summary.completed,
            **({"merge": summary.merged} if summary.merged else {}),
        }


def _trace(*events: TraceEvent, types: tuple[ItemType, ...] = ()) -> Trace:
    return Trace({"kind": "test"}, types, (), events)


T0 = datetime(2026, 2, 9, 15, 0, tzinfo=UTC)


def _ev(
    key: str,
    at_s: float = 0.0,
    *,
    agent: str = "t.bob",
    sender: str = "t.alice",
    source_type: str = "a2a_message",
    content: str | None = None,
    priority: int | None = None,
) -> TraceEvent:
    return TraceEvent(
        T0 + timedelta(seconds=at_s),
        agent,
        source_type,
        {"content": content if content is not None else f"msg {key}"},
        {"senderId": sender},
        priority,
        key,
    )


CUSTOM = ItemType("custom_ping", "Ping", 3, Category.SYSTEM, "!", "internal")


@pytest.mark.parametrize(
    ("trace", "expected"),
    [
        (_trace(_ev("a"), _ev("b", source_type="nope")), r"trace event 2 .*unknown source type"),
        (_trace(_ev("a", content="  ")), r"trace event 1 .*needs non-empty text"),
        (_trace(_ev("a", agent="bad name")), r"agent name 'bad name' is not valid"),
        (_trace(_ev("a", content="x" * 300_000)), r"trace event 1 .*bytes; the limit"),
        (
            _trace(_ev("a"), types=(ItemType("heartbeat", "Beat", 3, Category.SYSTEM, "-"),)),
            r"type 'heartbeat' is already registered with different settings",
        ),
    ],
)
async def test_a_bad_trace_changes_nothing(trace: Trace, expected: str) -> None:
    async with Runtime(MemoryStore()) as runtime:
        before = len(runtime.registry)
        with pytest.raises(InvalidInput, match=expected):
            await replay(trace, runtime)
        assert runtime.agents == []
        assert await runtime.store.agent_ids() == []
        assert len(runtime.registry) == before


async def test_a_bad_trace_file_names_the_line(tmp_path: Path) -> None:
    path = write_trace(_trace(_ev("a")), tmp_path / "t.jsonl")
    path.write_text(path.read_text(encoding="utf-8") + "{broken\n", encoding="utf-8")
    async with Runtime(MemoryStore()) as runtime:
        with pytest.raises(InvalidTrace, match=r"t\.jsonl:3: not valid JSON"):
            await replay(path, runtime)
        assert await runtime.store.agent_ids() == []


async def test_bad_speed_is_rejected() -> None:
    async with Runtime(MemoryStore()) as runtime:
        for bad in (0, -1.0, True):
            with pytest.raises(InvalidInput, match="speed must be"):
                await replay(_trace(_ev("a")), runtime, speed=bad)  # type: ignore[arg-type]


async def test_user_types_are_registered_and_existing_agents_reused() -> None:
    trace = _trace(_ev("a", source_type="custom_ping"), _ev("b", agent="t.carol"), types=(CUSTOM,))
    calls: list[str] = []

    async def mine(item: MailboxItem, focus: Focus) -> str:
        calls.append(item.id)
        return "ok"

    async with Runtime(MemoryStore()) as runtime:
        await runtime.add_agent("t.bob", mine)
        summary = await replay(trace, runtime)
        assert runtime.registry["custom_ping"] == CUSTOM
        assert [a.name for a in runtime.agents] == ["t.bob", "t.carol"]
        assert len(calls) == 1  # t.bob kept its own brain; t.carol got the echo brain
        summary_again = await replay(trace, runtime)  # same types: no conflict, no duplicates
    assert summary.ok and summary_again.ok and summary_again.decisions == {"pick": 2}


async def test_failures_are_reported_as_lost_and_retried() -> None:
    async def broken(item: MailboxItem, focus: Focus) -> str:
        raise RuntimeError("boom")

    async with Runtime(MemoryStore()) as runtime:
        summary = await replay(
            _trace(_ev("a"), _ev("b", 1)),
            runtime,
            brain=lambda _name: broken,
            config=AgentConfig(max_attempts=2),
        )
    assert not summary.exactly_once and not summary.ok
    assert [(x.key, x.status) for x in summary.lost] == [("a", "dropped"), ("b", "dropped")]
    assert "boom" in summary.lost[0].reason
    assert summary.retried == 2 and summary.reprocessed == ()  # retries explain the re-picks
    assert summary.decisions == {"drop": 2, "pick": 4, "requeue": 2}
    assert summary.latency_samples == 0 and summary.latency_p50_s is None


async def test_speed_honours_gaps_on_the_runtime_clock() -> None:
    clock = FakeClock(T0)
    trace = _trace(_ev("a", 0), _ev("b", 10), _ev("c", 30), _ev("d", 30))
    enqueued_at: list[float] = []

    def progress(p: ReplayProgress) -> None:
        if p.enqueued > len(enqueued_at):
            enqueued_at.append(clock.monotonic())

    async with Runtime(MemoryStore(), clock=clock) as runtime:
        task = asyncio.create_task(
            replay(trace, runtime, speed=2.0, max_gap_s=12.0, progress=progress)
        )
        while not task.done():
            await clock.advance(0.5)
        summary = await task
    # gaps 10, 20 (capped to 12), 0 trace seconds, halved by speed 2
    assert enqueued_at == [0.0, 5.0, 11.0, 11.0]
    assert summary.ok and summary.completed == 4


@pytest.mark.postgres
async def test_replay_on_postgresql(inbox_dir: Path, fresh_pg_url: str) -> None:
    async with Runtime(open_store(fresh_pg_url)) as runtime:
        summary = await replay(import_claude_team(inbox_dir), runtime)
        items = await _stored(runtime)
    assert summary.ok and summary.completed + summary.merged == len(items) == 60
