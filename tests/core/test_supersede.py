"""One merge rule for enqueue and restart (CORE-74) and superseding notices (CORE-76).

Heartbeats and idle pings only restate a state: a newer one replaces a queued
older one and collapses into a processing one, and never preempts it (TIME-11).
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from attn import AgentConfig, DecisionType, Focus, InvalidInput, ItemStatus, MailboxItem, Runtime
from attn.core.item_type import Category, ItemType, Supersede
from attn.core.registry import TypeRegistry
from attn.ids import new_id
from attn.models import Decision
from attn.server.app import create_app
from attn.server.testing import serve_app
from attn.store.base import InsertItem, ItemQuery
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeClock, MemoryStore, settle
from attn.trace.claude_protocol import PROTOCOL_TYPES
from attn.trace.claude_team import import_claude_team

from .conftest import Recorder

INBOXES = (
    Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "claude-team-inboxes"
).resolve()


class Holder:
    """A brain that holds each item until released, then reaches one yield point."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.yields: list[str] = []

    async def __call__(self, item: MailboxItem, focus: Focus) -> Any:
        self.calls.append(item.id)
        self.started.set()
        await self.release.wait()
        decision = await focus.yield_point()
        self.yields.append(str(decision.action))
        return None if decision.stop else f"done {item.id}"


def _queued(
    clock: FakeClock,
    source_type: str,
    priority: int = 2,
    age_s: float = 0.0,
    metadata: dict[str, Any] | None = None,
    **payload: Any,
) -> MailboxItem:
    return MailboxItem(
        id=new_id("mbx"),
        agent_id="a",
        source_type=source_type,
        priority=priority,
        status=ItemStatus.QUEUED,
        payload=dict(payload),
        metadata=metadata or {},
        queued_at=clock.now() - timedelta(seconds=age_s),
    )


async def _restart(db: Path, clock: FakeClock, config: AgentConfig, *items: MailboxItem) -> Runtime:
    store = SQLiteStore(db)
    await store.open()
    await store.write([InsertItem(i) for i in items])
    await store.close()
    runtime = Runtime(SQLiteStore(db), clock=clock)
    await runtime.start()
    await runtime.add_agent("a", Recorder(), config, start=False)
    return runtime


async def _status(runtime: Runtime, item_id: str, agent: str = "a") -> ItemStatus:
    found = await runtime.store.get_item(item_id)
    assert found is not None and found.agent_id == agent
    return found.status


async def _decisions(runtime: Runtime, agent: str) -> list[Decision]:
    return list(reversed(await runtime.store.find_decisions(agent, None, 1000)))


# ------------------------------------------------------------------- CORE-74


async def test_core_74_dedup_off_nothing_merges_or_collapses_on_restart(
    tmp_path: Path, clock: FakeClock
) -> None:
    beats = [_queued(clock, "heartbeat", 3, age_s=30 - i) for i in range(3)]
    comments = [_queued(clock, "task_comment", p, content=f"c{p}", taskId="T") for p in (2, 1)]
    channel = [
        _queued(clock, "a2a_message", content=f"m{i}", extra={"channelKey": "dm:x"})
        for i in range(2)
    ]
    items = [*beats, *comments, *channel]
    runtime = await _restart(tmp_path / "attn.db", clock, AgentConfig(dedup=False), *items)
    try:
        assert runtime.get_agent("a").depth == len(items)
        for item in items:
            assert await _status(runtime, item.id) == ItemStatus.QUEUED
            stored = await runtime.store.get_item(item.id)
            assert stored is not None and stored.payload == item.payload
        assert await _decisions(runtime, "a") == []
    finally:
        await runtime.close()


async def test_core_74_dedup_on_restart_collapses_and_merges_like_enqueue(
    tmp_path: Path, clock: FakeClock
) -> None:
    beats = [_queued(clock, "heartbeat", 3, age_s=30 - i) for i in range(3)]
    comments = [_queued(clock, "task_comment", p, content=f"c{p}", taskId="T") for p in (2, 1)]
    runtime = await _restart(tmp_path / "attn.db", clock, AgentConfig(), *beats, *comments)
    try:
        assert runtime.get_agent("a").depth == 2
        assert [await _status(runtime, b.id) for b in beats] == [
            ItemStatus.DROPPED,
            ItemStatus.DROPPED,
            ItemStatus.QUEUED,
        ]
        assert await _status(runtime, comments[1].id) == ItemStatus.MERGED
    finally:
        await runtime.close()


async def test_core_74_restart_refuses_merge_keys_that_enqueue_refuses(
    tmp_path: Path, clock: FakeClock
) -> None:
    """Recovery had its own key rule: blank task ids and top-level execution flags merged."""
    blank = [_queued(clock, "task_comment", content=f"b{i}", taskId="") for i in range(2)]
    flagged = [
        _queued(
            clock, "task_comment", content=f"f{i}", taskId="T", extra={"triggerExecution": True}
        )
        for i in range(2)
    ]
    runtime = await _restart(tmp_path / "attn.db", clock, AgentConfig(), *blank, *flagged)
    try:
        agent = runtime.get_agent("a")
        assert agent.depth == 4
        # ...and enqueue agrees: neither merges there either.
        await agent.enqueue("task_comment", {"content": "b2", "taskId": ""})
        await agent.enqueue(
            "task_comment", {"content": "f2", "taskId": "T", "extra": {"triggerExecution": True}}
        )
        assert agent.depth == 6
    finally:
        await runtime.close()


# ------------------------------------------------------------------- CORE-76


async def test_core_76_newer_heartbeat_replaces_queued_one(runtime: Runtime) -> None:
    agent = await runtime.add_agent("a", Recorder(), start=False)
    ids = [await agent.enqueue("heartbeat", {"content": f"beat {i}"}) for i in range(3)]
    assert agent.depth == 1 and agent.mailbox.queued_items()[0].id == ids[2]
    for older, newer in ((ids[0], ids[1]), (ids[1], ids[2])):
        stored = await runtime.store.get_item(older)
        assert stored is not None and stored.status == ItemStatus.MERGED
        assert stored.merged_into == newer and stored.content.startswith("beat")  # text kept
    survivor = await runtime.store.get_item(ids[2])
    assert survivor is not None and survivor.payload["supersededItemIds"] == ids[:2]
    assert survivor.content == "beat 2"
    merges = [d for d in await _decisions(runtime, "a") if d.decision_type == DecisionType.MERGE]
    assert [d.item_id for d in merges] == ids[:2]


async def test_core_76_heartbeats_over_http_collapse_into_processing_one(
    tmp_path: Path,
) -> None:
    """Three heartbeats back to back while one runs: no preempt, one brain call."""
    brain = Holder()
    runtime = Runtime(SQLiteStore(tmp_path / "attn.db"))
    await runtime.start()
    try:
        await runtime.add_agent("w", brain, AgentConfig(coalesce_window_ms=0))
        async with (
            serve_app(create_app(runtime)) as url,
            httpx.AsyncClient(base_url=url, timeout=10.0) as http,
        ):

            async def beat(text: str) -> str:
                response = await http.post(
                    "/api/agents/w/mailbox",
                    json={"sourceType": "heartbeat", "payload": {"content": text}},
                )
                assert response.status_code == 202, response.text
                return str(response.json()["id"])

            first = await beat("first")
            await asyncio.wait_for(brain.started.wait(), 10)
            answers = [await beat(f"again {i}") for i in range(3)]
            assert answers == [first] * 3  # each collapsed into the processing heartbeat
            assert runtime.get_agent("w").depth == 0
            brain.release.set()
            await runtime.run_until_idle()
        assert brain.calls == [first] and brain.yields == ["continue"]
        items = await runtime.store.find_items(ItemQuery("w", limit=10, oldest_first=True))
        statuses = [(i.status, i.merged_into) for i in items if i.id != first]
        assert statuses == [(ItemStatus.MERGED, first)] * 3
        head = await runtime.store.get_item(first)
        assert head is not None and head.status == ItemStatus.COMPLETED
        assert len(head.payload["supersededItemIds"]) == 3
        kinds = [d.decision_type for d in await _decisions(runtime, "w")]
        assert DecisionType.PREEMPT not in kinds and kinds.count(DecisionType.MERGE) == 3
    finally:
        await runtime.close()


async def test_core_76_heartbeat_never_preempts_running_heartbeat(runtime: Runtime) -> None:
    """With dedup off the newer heartbeat is queued, but it waits (R6 used to preempt)."""
    brain = Holder()
    agent = await runtime.add_agent("a", brain, AgentConfig(dedup=False, coalesce_window_ms=0))
    first = await agent.enqueue("heartbeat", {"content": "first"})
    await settle()
    assert brain.calls == [first]
    second = await agent.enqueue("heartbeat", {"content": "second"})
    brain.release.set()
    await runtime.run_until_idle()
    assert brain.calls == [first, second] and brain.yields == ["continue", "continue"]
    kinds = [d.decision_type for d in await _decisions(runtime, "a")]
    assert DecisionType.PREEMPT not in kinds
    assert await _status(runtime, first) == ItemStatus.COMPLETED


async def test_core_76_same_status_notice_never_preempts_its_focus(runtime: Runtime) -> None:
    """Per-item keys count too: a sender's newer status waits for the running one (R6)."""
    brain = Holder()
    agent = await runtime.add_agent("a", brain, AgentConfig(dedup=False, coalesce_window_ms=0))
    payload = {"extra": {"supersedeKey": "status"}}
    first = await agent.enqueue(
        "system_event", {"content": "busy", **payload}, metadata={"senderId": "w1"}
    )
    await settle()
    second = await agent.enqueue(
        "system_event", {"content": "idle", **payload}, metadata={"senderId": "w1"}
    )
    other = await agent.enqueue(
        "system_event", {"content": "other sender", **payload}, metadata={"senderId": "w2"}
    )
    brain.release.set()
    await runtime.run_until_idle()
    assert brain.calls[0] == first and brain.yields[0] == "preempt"  # w2's notice is news
    assert set(brain.calls) == {first, second, other}
    decisions = await _decisions(runtime, "a")
    preempts = [d for d in decisions if d.decision_type == DecisionType.PREEMPT]
    assert [d.context.get("arrivalId") for d in preempts] == [other]


async def test_core_76_per_item_supersede_key(runtime: Runtime) -> None:
    agent = await runtime.add_agent("a", Recorder(), start=False)

    async def status(sender: str, key: str, text: str) -> str:
        return await agent.enqueue(
            "a2a_message",
            {"content": text, "extra": {"supersedeKey": key}},
            metadata={"senderId": sender},
        )

    a1 = await status("w1", "status", "w1 busy")
    a2 = await status("w1", "status", "w1 idle")
    b1 = await status("w2", "status", "w2 idle")
    c1 = await status("w1", "progress", "w1 50%")
    assert {i.id for i in agent.mailbox.queued_items()} == {a2, b1, c1}
    assert await _status(runtime, a1) == ItemStatus.MERGED


@pytest.mark.parametrize("key", [7, "", "   ", "k" * 201, None, ["x"]])
async def test_core_76_malformed_supersede_key_is_refused_and_changes_nothing(
    runtime: Runtime, key: object
) -> None:
    agent = await runtime.add_agent("a", Recorder(), start=False)
    with pytest.raises(InvalidInput, match="supersedeKey"):
        await agent.enqueue("a2a_message", {"content": "x", "extra": {"supersedeKey": key}})
    assert agent.depth == 0
    assert await runtime.store.find_items(ItemQuery("a", limit=10)) == []


async def test_core_76_people_are_never_superseded(runtime: Runtime) -> None:
    agent = await runtime.add_agent("a", Recorder(), start=False)
    for text in ("one", "two"):
        await agent.enqueue(
            "human_chat",
            {"content": text, "extra": {"supersedeKey": "k"}},
            metadata={"senderId": "u"},
        )
    assert agent.depth == 2
    with pytest.raises(InvalidInput, match="superseding"):
        TypeRegistry().register(
            ItemType(
                "ping",
                "Ping",
                3,
                Category.INTERACTION,
                "•",
                user_interaction=True,
                supersedes=Supersede.SENDER,
            )
        )
    with pytest.raises(InvalidInput, match="supersedes"):
        TypeRegistry().register(
            ItemType("ping", "Ping", 3, Category.SYSTEM, "•", supersedes="newest")
        )  # type: ignore[arg-type]


async def test_core_76_full_mailbox_still_takes_a_superseding_notice(runtime: Runtime) -> None:
    agent = await runtime.add_agent("a", Recorder(), AgentConfig(max_queued=1), start=False)
    await agent.enqueue("heartbeat", {"content": "one"})
    newer = await agent.enqueue("heartbeat", {"content": "two"})
    assert [i.id for i in agent.mailbox.queued_items()] == [newer]


async def test_core_76_lead_spends_one_call_per_idle_teammate_not_per_ping(
    clock: FakeClock,
) -> None:
    """The real Claude Code lead inbox: 8 idle pings from 4 teammates reach the brain as 4."""
    path = INBOXES / "raw" / "inboxes" / "analysis-team-final-team-lead.json"
    if not path.is_file():
        pytest.skip(f"real inbox data not found at {path}")
    trace = import_claude_team(path)
    idle = PROTOCOL_TYPES["idle_notification"]
    assert idle.supersedes == Supersede.SENDER
    assert ItemType.from_dict(idle.to_dict()) == idle  # trace files keep the rule
    with pytest.raises(InvalidInput, match="supersedes"):
        ItemType.from_dict({**idle.to_dict(), "supersedes": "newest"})
    pings = [e for e in trace.events if e.source_type == idle.name]
    senders = {e.metadata["senderId"] for e in pings}
    assert (len(pings), len(senders)) == (8, 4)
    brain = Recorder()
    async with Runtime(MemoryStore(), clock=clock) as runtime:
        for spec in trace.types:
            runtime.registry.register(spec)
        (name,) = {e.agent for e in trace.events}
        lead = await runtime.add_agent(
            name, brain, AgentConfig(coalesce_window_ms=0), start=False
        )  # busy elsewhere
        for event in trace.events:
            await lead.enqueue(
                event.source_type, event.payload, event.priority, event.metadata, event.key
            )
        lead.start()
        await runtime.run_until_idle()
        items = await runtime.store.find_items(ItemQuery(name, limit=100, oldest_first=True))
    by_id = {i.id: i for i in items}
    called = [by_id[i] for i in brain.ids]
    idle_calls = [i for i in called if i.source_type == idle.name]
    assert len(idle_calls) == 4 and {i.metadata["senderId"] for i in idle_calls} == senders
    assert len(called) == len(trace.events) - 4
    for item in items:
        if item.status == ItemStatus.MERGED:  # each superseded ping keeps its text
            assert item.content.startswith('{"type":"idle_notification"')
            newer = by_id[item.merged_into or ""]
            assert newer.metadata["senderId"] == item.metadata["senderId"]
            assert item.id in newer.payload["supersededItemIds"]
